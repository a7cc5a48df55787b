"""A JIT's process warmed with its own cells before it measures them (run/prewarm.py)."""
from __future__ import annotations

import json
from dataclasses import replace

from test_rounds import cell
from test_runner import home, run, use  # noqa: F401 (home: a fixture)
from serbench.results import CellResult
from serbench.run.prewarm import budget_ms, prewarm, unmeasured, warmable

PLAN = """
name = "t"
[params]
rounds_min = 2
rounds_max = 2
n = [5]
warmups = 1
repetitions = 2
timeout_s = 20
prewarm_max_ms = {budget}
[[group]]
tasks = ["write", "read_seq", "read_rand", "read_par", "sort_dedup", "sizes"]
models = ["part"]
threads = [1, 2]
budget_bytes = [65536]
page_size = 4096
"""


def sample(rep: int, jit_ms: float, ns: int = 60_000_000) -> dict:
    return {"rep": rep, "warmup": False, "total_ns": ns, "cpu_ns": ns, "io_ns": 0,
            "jit_ms": jit_ms, "jit_cpu_ns": int(jit_ms * 1e6)}


class Driver:
    """Answers each request with the JIT time its path still compiles: `compiles[task]`
    runs of each task compile 5 ms, then none."""

    def __init__(self, compiles: dict[str, int]):
        self.compiles = dict(compiles)
        self.asked: list[tuple] = []

    def run_once(self, asked) -> CellResult:
        self.asked.append((asked.task, asked.warmups, asked.repetitions, asked.warmup_max_ms))
        left = self.compiles.get(asked.task, 0)
        self.compiles[asked.task] = max(left - 1, 0)
        return CellResult("ok", samples=[sample(0, 5 if left else 0)])


class Clock:
    def __init__(self, step_s: float):
        self.now, self.step_s = 0.0, step_s

    def __call__(self) -> float:
        self.now += self.step_s
        return self.now


def test_passes_go_on_until_a_whole_pass_is_quiet():
    cells = [cell("m", 1, task="write", prewarm_max_ms=10_000),
             cell("m", 2, task="read_seq", prewarm_max_ms=10_000)]
    driver = Driver({"write": 1, "read_seq": 3})  # the read's own path compiles longer
    warmed = prewarm(cells, driver.run_once, Clock(0.01))
    assert (warmed.passes, warmed.quiet, warmed.note) == (4, True, "")
    assert [task for task, *_ in driver.asked] == ["write", "read_seq"] * 4
    # each cell as one unmeasured repetition, with no warm-ups of its own
    assert {tuple(a[1:]) for a in driver.asked} == {(0, 1, 0)}


def test_a_quiet_pass_shorter_than_the_quiet_window_is_no_sign():
    """A JIT compiles in bursts: quiet is judged over the last 100 ms of repetitions, as many
    passes as that takes (here five of 20 ms)."""
    class Short(Driver):
        def run_once(self, asked):
            result = super().run_once(asked)
            return CellResult("ok", samples=[{**result.samples[0], "total_ns": 20_000_000}])
    warmed = prewarm([cell("m", 1, task="write", prewarm_max_ms=10_000)],
                     Short({"write": 2}).run_once, Clock(0.01))
    assert (warmed.passes, warmed.quiet) == (7, True)


def test_the_budget_ends_passes_that_still_compile_and_says_so():
    cells = [cell("m", 1, task="write", prewarm_max_ms=50)]
    warmed = prewarm(cells, Driver({"write": 100}).run_once, Clock(0.02))
    assert not warmed.quiet and warmed.passes == 3
    assert "the JIT compiled for 5 ms" in warmed.note
    assert warmed.counters()["quiet"] is False


def test_a_failed_cell_ends_the_warm_up_unquiet():
    def run_once(asked):
        return CellResult("failed", "crash", "died")
    warmed = prewarm([cell("m", 1, task="write", prewarm_max_ms=1000)], run_once, Clock(0.01))
    assert (warmed.passes, warmed.quiet, warmed.note) == (0, False, "ended by write: failed")


def test_one_cell_per_code_path_is_run_each_pass():
    cells = [cell("m", 1, task="read_seq", n=5, prewarm_max_ms=1000),
             cell("m", 2, task="read_seq", n=500, prewarm_max_ms=1000),  # the same code
             cell("m", 3, task="read_par", threads=1, prewarm_max_ms=1000),
             cell("m", 4, task="read_par", threads=2, prewarm_max_ms=1000),
             cell("raw", 5, task="write", variant="kryo", prewarm_max_ms=1000),
             cell("raw", 6, task="write", variant="bson", prewarm_max_ms=1000)]  # the same
    driver = Driver({})
    prewarm(cells, driver.run_once, Clock(0.01))
    assert [task for task, *_ in driver.asked] == ["read_seq", "read_par", "read_par", "write"]


def test_only_cells_of_the_process_itself_are_warmed():
    kept = cell("m", 1, task="read_seq", prewarm_max_ms=300)
    assert warmable(kept)
    assert not warmable(cell("m", 2, task="micro", forks=2))  # fresh processes of its own
    assert not warmable(cell("m", 3, task="sizes"))  # measured by the harness
    assert not warmable(cell("m", 4, task="net_fetch"))  # its nodes are new each round
    assert budget_ms([kept, cell("m", 5, task="sizes", prewarm_max_ms=9000)]) == 300
    assert prewarm([kept], Driver({}).run_once) is not None
    assert prewarm([replace(kept, prewarm_max_ms=0)], Driver({}).run_once) is None
    assert unmeasured(kept).repetitions == 1


def measured_jit(samples: list[dict]) -> list[float]:
    return [json.loads(s["extra"] or "{}").get("jit_ms", 0) for s in samples if not s["warmup"]]


def test_a_warmed_process_measures_no_compiling_path(home, monkeypatch):  # noqa: F811
    """The fake JIT compiles each path (task, depth) during its first three repetitions in a
    process: a warm-up that skipped any path the group measures would leave it compiling in
    its measured samples, and this test would see it."""
    use(monkeypatch, home, language="java", jit=3)
    _, _, cells, samples = run(home, PLAN.format(budget=60_000))
    timed = [c for c in cells if c["task"] != "sizes"]
    assert timed and all(c["status"] == "ok" for c in cells)
    assert set(measured_jit(samples)) == {0}
    assert not any(c["steady"] is False and "JIT" in c["steady_note"] for c in timed)
    warmed = [json.loads(c["counters"])["prewarm"] for c in timed]
    assert all(w["quiet"] and w["passes"] > 3 for w in warmed), warmed


def test_without_the_warm_up_the_same_cells_compile_while_measured(home, monkeypatch):  # noqa: F811
    use(monkeypatch, home, language="java", jit=3)
    _, _, cells, samples = run(home, PLAN.format(budget=0))
    assert max(measured_jit(samples)) == 5
    assert not any("prewarm" in json.loads(c["counters"] or "{}") for c in cells)
