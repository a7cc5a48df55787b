"""compare: two runs matched cell by cell, median of measured samples, ratio B / A."""
from __future__ import annotations

import random
import statistics

import pytest
from click.testing import CliRunner

from serbench.cli import cli
from serbench.compare import compare_runs, label, shift_line
from serbench.results import Results, ResultsError
from test_runner import PLAN, StopAfter, home, run, use  # noqa: F401  (home is a fixture)

SMALL = PLAN.replace('["trade", "part"]', '["trade"]')


def medians(results: Results, run_id: str) -> dict[int, float]:
    by_cell: dict[int, list[int]] = {}
    for s in results.samples(run_id):
        if not s["warmup"]:
            by_cell.setdefault(s["cell_id"], []).append(s["total_ns"])
    return {cell: statistics.median(times) for cell, times in by_cell.items()}


def test_compare_matches_cells_and_ranks_by_ratio(home, monkeypatch):
    use(monkeypatch, home)
    a, *_ = run(home, SMALL, run_id="a")
    b, *_ = run(home, SMALL, run_id="b")
    with Results(home / "results.duckdb", read_only=True) as results:
        comparison = compare_runs(results, a, b)
        cells = results.cells(a)
        median_a, median_b = medians(results, a), medians(results, b)
    assert len(comparison.rows) == len(cells)  # the same plan: every cell matched
    assert comparison.only_a == comparison.only_b == 0 and comparison.not_ok == []
    ratios = [row.ratio for row in comparison.rows]
    assert ratios == sorted(ratios, reverse=True)
    ids = {(c["task"], c["method"], c["depth"], c["variant"], c["n"]): c["cell_id"] for c in cells}
    for row in comparison.rows:
        key = tuple(row.identity[k] for k in ("task", "method", "depth", "variant", "n"))
        assert row.median_a == median_a[ids[key]]
        assert row.ratio == pytest.approx(median_b[ids[key]] / median_a[ids[key]])
    assert comparison.geometric_mean > 0
    assert label(comparison.rows[0].identity).startswith("rust/")


def test_unmatched_and_not_ok_cells_are_counted_not_compared(home, monkeypatch):
    use(monkeypatch, home)
    a, *_ = run(home, SMALL, run_id="a")
    use(monkeypatch, home, mode="bad_checksum", on="op=run,task=read_seq,depth=access")
    b, *_ = run(home, SMALL.replace("n = [5, 100]", "n = [5, 6]"), run_id="b")
    with Results(home / "results.duckdb", read_only=True) as results:
        comparison = compare_runs(results, a, b)
    assert comparison.only_a > 0 and comparison.only_b > 0  # n = 8 vs n = 6
    assert comparison.not_ok
    assert all((sa, sb) == ("ok", "invalid") for _, sa, sb in comparison.not_ok)
    assert all(row.identity["depth"] != "access" or row.identity["task"] != "read_seq"
               for row in comparison.rows)


def test_incomplete_runs_are_refused_unless_allowed(home, monkeypatch):
    use(monkeypatch, home)
    a, *_ = run(home, SMALL, run_id="a")
    with pytest.raises(KeyboardInterrupt):
        run(home, SMALL, run_id="cut", listener=StopAfter(4, KeyboardInterrupt()))
    with Results(home / "results.duckdb", read_only=True) as results:
        with pytest.raises(ResultsError, match="cut is interrupted"):
            compare_runs(results, a, "cut")
        partial = compare_runs(results, a, "cut", allow_incomplete=True)
    assert len(partial.rows) == 4 and partial.only_a > 0  # the cells done before Ctrl-C


def test_compare_cli(home, monkeypatch):
    use(monkeypatch, home)
    run(home, SMALL, run_id="a")
    run(home, SMALL, run_id="b")
    result = CliRunner().invoke(cli, ["compare", "a", "b", "--limit", "3"])
    assert result.exit_code == 0, result.output
    assert "B / A" in result.output and "cells compared" in result.output


def test_cells_measured_under_another_protocol_are_flagged_and_left_out_of_the_mean(
        home, monkeypatch):
    use(monkeypatch, home)
    run(home, SMALL, run_id="a")
    run(home, SMALL.replace("repetitions = 2", "repetitions = 4"), run_id="b")
    with Results(home / "results.duckdb", read_only=True) as results:
        same = compare_runs(results, "a", "a")
        changed = compare_runs(results, "a", "b")
    assert same.rows and not any(row.protocol for row in same.rows)
    assert changed.rows and all(row.protocol == ["repetitions 2 -> 4"] for row in changed.rows)
    assert changed.geometric_mean is None  # nothing was measured the same way
    result = CliRunner().invoke(cli, ["compare", "a", "b"])
    assert result.exit_code == 0, result.output
    assert (f"(over the 0 measured the same way; {len(changed.rows)} measured differently)"
            in " ".join(result.output.split()))


@pytest.mark.parametrize("b", [[200, 202, 199, 205, 201], [101, 99, 103, 100, 102]])
def test_each_ratio_has_a_seeded_bootstrap_interval_of_its_samples(b):
    from serbench.compare import Row, ratio_interval
    a = [100, 102, 98, 101, 99]
    low, high = Row({}, a, b).interval
    assert low <= Row({}, a, b).ratio <= high
    assert ratio_interval(a, b) == ratio_interval(a, b), "seeded: the same interval each time"


def rows_of(pairs: list[tuple[str, str, float, float]], rounds: int = 6, spread: float = 0.0,
            seed: int = 1) -> list:
    """Rows of (task, method, median A, median B), each side's rounds spread around it."""
    from serbench.compare import Row
    rng = random.Random(seed)

    def side(ns):
        return {r: ns * rng.lognormvariate(0, spread) for r in range(rounds)}

    rows = []
    for task, method, a, b in pairs:
        ra, rb = side(a), side(b)
        identity = {"task": task, "language": "rust", "method": method, "variant": ""}
        rows.append(Row(identity, [round(v) for v in ra.values()],
                        [round(v) for v in rb.values()], [], ra, rb))
    return rows


def judged(rows):
    from serbench.compare import Comparison, judge
    comparison = Comparison("a", "b", rows=rows)
    judge(comparison)
    return comparison


def test_a_whole_run_shift_is_the_machines_and_cells_are_judged_after_it():
    rng = random.Random(4)
    pairs = [("read_seq", f"m{i}", 100.0, 93 * rng.lognormvariate(0, 0.03)) for i in range(60)]
    pairs[7] = ("read_seq", "m7", 100.0, 200.0)  # one cell really doubled
    comparison = judged(rows_of(pairs, spread=0.01))
    assert comparison.shift.ratio == pytest.approx(0.93, abs=0.01) and comparison.shift.established
    verdicts = {r.identity["method"]: r.verdict for r in comparison.rows}
    assert verdicts.pop("m7") == "slower"
    assert sum(v != "no difference" for v in verdicts.values()) <= 3, "7 % faster is the machine"
    assert "run B was 7 % faster on every cell" in shift_line(comparison.shift)


def simulated_runs(rng, methods=12, models=4, cells_per_model=3, slow=None):
    """Two runs of one machine: each cell's true time, each run's whole-run shift, each
    process's luck (a method x model's, shared by its cells), a cell's own run-to-run noise,
    bursts, and rounds with their own noise; `slow`: (method, factor) in run B only."""
    shift_b = rng.lognormvariate(0, 0.05)
    pairs = []
    for m in range(methods):
        factor = slow[1] if slow and slow[0] == f"m{m}" else 1.0
        for _ in range(models):
            luck_a, luck_b = rng.lognormvariate(0, 0.03), rng.lognormvariate(0, 0.03)
            for c in range(cells_per_model):
                true = 1e5 * rng.lognormvariate(0, 1)
                burst = 2.0 if rng.random() < 0.02 else 1.0
                a = true * luck_a * rng.lognormvariate(0, 0.05)
                b = true * luck_b * shift_b * factor * burst * rng.lognormvariate(0, 0.05)
                pairs.append(("read_seq" if c % 2 else "micro", f"m{m}", a, b))
    return judged(rows_of(pairs, spread=0.04, seed=rng.random()))


def test_on_two_identical_runs_at_most_5_percent_of_cells_are_flagged():
    rng = random.Random(21)
    flagged = cells = methods_flagged = 0
    for _ in range(40):
        comparison = simulated_runs(rng)
        flagged += sum(r.verdict != "no difference" for r in comparison.rows)
        cells += len(comparison.rows)
        methods_flagged += len(comparison.methods)
    assert flagged / cells <= 0.05
    assert methods_flagged / (40 * 12) <= 0.05, "a method flagged with nothing changed"


def test_a_method_made_20_percent_slower_is_found_in_at_least_90_percent_of_comparisons():
    rng = random.Random(22)
    found = 0
    for _ in range(40):
        comparison = simulated_runs(rng, slow=("m3", 1.2))
        found += any(m.method == "m3" and m.ratio > 1 for m in comparison.methods)
    assert found / 40 >= 0.9


def test_runs_from_different_hosts_are_flagged(home, monkeypatch):
    use(monkeypatch, home)
    run(home, SMALL, run_id="a")
    run(home, SMALL, run_id="b")
    with Results(home / "results.duckdb") as results:
        results.con.execute("UPDATE runs SET host = json_object('hostname', 'other') "
                            "WHERE run_id = 'b'")
        assert compare_runs(results, "a", "b").hosts[1] == "other"
        assert compare_runs(results, "a", "a").hosts is None
    result = CliRunner().invoke(cli, ["compare", "a", "b"])
    assert result.exit_code == 0, result.output
    assert "the runs are from different hosts" in " ".join(result.output.split())


def test_the_geometric_mean_per_task_leaves_out_pairs_measured_differently():
    from serbench.compare import Comparison, Row

    def row(task, a, b, protocol=()):
        return Row({"task": task}, [a] * 3, [b] * 3, list(protocol))

    comparison = Comparison("a", "b", rows=[
        row("read_seq", 10, 20), row("read_seq", 10, 80), row("write", 100, 50),
        row("write", 10, 1000, ["repetitions 2 -> 4"])])
    means = comparison.task_means()
    assert means == {"read_seq": pytest.approx(4.0), "write": pytest.approx(0.5)}
    assert comparison.geometric_mean == pytest.approx((2 * 8 * 0.5) ** (1 / 3))


def test_a_report_compares_its_run_with_a_baseline(home, monkeypatch, tmp_path):
    from serbench.report import ReportError, render_run
    from serbench.report.units import multiple

    use(monkeypatch, home)
    run(home, SMALL, run_id="a")
    run(home, SMALL, run_id="b")
    db = home / "results.duckdb"
    with Results(db, read_only=True) as results:
        comparison = compare_runs(results, "a", "b")
    _, md = render_run(db, "b", tmp_path / "out", baseline="a")
    text = md.read_text("utf-8")
    assert "## Against baseline run a" in text
    assert f"of {len(comparison.rows):,} cells compared" in text
    for task, mean in comparison.task_means().items():
        assert f"| {task} | {multiple(mean)} |" in text
    with pytest.raises(ReportError, match="baseline: no run 'nope'"):
        render_run(db, "b", tmp_path / "out", baseline="nope")


NOISY_PLAN = """
name = "noisy"
[params]
n = [5]
warmups = 0
repetitions = 1
rounds_min = 6
rounds_max = 8
min_sample_ms = 0.001
buffers = ["reused"]
forks = 0
iterations = 1
raw = false
[[group]]
tasks = ["read_seq", "read_rand", "micro"]
models = ["trade"]
"""
METHODS = "alpha,beta,gamma,delta,epsilon,zeta,eta"
# the machine drifts by +-3 % over a minute (each set of interleaved cells sees it alike),
# bursts hit 2 % of repetitions, repetitions spread 3 %, processes 2 %
NOISE = "drift=0.03,period=60,burst=0.02,noise=0.03,process=0.02"


def test_compare_through_the_fake_driver_sees_the_shift_and_the_slowed_method(home, monkeypatch):
    """Real runs of the fake driver whose times drift, burst and differ per process: two
    identical runs but for a 7 % faster machine flag few cells; a method made 30 % slower is
    found, its cells slower."""
    use(monkeypatch, home, methods=METHODS, times=f"seed=1,{NOISE}")
    run(home, NOISY_PLAN, run_id="a")
    use(monkeypatch, home, methods=METHODS, times=f"seed=2,shift=0.93,{NOISE}")
    run(home, NOISY_PLAN, run_id="b")
    use(monkeypatch, home, methods=METHODS, times=f"seed=3,slow=beta:1.3,{NOISE}")
    run(home, NOISY_PLAN, run_id="c")
    with Results(home / "results.duckdb", read_only=True) as results:
        same = compare_runs(results, "a", "b")
        slowed = compare_runs(results, "a", "c")
    assert len(same.rows) >= 40
    assert same.shift.ratio == pytest.approx(0.93, abs=0.05) and same.shift.established
    assert "run B was" in shift_line(same.shift) and "faster on every cell" in shift_line(same.shift)
    # one trial of a few dozen cells: a bound a correct 5 % rate passes but for one time in
    # a thousand (the rate itself: the simulated runs above)
    assert sum(r.verdict != "no difference" for r in same.rows) <= 0.15 * len(same.rows)
    first = slowed.methods[0]  # the most apart (another may stand out by chance, rarely)
    assert (first.method, first.ratio > 1) == ("beta", True)
    beta = [r for r in slowed.rows if r.identity["method"] == "beta"]
    assert sum(r.verdict == "slower" for r in beta) >= len(beta) / 2


def test_sets_measured_minutes_apart_are_judged_after_their_own_shift():
    """Two comparison sets of one task, the machine 60 % slower for the second in run B:
    each set's cells moved alike, so no cell is the code's; a cell that moved 25 % apart from
    its set is (judged after the task's shift instead, the sets' spread would hide it)."""
    rng = random.Random(8)
    pairs = [(f"m{i}", 100.0, 100 * rng.lognormvariate(0, 0.02)) for i in range(12)]
    later = [(f"m{i}", 100.0, 160 * rng.lognormvariate(0, 0.02)) for i in range(12)]
    later[3] = ("m3", 100.0, 200.0)
    rows = rows_of([("read_seq", m, a, b) for m, a, b in pairs + later], spread=0.01)
    for row in rows[12:]:
        row.identity["model"] = "customer"
    comparison = judged(rows)
    flagged = [(r.identity.get("model"), r.identity["method"]) for r in rows
               if r.verdict != "no difference"]
    assert flagged == [("customer", "m3")]
