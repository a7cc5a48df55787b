"""Interleaved rounds on hand-made outcomes: every live cell once a round in a seeded shuffled
order, floors after the methods in the first round, warm-ups only in the first round (and in
every fork and network round), repetitions grown to the minimum sample time, and each cell ended by the rule
that ended it."""
from __future__ import annotations

from pathlib import Path

from serbench.cell import RAW, Cell
from serbench.results import CellResult
from serbench.run.rounds import comparison_sets, rule_of, run_set


def cell(method: str, cell_id: int, **changes) -> Cell:
    base = dict(language="rust", task="read_seq", model="part", method=method, depth="",
                variant="", setting="", dataset="d", dataset_dir=Path("d"), n=10,
                page_size=4096, cold=True, warmups=2, repetitions=1, seed=1, timeout_s=10,
                rounds_min=3, rounds_max=3, ci_target=0.001, time_cap_s=1e9,
                min_sample_ms=0.0, cell_id=cell_id)
    return Cell(**{**base, **changes})


def sample(rep: int, ns: int, warmup: bool = False) -> dict:
    return {"rep": rep, "warmup": warmup, "total_ns": ns, "cpu_ns": ns, "io_ns": 0}


class Recorder:
    """A measure function that logs each request and answers `ns` per repetition."""

    def __init__(self, ns: dict[str, int] | None = None, fail: tuple[str, int] | None = None):
        self.requests: list[tuple[int, str, Cell]] = []
        self.recorded: dict[str, CellResult] = {}
        self.ns = ns or {}
        self.fail = fail

    def measure(self, asked: Cell, number: int) -> CellResult:
        self.requests.append((number, asked.method, asked))
        if self.fail == (asked.method, number):
            return CellResult("failed", "crash", "the driver died")
        ns = self.ns.get(asked.method, 1000)
        warm = [sample(i, ns, True) for i in range(asked.warmups)]
        return CellResult("ok", samples=warm + [sample(i, ns) for i in range(asked.repetitions)])

    def record(self, done: Cell, result: CellResult) -> None:
        self.recorded[done.method] = result


def rounds_of(recorder: Recorder) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for number, method, _ in recorder.requests:
        found.setdefault(number, []).append(method)
    return found


def test_every_live_cell_is_measured_once_a_round_in_a_seeded_shuffled_order():
    cells = [cell(m, i) for i, m in enumerate(["a", "b", "c", "d", "e", "f"], 1)]
    first, second = Recorder(), Recorder()
    run_set(cells, first.measure, first.record, seed="s")
    run_set(cells, second.measure, second.record, seed="s")
    order = rounds_of(first)
    assert sorted(order) == [0, 1, 2] and all(sorted(o) == list("abcdef") for o in order.values())
    assert len({tuple(o) for o in order.values()}) > 1, "each round shuffled anew"
    assert rounds_of(second) == order, "the same seed, the same order"
    other = Recorder()
    run_set(cells, other.measure, other.record, seed="t")
    assert rounds_of(other) != order


def test_the_first_round_measures_the_floors_after_the_methods_whose_files_they_read():
    cells = [cell(m, i) for i, m in enumerate(["a", "b", "c"], 1)]
    cells += [cell(RAW, 10 + i, variant=v) for i, v in enumerate(["a", "b", "c"])]
    recorder = Recorder()
    run_set(cells, recorder.measure, recorder.record, seed="s")
    first = rounds_of(recorder)[0]
    assert first[:3] != [RAW] * 3 and first[3:] == [RAW] * 3


def test_warm_ups_come_in_the_first_round_and_repetitions_grow_to_the_minimum_sample():
    cells = [cell("a", 1, min_sample_ms=0.05)]  # 50 us a round; a repetition takes 10 us
    recorder = Recorder({"a": 10_000})
    run_set(cells, recorder.measure, recorder.record, seed="s")
    asked = [(number, c.warmups, c.repetitions) for number, _, c in recorder.requests]
    assert asked == [(0, 2, 1), (1, 1, 5), (2, 1, 5)]
    precision = recorder.recorded["a"].counters["precision"]
    assert (precision["rounds"], precision["repetitions_per_round"]) == (3, 5)
    rounds = [s["round"] for s in recorder.recorded["a"].samples if not s["warmup"]]
    assert rounds == [0] + [1] * 5 + [2] * 5
    reps = [s["rep"] for s in recorder.recorded["a"].samples if not s["warmup"]]
    assert reps == list(range(11)), "numbered on across rounds"


def test_a_fork_is_a_fresh_process_with_its_own_warm_ups_and_forks_rounds():
    forked = cell("a", 1, forks=2, rounds_min=5, rounds_max=9)
    assert (rule_of(forked).rounds_min, rule_of(forked).rounds_max) == (2, 2)
    recorder = Recorder()
    run_set([forked], recorder.measure, recorder.record, seed="s")
    assert [c.warmups for _, _, c in recorder.requests] == [2, 2]
    assert {s["fork"] for s in recorder.recorded["a"].samples} == {0, 1}


def test_a_network_cells_fresh_nodes_warm_up_every_round_as_in_the_first():
    net = cell("a", 1, task="net_aggregate", warmup_max_ms=10_000, warmup_ms=500)
    recorder = Recorder()
    run_set([net], recorder.measure, recorder.record, seed="s")
    assert [(c.warmups, c.warmup_ms, c.warmup_max_ms) for _, _, c in recorder.requests] == [
        (2, 500, 10_000)] * 3
    # a read in the batch's warm process: one warm-up after the first round, no JIT wait
    read = Recorder()
    run_set([cell("a", 1, warmup_max_ms=10_000, warmup_ms=500)], read.measure, read.record,
            seed="s")
    assert [(c.warmups, c.warmup_ms, c.warmup_max_ms) for _, _, c in read.requests] == [
        (2, 500, 10_000), (1, 0, 0), (1, 0, 0)]


def test_each_cell_records_what_ended_it():
    steady = cell("a", 1, ci_target=0.5, rounds_min=6, rounds_max=9)
    noisy = cell("b", 2, rounds_min=2, rounds_max=3)
    recorder = Recorder()
    run_set([steady, noisy], recorder.measure, recorder.record, seed="s")
    ended = {m: r.counters["precision"]["ended_by"] for m, r in recorder.recorded.items()}
    assert ended == {"a": "precision", "b": "rounds_max"}
    assert recorder.recorded["a"].counters["precision"]["rounds"] == 6


def test_a_failed_round_ends_its_cell_with_that_outcome_and_no_samples():
    cells = [cell("a", 1), cell("b", 2)]
    recorder = Recorder(fail=("a", 1))
    run_set(cells, recorder.measure, recorder.record, seed="s")
    assert recorder.recorded["a"].status == "failed"
    assert recorder.recorded["a"].message == "round 2: the driver died"
    assert not recorder.recorded["a"].samples
    assert recorder.recorded["b"].status == "ok" and rounds_of(recorder)[2] == ["b"]


def test_comparison_sets_cut_a_batch_by_task_n_and_setting_in_task_order():
    cells = [cell("a", 1, task="read_rand"), cell("b", 2), cell("a", 3, task="write", n=99),
             cell("a", 4, n=20), cell("b", 5, n=20), cell("c", 6)]
    sets = comparison_sets(cells)
    assert [[c.cell_id for c in s] for s in sets] == [[3], [2, 6], [4, 5], [1]]


def test_each_cell_records_the_wall_time_of_its_own_rounds_also_when_one_fails():
    """A clock that advances 2 s per request of `a`, 5 s per request of `b` and 1 s between
    rounds: each cell's `wall_s` sums its own requests only (3 rounds each; `b` fails in its
    third)."""
    now = [0.0]
    recorder = Recorder(fail=("b", 2))

    def measure(asked: Cell, number: int) -> CellResult:
        now[0] += {"a": 2.0, "b": 5.0}[asked.method]
        return recorder.measure(asked, number)

    def record(done: Cell, result: CellResult) -> None:
        now[0] += 1.0
        recorder.record(done, result)

    run_set([cell("a", 1), cell("b", 2)], measure, record, seed="s", clock=lambda: now[0])
    assert recorder.recorded["a"].counters["wall_s"] == 6.0
    assert recorder.recorded["b"].status == "failed"
    assert recorder.recorded["b"].counters["wall_s"] == 15.0
