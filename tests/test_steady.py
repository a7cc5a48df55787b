"""The steady-state verdict on hand-made samples: a JIT still compiling, drifts up and down,
noise without a trend, forks judged apart, and cells too short to judge."""
from __future__ import annotations

import pytest

from serbench.steady import drift, judge, spearman, still_compiling


def samples(times_us: list[float], jit_ms: list[int] | None = None, fork: int | None = None,
            warmups: int = 0, jit_cpu_ms: list[float] | None = None) -> list[dict]:
    out = [{"rep": i, "warmup": True, "total_ns": 10**9} for i in range(warmups)]
    for i, t in enumerate(times_us):
        s = {"rep": i, "warmup": False, "total_ns": int(t * 1000)}
        if jit_ms is not None:
            s["jit_ms"] = jit_ms[i]
        if jit_cpu_ms is not None:
            s["jit_cpu_ns"] = int(jit_cpu_ms[i] * 1e6)
        if fork is not None:
            s["fork"] = fork
        out.append(s)
    return out


def test_noise_without_a_trend_is_steady():
    verdict = judge(samples([100, 104, 98, 101, 99, 103, 97, 102, 100, 101]))
    assert verdict.steady is True
    assert verdict.note == "no drift across 10 repetitions"


def test_a_clear_drift_down_is_unsteady_and_named():
    verdict = judge(samples([130, 126, 122, 118, 114, 110, 106, 102, 100, 100]))
    assert verdict.steady is False
    assert "drift down (still warming up) by 23%" in verdict.note


def test_a_drift_up_is_unsteady():
    verdict = judge(samples([100, 101, 103, 106, 110, 115, 121, 128]))
    assert verdict.steady is False and "drift up" in verdict.note


def test_a_significant_but_small_trend_is_steady():
    # monotonic (rho = 1) yet only 3 % from the first third to the last
    assert judge(samples([100, 100.5, 101, 101.5, 102, 102.5, 103, 103.5])).steady is True


def test_a_large_noisy_swing_without_a_trend_is_steady():
    # 8 repetitions, half of them 50 % slower, in no order: rho ~ 0.05
    assert judge(samples([100, 150, 100, 150, 150, 100, 150, 100])).steady is True


def test_five_to_seven_repetitions_need_a_monotonic_change():
    assert judge(samples([300, 200, 150, 130, 120])).steady is False
    assert judge(samples([300, 140, 150, 130, 120])).steady is True  # not monotonic
    assert judge(samples([105, 104, 103, 102, 101])).steady is True   # monotonic, under 10 %


def test_three_or_four_repetitions_say_nothing_about_a_trend():
    verdict = judge(samples([300, 140, 120]))
    assert verdict.steady is None and "too few to judge a trend (at least 5)" in verdict.note


def test_the_jit_compiling_while_measured_is_unsteady():
    # 3 reps of 10 ms = 30 ms measured; 5 ms of compilation is 17 %
    verdict = judge(samples([10_000, 10_000, 10_000], jit_ms=[5, 0, 0]))
    assert verdict.steady is False
    assert "JIT compiled for 5 ms" in verdict.note and "17%" in verdict.note


def test_a_quiet_jit_under_the_share_is_steady_and_said():
    verdict = judge(samples([10_000] * 5, jit_ms=[0, 0, 1, 0, 0]))  # 1 ms of 50 ms
    assert verdict.steady is True
    assert verdict.note == "JIT compiled 1 ms while measured; no drift across 5 repetitions"
    # three repetitions: judged on the JIT alone, and the note says the trend was not
    assert judge(samples([10_000] * 3, jit_ms=[0, 0, 0])).note == \
        "JIT compiled 0 ms while measured; trend not judged"


def test_one_millisecond_of_compilation_is_below_what_the_bean_resolves():
    # 1 ms in a 5 ms region is 20 %, but the bean counts whole milliseconds
    assert judge(samples([1_000] * 5, jit_ms=[0, 1, 0, 0, 0])).steady is True
    assert judge(samples([1_000] * 5, jit_ms=[0, 2, 0, 0, 0])).steady is False


def test_a_compile_still_running_while_measured_is_unsteady():
    # a C2 compile on a CPU through all five 10 ms repetitions, ending after them: the bean
    # saw no compilation, the compiler threads 40 ms of CPU (80 % of 50 ms)
    verdict = judge(samples([10_000] * 5, jit_ms=[0] * 5, jit_cpu_ms=[8] * 5))
    assert verdict.steady is False
    assert verdict.note == ("JIT compiling during measurement: 40 ms of compiler CPU "
                            "(80% of their 50 ms)")


def test_little_compiler_cpu_is_steady_and_said():
    # 0.5 ms of 50 ms (1 %); and 1.5 ms of 5 ms, under the 2 ms a compiled JVM may still spend
    verdict = judge(samples([10_000] * 5, jit_ms=[0] * 5, jit_cpu_ms=[0.1] * 5))
    assert verdict.steady is True
    assert verdict.note == ("JIT compiled 0 ms while measured; 0.5 ms of compiler CPU; "
                            "no drift across 5 repetitions")
    assert judge(samples([1_000] * 5, jit_ms=[0] * 5, jit_cpu_ms=[0.3] * 5)).steady is True
    # the same region with 3 ms (4 %) of compiler CPU is not steady
    assert judge(samples([10_000] * 5, jit_ms=[0] * 5, jit_cpu_ms=[0.6] * 5)).steady is False


def test_warmups_never_count():
    # the warm-ups (1 s each) would be a huge drift
    verdict = judge(samples([100, 101, 99, 100, 101, 100], warmups=3))
    assert verdict.steady is True


def test_forks_are_judged_apart():
    # each fork flat; pooled in order they would look like a step up
    pooled = samples([100, 101, 100, 99, 100], fork=0) + samples([150, 151, 149, 150, 150],
                                                                 fork=1)
    assert judge(pooled).steady is True
    drifting = samples([100, 101, 100, 99, 100], fork=0) + samples([200, 160, 140, 120, 110],
                                                                   fork=1)
    assert judge(drifting).steady is False


def test_too_few_repetitions_without_a_jit_figure_are_not_judged():
    verdict = judge(samples([100, 300]))
    assert verdict.steady is None
    assert "too few to judge" in verdict.note
    # the same two repetitions with a JIT figure are judged on it
    assert judge(samples([100, 300], jit_ms=[0, 0])).steady is True


def test_no_measured_repetition_is_not_judged():
    assert judge(samples([], warmups=2)).steady is None


def test_spearman_against_hand_computed_values():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [40, 30, 20, 10]) == pytest.approx(-1.0)
    # ranks y = 2,1,4,3 against 1,2,3,4: d^2 = 1+1+1+1 = 4, rho = 1 - 6*4/(4*15) = 0.6
    assert spearman([1, 2, 3, 4], [20, 10, 40, 30]) == pytest.approx(0.6)
    assert spearman([1, 2, 3], [5, 5, 5]) == 0.0


def test_drift_is_last_third_over_first_third_of_the_median():
    # thirds of 6: [100, 100] and [120, 120]; median 110
    assert drift([100, 100, 110, 110, 120, 120]) == pytest.approx(20 / 110)


def net_samples(times_us: list[float], jit_ms: list[int] | None, round_: int = 0,
                jit_cpu_ms: list[float] | None = None) -> list[dict]:
    """A network cell's samples (the client's times) with a Rust client's and a Java
    server's figures; the server's JIT figures only when given."""
    out = []
    for i, t in enumerate(times_us):
        server = {"total_ns": int(t * 500)}
        if jit_ms is not None:
            server["jit_ms"] = jit_ms[i]
        if jit_cpu_ms is not None:
            server["jit_cpu_ns"] = int(jit_cpu_ms[i] * 1e6)
        out.append({"rep": round_ * len(times_us) + i, "warmup": False,
                    "total_ns": int(t * 1000), "round": round_,
                    "nodes": {"client": {"total_ns": int(t * 1000)}, "server0": server}})
    return out


def test_a_network_node_still_compiling_makes_the_cell_unsteady_naming_it():
    # the client (Rust) reports no JIT; the Java server compiled 6 ms of the 30 ms measured
    verdict = judge(net_samples([10_000] * 3, jit_ms=[6, 0, 0]))
    assert verdict.steady is False
    assert verdict.note == ("node server0: the JIT compiled for 6 ms during the measured "
                            "repetitions (20% of their 30 ms)")
    running = judge(net_samples([10_000] * 3, jit_ms=[0] * 3, jit_cpu_ms=[5, 5, 5]))
    assert running.steady is False and running.note.startswith(
        "node server0: JIT compiling during measurement: 15 ms of compiler CPU")


def test_a_network_node_whose_jit_is_quiet_is_judged_steady_and_said():
    verdict = judge(net_samples([10_000] * 3, jit_ms=[0, 0, 0], jit_cpu_ms=[0.1] * 3))
    assert verdict.steady is True
    assert verdict.note == ("node server0: JIT compiled 0 ms while measured, 0.3 ms of "
                            "compiler CPU; trend not judged")
    # without any JIT figure three repetitions a round judge nothing
    assert judge(net_samples([10_000] * 3, jit_ms=None)).steady is None


def test_a_network_cells_rounds_are_judged_apart():
    # fresh nodes each round (repetitions numbered on across rounds, as rounds.py does):
    # flat rounds at two levels are no drift, a round warming up is
    flat = net_samples([100] * 5, None, 0) + net_samples([150] * 5, None, 1)
    assert judge(flat).steady is True
    warming = net_samples([100] * 5, None, 0) + net_samples([200, 160, 140, 120, 110], None, 1)
    assert judge(warming).steady is False


def test_warm_ups_go_on_while_the_last_100_ms_compiled_past_the_share_judge_uses():
    # what warms a network cell's fresh nodes on: the same thresholds as the verdict
    assert still_compiling(net_samples([100_000], jit_ms=[6]))
    assert still_compiling(net_samples([100_000], jit_ms=[0], jit_cpu_ms=[5]))
    assert not still_compiling(net_samples([100_000], jit_ms=[0], jit_cpu_ms=[0.1]))
    # 2 ms is JIT_MIN_MS, and 1.5 ms is 1.5 % of a 100 ms repetition: under both
    assert not still_compiling(net_samples([100_000], jit_ms=[1]))
    assert still_compiling(net_samples([100_000], jit_ms=[3]))
    # only the newest 100 ms count: an old compile is over
    assert not still_compiling(net_samples([100_000, 100_000], jit_ms=[50, 0]))
    # repetitions too short to span the window yet: on, whatever they show
    assert still_compiling(net_samples([20_000] * 3, jit_ms=[0] * 3))
    assert not still_compiling(net_samples([20_000] * 5, jit_ms=[0] * 5))
    # nothing to wait for without a JIT figure
    assert not still_compiling(net_samples([20_000], jit_ms=None))
    # a process's own figures (a single-process cell) count too
    assert still_compiling(samples([100_000], jit_ms=[6]))
    assert not still_compiling(samples([100_000]))
