"""The tasks beyond write and reads, run end to end with the fake driver: their requests,
expectations (set and sequence checksums, distinct counts) and the checks of their results."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from serbench.models.checksum import hex64, object_hash, sequence_checksum
from serbench.models.order import sorted_distinct
from serbench.plan import RAW
from serbench.drivers.answers import BadAnswer, checked_samples
from serbench.datasets.expectations import dataset_hashes, read_ids, read_seq_start
from serbench.run.runner import Runner
from test_runner import by_status, home, requests, run, use  # noqa: F401 (home is a fixture)

PLAN = """
name = "tasks"
[params]
rounds_max = 1
n = [5, 100]
warmups = 1
repetitions = 2
timeout_s = 30
threads = [1, 3]
budget_bytes = [8192]
page_size = 2048
iterations = 2
sweep_k = [3, 20]
[[group]]
tasks = ["read_par", "sort_dedup", "memory", "micro", "sizes"]
models = ["trade", "part"]
"""


def cells_by(cells: list[dict], **match) -> list[dict]:
    return [c for c in cells if all(c[k] == v for k, v in match.items())]


def test_every_new_task_runs_ok_with_its_own_fields(home, monkeypatch):
    use(monkeypatch, home)
    _, run_row, cells, samples = run(home, PLAN)
    assert run_row["status"] == "complete"
    assert {c["status"] for c in cells} == {"ok"}, by_status(cells).get("failed")
    assert {c["task"] for c in cells} == {"read_par", "sort_dedup", "memory", "micro", "sizes"}
    par = cells_by(cells, task="read_par", method="fakejson", threads=3)
    assert {c["setting"] for c in par} == {"mode=seq", "mode=rand"}
    extras = [json.loads(s["extra"]) for s in samples
              if s["cell_id"] == par[0]["cell_id"]]
    assert all(len(e["thread_ns"]) == 3 for e in extras)
    assert cells_by(cells, task="read_par", method=RAW), "the raw floor runs beside read_par"


def test_read_par_expects_the_selection_of_read_seq_and_read_rand(home, monkeypatch):
    use(monkeypatch, home)
    _, _, cells, _ = run(home, PLAN)
    hashes = dataset_hashes(home / "data" / "default", "part")
    for cell in cells_by(cells, task="read_par", model="part", method="fakejson", n=5):
        params = json.loads(cell["params"])
        assert params["threads"] == cell["threads"] and params["mode"] in cell["setting"]
        if params["mode"] == "seq":
            assert params["start"] == read_seq_start(42, "part", 16, 5)
            chosen = range(params["start"], params["start"] + 5)
        else:
            chosen = read_ids(Path(params["ids"]))
        assert cell["expected_sum"] == hex64(sum(hashes[i] for i in chosen) & (2**64 - 1))


def test_sort_dedup_expects_the_distinct_objects_in_total_order(home, monkeypatch):
    use(monkeypatch, home)
    _, _, cells, _ = run(home, PLAN)
    sort = cells_by(cells, task="sort_dedup", model="part")
    assert len(sort) == 1 and sort[0]["setting"] == "budget_bytes=8192"
    lines = (home / "data" / "default" / "part.jsonl").read_text().splitlines()
    # worked out without the harness's order: duplicates are the same line, and distinct
    # parts differ in partkey, part's first key field (docs/models.md)
    distinct = sorted((json.loads(line) for line in set(lines)), key=lambda p: p["partkey"])
    assert len({p["partkey"] for p in distinct}) == len(distinct) < len(lines)
    assert distinct == sorted_distinct("part", [json.loads(line) for line in lines])
    assert sort[0]["expected_count"] == len(distinct)
    assert sort[0]["expected_sum"] == hex64(
        sequence_checksum(object_hash("part", o) for o in distinct))
    assert json.loads(sort[0]["counters"])["input_objects"] == len(lines)
    params = json.loads(sort[0]["params"])
    assert params["budget_bytes"] == 8192 and not Path(params["output"]).exists()


def test_micro_sweeps_arrays_over_k_and_memory_reads_the_first_objects(home, monkeypatch):
    use(monkeypatch, home)
    text = PLAN.replace('models = ["trade", "part"]', 'models = ["arrays", "trade"]')
    from fake_driver import make_dataset
    make_dataset(home / "data" / "default", models=("arrays",))
    _, _, cells, _ = run(home, text)
    assert {c["status"] for c in cells} == {"ok"}
    sweep = cells_by(cells, task="micro", model="arrays", method="fakejson", depth="access")
    assert {c["setting"] for c in sweep} == {f"buffer={b} k={k}" for b in ("fresh", "reused")
                                             for k in (3, 20)}
    k20 = next(c for c in sweep if c["setting"].endswith("k=20") and c["n"] == 5)
    source = Path(json.loads(k20["params"])["input"])
    assert json.loads(source.read_text().splitlines()[0])["ints"] == [0] * 20
    memory = cells_by(cells, task="memory", model="trade", n=5)[0]
    hashes = dataset_hashes(home / "data" / "default", "trade")
    assert memory["expected_sum"] == hex64(sum(hashes[:5]) & (2**64 - 1))


def test_sizes_are_measured_by_the_harness(home, monkeypatch):
    use(monkeypatch, home)
    _, _, cells, _ = run(home, PLAN)
    sizes = cells_by(cells, task="sizes", model="trade")[0]
    counters = json.loads(sizes["counters"])
    assert counters["objects"] == 8 == sizes["n"]
    assert 0 < counters["avg_object_bytes"] <= counters["max_object_bytes"]
    assert 0 < counters["gzip_bytes"] < counters["data_bytes"]
    assert 0 < counters["zstd_bytes"] < counters["data_bytes"]
    # the one file its info lists, counted here independently: its non-blank lines
    listed = Path(__file__).with_name("fake_driver.py")
    assert counters["loc"] == sum(1 for line in listed.read_text().splitlines() if line.strip())
    assert counters["loc_files"] == ["tests/fake_driver.py"] and counters["generated_files"] == []
    assert counters["library_bytes"] == 40960  # the jars the fake driver's info lists


def test_a_wrong_sort_checksum_is_invalid_and_never_plotted(home, monkeypatch):
    use(monkeypatch, home, mode="bad_checksum", on="op=run,task=sort_dedup")
    _, _, cells, samples = run(home, PLAN)
    bad = cells_by(cells, task="sort_dedup")
    assert {c["status"] for c in bad} == {"invalid"}
    assert not {s["cell_id"] for s in samples} & {c["cell_id"] for c in bad}
    assert {c["status"] for c in cells if c["task"] != "sort_dedup"} == {"ok"}


def test_missing_task_fields_are_a_driver_defect(home, monkeypatch):
    use(monkeypatch, home, mode="bare_samples", on="op=run")
    _, _, cells, _ = run(home, PLAN)
    for task in ("micro", "read_par", "sort_dedup"):
        got = {(c["status"], c["error_kind"]) for c in cells_by(cells, task=task)}
        assert got == {("failed", "garbage")}, task
    assert "no encode_ns" in cells_by(cells, task="micro")[0]["message"]
    assert {c["status"] for c in cells_by(cells, task="memory")} == {"ok"}


FORKS_PLAN = """
name = "forks"
[params]
rounds_max = 1
min_sample_ms = 0.001
n = [5]
warmups = 1
repetitions = 2
iterations = 2
forks = 3
buffers = ["reused"]
[[group]]
tasks = ["micro"]
models = ["trade"]
depths = ["materialize"]
"""


def test_micro_forks_run_in_fresh_processes_and_pool_their_samples(home, monkeypatch):
    log = use(monkeypatch, home)
    _, _, cells, samples = run(home, FORKS_PLAN)
    (cell,) = cells_by(cells, task="micro")
    assert cell["status"] == "ok"
    mine = [s for s in samples if s["cell_id"] == cell["cell_id"]]
    measured = sorted((s["rep"], json.loads(s["extra"])["fork"]) for s in mine if not s["warmup"])
    assert measured == [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2), (5, 2)]
    assert sum(s["warmup"] for s in mine) == 3
    micro_pids = {pid for pid, op, task, *_ in requests(log) if op == "run" and task == "micro"}
    assert len(micro_pids) == 3, "every fork is its own process"


def test_read_forks_run_reads_and_their_raw_floor_in_fresh_processes(home, monkeypatch):
    log = use(monkeypatch, home)
    plan = FORKS_PLAN.replace("forks = 3", "read_forks = 2").replace('"micro"', '"read_seq"')
    _, _, cells, samples = run(home, plan)
    reads = cells_by(cells, task="read_seq")
    assert {c["method"] for c in reads} >= {"fakejson", RAW}
    assert {c["status"] for c in reads} == {"ok"}
    for cell in reads:
        mine = [s for s in samples if s["cell_id"] == cell["cell_id"]]
        measured = sorted((s["rep"], json.loads(s["extra"])["fork"])
                          for s in mine if not s["warmup"])
        assert measured == [(0, 0), (1, 0), (2, 1), (3, 1)], cell["method"]
    pids = {(method, pid) for pid, op, task, method, *_ in requests(log)
            if op == "run" and task == "read_seq"}
    methods = {method for method, _ in pids}
    assert len(pids) == 2 * len(methods), "every fork of every read cell is its own process"


FLOOR_PLAN = """
name = "floor"
[params]
rounds_max = 1
min_sample_ms = 0.001
n = [5]
warmups = 2
repetitions = 5
floor_rounds = 2
[[group]]
tasks = ["read_seq"]
models = ["part"]
methods = ["fakejson"]
depths = ["access"]
"""


def test_floor_rounds_alternate_a_read_with_the_raw_read_of_its_file(home, monkeypatch):
    log = use(monkeypatch, home)
    _, _, cells, samples = run(home, FLOOR_PLAN)
    (read,) = cells_by(cells, task="read_seq", method="fakejson")
    assert read["status"] == "ok", read["message"]
    mine = [s for s in samples if s["cell_id"] == read["cell_id"]]
    assert sorted(s["rep"] for s in mine if s["warmup"]) == [0, 1, 2], "2, then 1 per round"
    measured = [s for s in mine if not s["warmup"]]
    assert sorted(s["rep"] for s in measured) == list(range(10)), "5 a round, 2 rounds"
    assert sorted({s["round"] for s in map(lambda s: json.loads(s["extra"]), measured)}) == [0, 1]
    assert all(json.loads(s["extra"])["floor_ns"] > 0 for s in measured)
    assert json.loads(read["params"])["floor_rounds"] == 2
    runs = [(pid, method) for pid, op, task, method, *_ in requests(log)
            if op == "run" and task == "read_seq"]
    reads = [i for i, (_, method) in enumerate(runs) if method == "fakejson"]
    assert len(reads) == 2
    for i in reads:  # each round of the read is followed by its floor, in the same process
        assert runs[i + 1] == (runs[i][0], RAW), "a read and its floor share one process"
    (floor,) = cells_by(cells, task="read_seq", method=RAW)
    assert floor["status"] == "ok" and not any(
        "floor_ns" in (s["extra"] or "") for s in samples if s["cell_id"] == floor["cell_id"])


def test_a_floor_that_reads_other_bytes_in_a_later_round_makes_the_read_invalid(
        home, monkeypatch):
    use(monkeypatch, home, mode="bad_checksum", on=f"op=run,method={RAW}", after=1)
    _, _, cells, samples = run(home, FLOOR_PLAN)
    (read,) = cells_by(cells, task="read_seq", method="fakejson")
    assert read["status"] == "invalid"
    assert read["message"].startswith("round 2: the raw floor of the same file: ")
    assert not [s for s in samples if s["cell_id"] == read["cell_id"]]


def test_warm_ups_filling_warmup_ms_are_accepted_and_numbered_on_across_forks(
        home, monkeypatch):
    use(monkeypatch, home)
    plan = FORKS_PLAN.replace("forks = 3", "forks = 2\nwarmup_ms = 40")
    _, _, cells, samples = run(home, plan)
    (cell,) = cells_by(cells, task="micro")
    assert cell["status"] == "ok", cell["message"]
    mine = [s for s in samples if s["cell_id"] == cell["cell_id"]]
    warm = sorted((s["rep"], json.loads(s["extra"])["fork"]) for s in mine if s["warmup"])
    assert len(warm) > 2, "warm-ups beyond the one asked per fork fill the 40 ms"
    assert [rep for rep, _ in warm] == list(range(len(warm)))
    assert [fork for _, fork in warm] == sorted(fork for _, fork in warm)
    assert sorted(s["rep"] for s in mine if not s["warmup"]) == [0, 1, 2, 3]
    assert json.loads(cell["params"])["warmup_ms"] == 40


def test_warmup_max_ms_reaches_the_driver_only_when_set(home, monkeypatch):
    """A JIT's open-ended warm-up: sent when the plan sets it, and then more warm-ups than
    asked are accepted; absent otherwise, so other requests stay as they were."""
    use(monkeypatch, home)
    _, _, cells, _ = run(home, FORKS_PLAN.replace("forks = 3", "forks = 1\nwarmup_max_ms = 300"))
    (cell,) = cells_by(cells, task="micro")
    assert cell["status"] == "ok" and json.loads(cell["params"])["warmup_max_ms"] == 300
    _, _, cells, _ = run(home, FORKS_PLAN.replace("forks = 3", "forks = 1"))
    (cell,) = cells_by(cells, task="micro")
    assert "warmup_max_ms" not in json.loads(cell["params"])


def test_fewer_warm_ups_than_asked_are_a_driver_defect_even_with_warmup_ms():
    sample = {"total_ns": 1, "cpu_ns": 1, "io_ns": 0}
    result = {"samples": [{"rep": 0, "warmup": True, **sample},
                          {"rep": 0, "warmup": False, **sample}]}
    assert len(checked_samples(result, 1, 1, open_ended=True)) == 2
    with pytest.raises(BadAnswer, match="at least 2 and 1 asked"):
        checked_samples(result, 2, 1, open_ended=True)
    with pytest.raises(BadAnswer, match="0 and 1 asked"):
        checked_samples(result, 0, 1)


@pytest.mark.parametrize("summary", [[], {"repetitions": 3, "total_ns": 10},
                                     {"repetitions": -1, "total_ns": 1, "jit_ms": 0},
                                     {"repetitions": 1, "total_ns": 1.5, "jit_ms": 0}])
def test_a_malformed_jit_warm_up_summary_is_a_driver_defect(summary):
    from serbench.drivers.answers import checked_jit_warmup
    good = {"repetitions": 3, "total_ns": 10, "jit_ms": 0}
    assert checked_jit_warmup(good) == good
    with pytest.raises(BadAnswer, match="malformed jit_warmup"):
        checked_jit_warmup(summary)


def test_a_failing_fork_fails_the_cell_and_keeps_no_samples(home, monkeypatch):
    use(monkeypatch, home)
    started = []
    new_driver = Runner.new_driver

    def second_misbehaves(self, language, cell):
        started.append(cell.task)
        if len(started) == 3:  # the second fork (the first process is the group's)
            monkeypatch.setenv("FAKE_DRIVER_MODE", "bad_checksum")
        return new_driver(self, language, cell)

    monkeypatch.setattr(Runner, "new_driver", second_misbehaves)
    _, _, cells, samples = run(home, FORKS_PLAN)
    (cell,) = cells_by(cells, task="micro")
    assert cell["status"] == "invalid" and cell["message"].startswith("round 2: ")
    assert not [s for s in samples if s["cell_id"] == cell["cell_id"]]
