"""The runner end to end with the fake driver, the expectations it computes, verify and CLI."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from array import array
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import require
from fake_driver import fold, install, make_dataset, object_hash
from test_rounds import cell
from serbench.drivers import process as driver_module
from serbench.datasets import expectations
from serbench.tasks import TASK_ORDER, TASKS
from serbench.tasks import write as write_task
from serbench import provenance
from serbench.models.checksum import hex64
from serbench.cli import cli
from serbench.datasets.manifest import DatasetError, data_path
from serbench.drivers.process import LANGUAGES, env_var, find_drivers
from serbench.plan import RAW, parse_plan
from serbench.report import render_run
from serbench.results import CellResult, Results, ResultsError
from serbench.datasets.expectations import (RunError, dataset_hashes, ids_file, read_ids, read_seq_start,
                                       verify_sample)
from serbench.run.runner import Group, Listener, Runner, driver_infos, run_plan
from serbench.run.verify import verify

PLAN = """
name = "t"
[params]
rounds_max = 1
n = [5, 100]
warmups = 1
repetitions = 2
timeout_s = 20
[[group]]
tasks = ["write", "read_seq", "read_rand"]
models = ["trade", "part"]
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    return make_home(tmp_path, monkeypatch)


def make_home(tmp_path: Path, monkeypatch) -> Path:
    """A private SERBENCH_HOME with a small default dataset and no real drivers visible."""
    home = tmp_path / "home"
    monkeypatch.setenv("SERBENCH_HOME", str(home))
    monkeypatch.setenv("SERBENCH_DATAGEN", str(tmp_path / "no-datagen"))
    monkeypatch.setattr(driver_module, "BUILD_PATHS", {l: tmp_path / "none" for l in LANGUAGES})
    monkeypatch.setattr(provenance, "toolchains", lambda: {"python": "probed elsewhere"})
    for language in LANGUAGES:
        monkeypatch.delenv(env_var(language), raising=False)
    make_dataset(home / "data" / "default")
    return home


def use(monkeypatch, home: Path, language: str = "rust", **settings) -> Path:
    log = home / f"{language}.log"
    path = install(home / "bin", language, log=log, **settings)
    monkeypatch.setenv(env_var(language), str(path))
    return log


def run(home: Path, text: str = PLAN, listener: Listener | None = None, **kwargs):
    with Results(home / "results.duckdb") as results:
        run_id = run_plan(parse_plan(text, "t.toml", "t"), results, listener=listener, **kwargs)
        return run_id, results.run(run_id), results.cells(run_id), results.samples(run_id)


def by_status(cells: list[dict]) -> dict[str, list[dict]]:
    grouped = defaultdict(list)
    for cell in cells:
        grouped[cell["status"]].append(cell)
    return grouped


def requests(log: Path) -> list[list[str]]:
    return [line.split() for line in log.read_text().splitlines()]


def test_run_end_to_end(home, monkeypatch):
    log = use(monkeypatch, home)
    run_id, run_row, cells, samples = run(home)
    assert run_row["status"] == "complete"
    # per model: 1 write + 2 depths x 2 reads x 2 n + raw 2 reads x 2 n
    assert len(cells) == 2 * (1 + 8 + 4)
    assert {c["status"] for c in cells} == {"ok"}
    assert len(samples) == 3 * len(cells)
    assert {c["n"] for c in cells if c["model"] == "trade" and c["task"] != "write"} == {5, 8}
    assert all(c["expected_sum"] == c["got_sum"] for c in cells if c["method"] != RAW)
    raw = [c for c in cells if c["method"] == RAW]
    assert {c["variant"] for c in raw} == {"fakejson"} and {c["depth"] for c in raw} == {""}
    assert all(c["expected_sum"] == c["got_sum"] for c in raw)
    drivers = json.loads(run_row["drivers"])
    assert "fakejson" in drivers["rust"]["info"]["methods"]
    assert json.loads(run_row["host"])["logical_cores"] >= 1
    assert not (home / "runs" / run_id).exists(), "paged files are removed after the run"
    # one fresh process per language x method x model; verification precedes the timing
    pids = defaultdict(set)
    for pid, op, task, method, model, _ in requests(log):
        pids[(method if op != "load" else "", model)].add(pid)
    assert all(len(p) == 1 for p in pids.values())
    assert len({p for ps in pids.values() for p in ps}) == 4  # fakejson and raw, two models
    ops = [r[1] for r in requests(log) if r[3] == "fakejson" and r[4] == "trade"]
    assert ops[:2] == ["roundtrip", "roundtrip"] and ops[2] == "run" and "scan" in ops


def test_expected_checksums_come_from_the_dataset(home, monkeypatch):
    use(monkeypatch, home)
    _, _, cells, _ = run(home)
    hashes = dataset_hashes(home / "data" / "default", "part")
    seq = next(c for c in cells if c["model"] == "part" and c["task"] == "read_seq"
               and c["n"] == 5 and c["method"] == "fakejson")
    start = json.loads(seq["params"])["start"]
    assert start == read_seq_start(42, "part", 16, 5)
    assert seq["expected_sum"] == hex64(sum(hashes[start:start + 5]) & (2**64 - 1))
    rand = next(c for c in cells if c["model"] == "part" and c["task"] == "read_rand"
                and c["n"] == 5 and c["method"] == "fakejson")
    ids = read_ids(Path(json.loads(rand["params"])["ids"]))
    assert rand["expected_sum"] == hex64(sum(hashes[i] for i in ids) & (2**64 - 1))


def test_wrong_checksum_is_invalid_and_keeps_no_samples(home, monkeypatch):
    use(monkeypatch, home, mode="bad_checksum", on="op=run,task=read_seq")
    _, run_row, cells, samples = run(home)
    assert run_row["status"] == "complete"
    invalid = by_status(cells)["invalid"]
    assert {c["task"] for c in invalid} == {"read_seq"}
    assert all(c["error_kind"] == "checksum_mismatch" and "differs" in c["message"]
               for c in invalid)
    assert not {s["cell_id"] for s in samples} & {c["cell_id"] for c in invalid}


def test_malformed_samples_fail_the_cell(home, monkeypatch):
    use(monkeypatch, home, mode="bad_samples", on="op=run,task=read_rand")
    _, _, cells, samples = run(home, PLAN.replace('["trade", "part"]', '["trade"]'))
    failed = by_status(cells)["failed"]
    assert {c["task"] for c in failed} == {"read_rand"}
    assert all(c["error_kind"] == "garbage" and "0 warm-ups and 2 repetitions" in c["message"]
               for c in failed)
    assert not {s["cell_id"] for s in samples} & {c["cell_id"] for c in failed}


def filesystem(path: Path) -> str:
    """The type of the filesystem holding `path` (the longest mount point above it)."""
    mounts = [line.split()[1:3] for line in Path("/proc/mounts").read_text().splitlines()]
    return max(((point, kind) for point, kind in mounts
                if path.resolve().is_relative_to(point)), key=lambda m: len(m[0]))[1]


COLD_PLAN = PLAN.replace('["trade", "part"]', '["trade"]').replace("[5, 100]", "[5]")


def cached_after_eviction(cells: list[dict]) -> set:
    return {json.loads(c["counters"])["cached_after_eviction"] for c in cells
            if c["task"] != "write"}


def test_cold_reads_of_a_disk_file_find_nothing_cached(home, monkeypatch):
    """The writer fsyncs, so eviction drops every page; the figure is mincore's, not assumed."""
    require(filesystem(home) != "tmpfs", "the test's directory is on tmpfs")
    use(monkeypatch, home)
    run_id, _, cells, _ = run(home, COLD_PLAN)
    assert {c["status"] for c in cells} == {"ok"}
    assert cached_after_eviction(cells) == {0.0}
    _, markdown = render_run(home / "results.duckdb", run_id, home / "report")
    text = markdown.read_text()
    assert "not cold" not in text and "cold unproven" not in text
    assert "all 6 cold cells were cold (at most 1% of their files' pages cached" in text


def test_cold_reads_on_tmpfs_are_labelled_not_cold(tmp_path, monkeypatch):
    """tmpfs keeps its pages whatever posix_fadvise says: every such read is labelled."""
    shm = Path("/dev/shm")
    require(shm.is_dir() and filesystem(shm) == "tmpfs", "no tmpfs at /dev/shm")
    home = Path(tempfile.mkdtemp(dir=shm)) / "home"
    try:
        monkeypatch.setenv("SERBENCH_HOME", str(home))
        monkeypatch.setattr(driver_module, "BUILD_PATHS",
                            {l: tmp_path / "none" for l in LANGUAGES})
        make_dataset(home / "data" / "default")
        use(monkeypatch, home)
        run_id, _, cells, _ = run(home, COLD_PLAN)
        assert {c["status"] for c in cells} == {"ok"}
        assert cached_after_eviction(cells) == {1.0}
        _, markdown = render_run(home / "results.duckdb", run_id, home / "report")
        text = markdown.read_text()
        assert "rust · fakejson · materialize · not cold" in text  # series labels
        assert "ok · not cold (100% cached after eviction)" in text  # status columns
        assert "6 cold cells not shown to be cold" in text  # summary
        assert "fadvise_dontneed (6 cells, 6 not shown to be cold)" in text  # provenance
    finally:
        shutil.rmtree(home.parent)


def test_a_malformed_residency_figure_fails_the_cell(home, monkeypatch):
    use(monkeypatch, home, mode="bad_residency", on="op=run,task=read_seq")
    _, _, cells, samples = run(home, COLD_PLAN)
    failed = by_status(cells)["failed"]
    assert {c["task"] for c in failed} == {"read_seq"}
    assert all(c["error_kind"] == "garbage" and "cached_fraction 1.5" in c["message"]
               for c in failed)


def test_crash_fails_the_cell_and_a_fresh_driver_continues(home, monkeypatch):
    log = use(monkeypatch, home, mode="crash", on="op=run,task=read_rand,n=5")
    _, run_row, cells, _ = run(home)
    assert run_row["status"] == "complete"
    failed = by_status(cells)["failed"]
    assert {(c["task"], c["n"]) for c in failed} == {("read_rand", 5)}
    assert all(c["error_kind"] == "crash" and "crashing on purpose" in c["stderr"]
               for c in failed)
    after = [cells[cells.index(c) + 1] for c in failed if cells.index(c) + 1 < len(cells)]
    assert all(c["status"] == "ok" for c in after)
    runs_of_crashing_group = {r[0] for r in requests(log) if r[3] == "fakejson" and r[4] == "trade"}
    assert len(runs_of_crashing_group) == 3  # the group's process, then one after each crash


def test_hang_is_killed_after_the_timeout(home, monkeypatch):
    use(monkeypatch, home, mode="hang", on="op=run,task=read_seq,n=5,depth=access")
    _, _, cells, _ = run(home, PLAN.replace("timeout_s = 20", "timeout_s = 1"))
    failed = by_status(cells)["failed"]
    assert len(failed) == 2 and {c["error_kind"] for c in failed} == {"hang"}
    assert all("within 1 s" in c["message"] for c in failed)


def test_garbage_write_fails_the_reads_of_its_file(home, monkeypatch):
    use(monkeypatch, home, mode="garbage", on="op=run,task=write,model=trade")
    _, _, cells, _ = run(home)
    trade = [c for c in cells if c["model"] == "trade"]
    write = next(c for c in trade if c["task"] == "write")
    assert (write["status"], write["error_kind"]) == ("failed", "garbage")
    reads = [c for c in trade if c["task"] != "write"]
    assert {c["status"] for c in reads} == {"failed"}
    assert all(c["error_kind"] == "no_input" and f"write cell {write['cell_id']}" in c["message"]
               for c in reads)
    assert {c["status"] for c in cells if c["model"] == "part"} == {"ok"}


@pytest.mark.parametrize("mode, status, kind", [
    ("bad_checksum", "invalid", "checksum_mismatch"),  # a wrong result
    ("error", "failed", "internal"),                   # no result at all
    ("crash", "failed", "crash"),
    ("garbage", "failed", "garbage"),
])
def test_a_verification_that_fails_leaves_the_group_untimed_named_by_what_happened(
        home, monkeypatch, mode, status, kind):
    log = use(monkeypatch, home, mode=mode, on="op=roundtrip,model=part")
    _, _, cells, samples = run(home)
    part = [c for c in cells if c["model"] == "part" and c["method"] == "fakejson"]
    assert {(c["status"], c["error_kind"]) for c in part} == {(status, kind)}
    assert all("verification" in c["message"] for c in part)
    assert not {s["cell_id"] for s in samples} & {c["cell_id"] for c in part}
    timed = [r for r in requests(log) if r[1] == "run" and r[3] == "fakejson" and r[4] == "part"]
    assert timed == []


def test_every_variant_is_verified_before_it_is_timed_and_fails_alone(home, monkeypatch):
    log = use(monkeypatch, home, variants="lazy", mode="bad_checksum",
              on="op=roundtrip,variant=lazy")
    _, _, cells, samples = run(home, PLAN.replace('["trade", "part"]', '["trade"]'))
    lazy = [c for c in cells if c["variant"] == "lazy"]
    plain = [c for c in cells if c["variant"] == "" and c["method"] == "fakejson"]
    assert lazy and {(c["status"], c["error_kind"]) for c in lazy} == {
        ("invalid", "checksum_mismatch")}
    assert all("variant lazy" in c["message"] for c in lazy)
    assert plain and {c["status"] for c in plain} == {"ok"}
    verified = {(r[1], r[5]) for r in requests(log) if r[1] == "roundtrip"}
    assert ("roundtrip", "lazy") in verified
    assert not {s["cell_id"] for s in samples} & {c["cell_id"] for c in lazy}


def test_the_verification_sample_is_the_datasets_first_objects_with_their_own_checksum(
        home, tmp_path, monkeypatch):
    directory = home / "data" / "default"
    whole = verify_sample(directory, "part", dataset_hashes(directory, "part"),
                          tmp_path / "whole.jsonl")
    lines = data_path(directory, "trade").read_bytes().splitlines(keepends=True)
    monkeypatch.setattr(expectations, "VERIFY_SAMPLE_BYTES",
                        len(lines[0]) + len(lines[1]) + len(lines[2]) // 2)
    sample = verify_sample(directory, "trade", dataset_hashes(directory, "trade"),
                           tmp_path / "sample.jsonl")
    assert sample.path.read_bytes() == lines[0] + lines[1]
    assert sample.checksum == fold(object_hash("trade", json.loads(line)) for line in lines[:2])
    assert whole.path == data_path(directory, "part")  # no larger than the limit: as it is


def test_groups_are_verified_on_the_sample_and_timed_on_the_whole_dataset(home, monkeypatch):
    use(monkeypatch, home)
    monkeypatch.setattr(expectations, "VERIFY_SAMPLE_BYTES", 300)
    _, _, cells, _ = run(home)
    assert cells and {c["status"] for c in cells} == {"ok"}  # the sample's checksum matched
    writes = [c for c in cells if c["task"] == "write"]
    assert {c["expected_count"] for c in writes} == {
        len(data_path(home / "data" / "default", m).read_bytes().splitlines())
        for m in ("trade", "part")}


WRITE_PLAN = PLAN.replace('["write", "read_seq", "read_rand"]', '["write"]')


def test_a_write_is_scanned_once_while_its_rounds_write_the_same_bytes(home, monkeypatch):
    log = use(monkeypatch, home)
    plan = WRITE_PLAN.replace("rounds_max = 1", "rounds_min = 3\nrounds_max = 3")
    _, _, cells, samples = run(home, plan)
    assert {c["status"] for c in cells} == {"ok"}
    rounds = {json.loads(s["extra"])["round"] for s in samples}
    assert rounds == {0, 1, 2}
    scans = [r for r in requests(log) if r[1] == "scan"]
    assert len(scans) == len(cells), "one scan per write cell, not per round"


def test_a_write_whose_later_round_writes_other_bytes_is_scanned_again(home, monkeypatch):
    log = use(monkeypatch, home, mode="bad_checksum", on="op=scan", after=1)  # per process
    plan = WRITE_PLAN.replace("rounds_max = 1", "rounds_min = 2\nrounds_max = 2")
    real_digest = write_task.file_digest
    calls = []

    def changing(path):  # every file looks new: each round's must be scanned
        calls.append(path)
        return real_digest(path) + bytes([len(calls) % 256])

    monkeypatch.setattr(write_task, "file_digest", changing)
    _, _, cells, _ = run(home, plan)
    scans = [r for r in requests(log) if r[1] == "scan"]
    assert len(scans) == 2 * len(cells)
    assert {c["status"] for c in cells} == {"invalid"}, "the later rounds' scans were wrong"


def test_the_write_floor_writes_each_methods_file_again_beside_its_write(home, monkeypatch):
    log = use(monkeypatch, home, floors="write")
    run_id, _, cells, samples = run(home, WRITE_PLAN)
    floors = [c for c in cells if c["method"] == RAW]
    assert {(c["task"], c["model"], c["variant"], c["status"]) for c in floors} == {
        ("write", "trade", "fakejson", "ok"), ("write", "part", "fakejson", "ok")}
    writes = {c["model"]: c for c in cells if c["method"] == "fakejson"}
    for floor in floors:
        assert floor["expected_count"] == writes[floor["model"]]["expected_count"]
        assert floor["got_sum"] == floor["expected_sum"] != writes[floor["model"]]["got_sum"]
        assert len([s for s in samples if s["cell_id"] == floor["cell_id"]]) == 3  # 1 + 2
    ops = [(r[1], r[3]) for r in requests(log) if r[4] == "trade"]
    assert ops.index(("run", "raw")) > ops.index(("run", "fakejson"))  # after the write
    _, markdown = render_run(home / "results.duckdb", run_id, home / "report")
    text = markdown.read_text()
    assert "the fastest write floor" in text and "what encoding adds" in text


class DamageBeforeFloor(Listener):
    """Truncates the method's file just before its write floor copies it."""

    def __init__(self, home: Path):
        self.home = home

    def start(self, cell) -> None:
        if cell.task == "write" and cell.method == RAW:
            for pages in (self.home / "runs").rglob("fakejson/*.pages"):
                os.truncate(pages, pages.stat().st_size // 2)


def test_a_write_floor_whose_file_is_damaged_has_no_input(home, monkeypatch):
    use(monkeypatch, home, floors="write")
    _, _, cells, _ = run(home, WRITE_PLAN, listener=DamageBeforeFloor(home))
    floors = [c for c in cells if c["method"] == RAW]
    assert floors and {(c["status"], c["error_kind"]) for c in floors} == {
        ("failed", "no_input")}
    assert all(c["message"].startswith("the file to copy: ") and ".pages" in c["message"]
               for c in floors)


def test_a_write_floor_whose_file_differs_from_the_methods_is_invalid(home, monkeypatch):
    use(monkeypatch, home, floors="write", mode="bad_copy")
    _, _, cells, _ = run(home, WRITE_PLAN)
    floors = [c for c in cells if c["method"] == RAW]
    assert floors and {(c["status"], c["error_kind"]) for c in floors} == {
        ("invalid", "checksum_mismatch")}
    assert all("differs from" in c["message"] for c in floors)
    assert {c["status"] for c in cells if c["method"] != RAW} == {"ok"}


def test_a_write_in_floor_rounds_carries_its_floor_beside_every_sample(home, monkeypatch):
    use(monkeypatch, home, floors="write")
    run_id, _, cells, samples = run(home, WRITE_PLAN.replace(
        "repetitions = 2", "repetitions = 2\nfloor_rounds = 2\nmin_sample_ms = 0.001"))
    writes = [c for c in cells if c["method"] == "fakejson"]
    assert writes and {c["status"] for c in cells} == {"ok"}
    for write in writes:
        mine = [s for s in samples if s["cell_id"] == write["cell_id"] and not s["warmup"]]
        assert [s["rep"] for s in mine] == [0, 1, 2, 3], "2 rounds of 2"
        assert all(json.loads(s["extra"])["floor_ns"] > 0 for s in mine)
        assert json.loads(write["params"])["floor_rounds"] == 2
    copies = list((home / "runs").rglob("raw.fakejson/*.pages"))
    assert copies == []  # the paired floor's copies are deleted
    _, markdown = render_run(home / "results.duckdb", run_id, home / "report")
    assert "paired" in markdown.read_text()


def test_a_paired_write_whose_floor_copy_differs_is_invalid(home, monkeypatch):
    use(monkeypatch, home, floors="write", mode="bad_copy")
    _, _, cells, _ = run(home, WRITE_PLAN.replace("repetitions = 2", "floor_rounds = 2"))
    writes = [c for c in cells if c["method"] == "fakejson"]
    assert writes and {(c["status"], c["error_kind"]) for c in writes} == {
        ("invalid", "checksum_mismatch")}
    assert all("differs from" in c["message"] for c in writes)


SORT_PLAN = PLAN.replace('["write", "read_seq", "read_rand"]', '["sort_dedup"]').replace(
    '["trade", "part"]', '["part"]')


def test_the_sort_floor_moves_every_object_of_each_methods_file(home, monkeypatch):
    use(monkeypatch, home, floors="write,sort_dedup")
    run_id, _, cells, samples = run(home, SORT_PLAN)
    floor = [c for c in cells if c["method"] == RAW]
    sort = [c for c in cells if c["method"] == "fakejson"]
    assert [(c["task"], c["variant"], c["status"]) for c in floor] == [
        ("sort_dedup", "fakejson", "ok")]
    manifest_count = len(data_path(home / "data" / "default", "part").read_bytes().splitlines())
    assert floor[0]["got_count"] == floor[0]["expected_count"] == manifest_count
    assert sort[0]["got_count"] < manifest_count  # the sort drops duplicates, the floor none
    mine = [s for s in samples if s["cell_id"] == floor[0]["cell_id"] and not s["warmup"]]
    assert mine and all("phase1_ns" in json.loads(s["extra"]) for s in mine)
    _, markdown = render_run(home / "results.duckdb", run_id, home / "report")
    text = markdown.read_text()
    assert "raw floor · fakejson" in text and "what decoding, ordering" in text
    assert re.search(r"\(\d+\.\dx\)", text)  # a phase over its floor's


def test_a_sort_floor_whose_output_lacks_an_object_is_invalid(home, monkeypatch):
    use(monkeypatch, home, floors="write,sort_dedup", mode="bad_sort_floor")
    _, _, cells, _ = run(home, SORT_PLAN)
    floor = [c for c in cells if c["method"] == RAW]
    assert [(c["status"], c["error_kind"]) for c in floor] == [("invalid", "checksum_mismatch")]
    assert "the floor's output" in floor[0]["message"]
    assert {c["status"] for c in cells if c["method"] != RAW} == {"ok"}


def test_driver_unsupported_answers_are_unsupported(home, monkeypatch):
    use(monkeypatch, home, mode="unsupported", on="op=run,task=read_rand")
    _, _, cells, _ = run(home)
    unsupported = by_status(cells)["unsupported"]
    assert unsupported and {c["task"] for c in unsupported} == {"read_rand"}
    assert all(c["message"] == "fake does not do this" for c in unsupported)


def test_reads_without_a_write_cell_encode_their_file(home, monkeypatch):
    log = use(monkeypatch, home)
    _, _, cells, _ = run(home, PLAN.replace('["write", "read_seq", "read_rand"]', '["read_seq"]'))
    assert cells and {c["status"] for c in cells} == {"ok"}
    assert "encode" in {r[1] for r in requests(log)}


def test_the_raw_floor_is_checked_against_the_harness_reading_of_the_file(home, monkeypatch):
    """Every language's floor is checked against the harness's own computation from the file,
    so a wrong floor is invalid even when it is the only driver; nobody's answer is trusted."""
    use(monkeypatch, home, "rust")
    use(monkeypatch, home, "cpp", mode="bad_checksum", on=f"op=run,method={RAW}")
    _, _, cells, _ = run(home)
    raw = {c["language"]: c for c in cells if c["method"] == RAW}
    assert raw["rust"]["status"] == "ok"
    assert raw["rust"]["expected_sum"] == raw["rust"]["got_sum"]
    assert raw["cpp"]["status"] == "invalid"
    assert "checksum" in raw["cpp"]["message"]
    assert raw["cpp"]["expected_sum"] == raw["rust"]["expected_sum"] != raw["cpp"]["got_sum"]


class StopAfter(Listener):
    def __init__(self, cells: int, error: BaseException):
        self.left, self.error = cells, error

    def done(self, cell, result):
        self.left -= 1
        if self.left == 0:
            raise self.error


@pytest.mark.parametrize("error, status", [(KeyboardInterrupt(), "interrupted"),
                                           (RuntimeError("harness bug"), "failed")])
def test_interrupted_or_failed_runs_are_not_complete(home, monkeypatch, error, status):
    use(monkeypatch, home)
    with pytest.raises(type(error)):
        run(home, listener=StopAfter(3, error), run_id="stopped")
    with Results(home / "results.duckdb", read_only=True) as results:
        assert results.run("stopped")["status"] == status
        assert len(results.cells("stopped")) == 3
        with pytest.raises(ResultsError, match=f"is {status}"):
            results.require_run("stopped")
    assert not (home / "runs" / "stopped").exists()


def test_missing_dataset_stops_before_the_run(home, monkeypatch):
    use(monkeypatch, home)
    with pytest.raises(Exception, match="no manifest"):
        run(home, PLAN.replace('["trade", "part"]', '["tweet"]'))
    with Results(home / "results.duckdb") as results:
        assert results.runs() == []


def test_dataset_hashes_cache_and_checks(home):
    directory = home / "data" / "default"
    hashes = dataset_hashes(directory, "trade")
    cache = directory / "trade.hashes"
    assert cache.stat().st_size == 8 * len(hashes) == 64
    cache.write_bytes(bytes(64))  # right length, wrong content: recomputed
    assert dataset_hashes(directory, "trade") == hashes
    manifest = directory / "trade.manifest.json"
    doc = json.loads(manifest.read_text())
    doc["set_checksum"]["sum"] = "0" * 16
    manifest.write_text(json.dumps(doc))
    cache.unlink()
    with pytest.raises(RunError, match="damaged"):
        dataset_hashes(directory, "trade")


def test_random_ids_are_seeded_shared_and_prefix_consistent(home):
    short = read_ids(ids_file("part", 1000, 10, 7))
    long = read_ids(ids_file("part", 1000, 50, 7))
    assert long[:10] == short and len(long) == 50 and max(long) < 1000
    assert read_ids(ids_file("part", 1000, 10, 8)) != short
    assert isinstance(short, array) and short.typecode == "Q"


def test_verify_matrix_with_two_languages(home, monkeypatch):
    use(monkeypatch, home, "rust")
    use(monkeypatch, home, "cpp", mode="bad_checksum", on="op=scan,model=trade")
    paths = find_drivers()
    checks = verify(paths, driver_infos(paths), home / "data" / "default", timeout_s=20)
    steps = {(c.language, c.step, c.producer, c.model, c.depth): c.status for c in checks}
    assert steps[("rust", "load", "rust", "trade", "")] == "ok"
    assert steps[("cpp", "roundtrip", "cpp", "part", "access")] == "ok"
    assert steps[("cpp", "scan", "rust", "part", "materialize")] == "ok"
    assert steps[("rust", "scan", "cpp", "trade", "access")] == "ok"
    failed = {k for k, v in steps.items() if v == "failed"}
    assert failed == {("cpp", "scan", p, "trade", d) for p in ("rust", "cpp")
                      for d in ("materialize", "access")}


def test_verify_checks_every_variant_and_every_floor_against_the_harness(home, monkeypatch):
    """A variant that breaks only its own round trip, and a floor that is wrong only in one
    driver, each fail their own check; the default variant and the other floor pass."""
    monkeypatch.setenv("FAKE_DRIVER_VARIANTS", "arena")
    use(monkeypatch, home, "rust", mode="bad_checksum", on="op=roundtrip,variant=arena")
    use(monkeypatch, home, "cpp", mode="bad_checksum", on=f"op=run,method={RAW}")
    paths = find_drivers()
    checks = verify(paths, driver_infos(paths), home / "data" / "default", timeout_s=20,
                    models=("part",))
    status = {(c.language, c.step, c.producer, c.depth, c.variant): c.status for c in checks}
    for depth in ("materialize", "access"):
        assert status[("rust", "roundtrip", "rust", depth, "")] == "ok"
        assert status[("rust", "roundtrip", "rust", depth, "arena")] == "failed"
        assert status[("cpp", "roundtrip", "cpp", depth, "arena")] == "ok"
    for producer in ("rust", "cpp"):
        assert status[("rust", "floor", producer, "", "")] == "ok"
        assert status[("cpp", "floor", producer, "", "")] == "failed"
    floor = next(c for c in checks if c.step == "floor" and c.language == "cpp")
    assert "checksum" in floor.message


def test_provenance_records_host_toolchains_and_git():
    found = provenance.collect({"rust": {"path": "x", "info": {}}})
    assert found["host"]["logical_cores"] >= 1 and found["host"]["kernel"]
    assert found["toolchains"]["python"] == sys.version.split()[0]
    assert set(found["git"]) == {"commit", "dirty"}
    assert found["drivers"] == {"rust": {"path": "x", "info": {}}}


def serbench(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from serbench.cli import main; main()", *args],
                          capture_output=True, text=True, env=os.environ.copy())


def test_cli_run_runs_export_info(home, monkeypatch, tmp_path):
    use(monkeypatch, home)
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    runner = CliRunner()
    result = runner.invoke(cli, ["run", str(plan), "--run-id", "cli-run", "--pin", "0"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1] == "cli-run"
    result = runner.invoke(cli, ["runs"])
    assert result.exit_code == 0 and "cli-run" in result.output
    out = tmp_path / "cli.csv"
    result = runner.invoke(cli, ["export", "--run", "cli-run", "--format", "csv", "--out",
                                 str(out)])
    assert result.exit_code == 0 and out.read_text().startswith("run_id,")
    result = runner.invoke(cli, ["info"])
    assert result.exit_code == 0 and "fakejson" in result.output
    result = runner.invoke(cli, ["verify"])
    assert result.exit_code == 0 and "checks passed" in result.output


def test_cli_run_without_a_terminal_prints_plain_progress_lines(home, monkeypatch, tmp_path):
    from serbench.cli.run import ProgressBar

    use(monkeypatch, home)
    monkeypatch.setattr(ProgressBar, "LOG_EVERY_S", 0.0)  # a line after every cell
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    result = CliRunner().invoke(cli, ["run", str(plan), "--run-id", "logged"])
    assert result.exit_code == 0, result.output
    lines = re.findall(r"^(\d+)/(\d+) cells, \d+ s: rust/", result.output, re.MULTILINE)
    done = [int(d) for d, _ in lines]
    assert done and done == sorted(done) and {int(t) for _, t in lines} == {done[-1]}


def test_cli_verify_without_a_terminal_prints_plain_progress_lines(home, monkeypatch):
    from serbench.cli.run import ProgressBar

    use(monkeypatch, home)
    monkeypatch.setattr(ProgressBar, "LOG_EVERY_S", 0.0)  # a line after every check
    result = CliRunner().invoke(cli, ["verify", "--no-network"])
    assert result.exit_code == 0, result.output
    counts = [int(n) for n in re.findall(r"^(\d+) checks, \d+ s: rust ", result.output,
                                         re.MULTILINE)]
    assert counts == list(range(1, len(counts) + 1)) and len(counts) > 1


def test_cli_user_errors_exit_2_without_traceback(home, monkeypatch, tmp_path):
    use(monkeypatch, home)
    bad = tmp_path / "bad.toml"
    bad.write_text('[[group]]\ntasks = ["write"]\nrepetitions = 0\n')
    proc = serbench(home, "run", str(bad))
    assert proc.returncode == 2
    assert f"{bad}: group[1].repetitions: must be an integer in [1, 1000000], got 0" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = serbench(home, "compare", "a", "b")
    assert proc.returncode == 2 and "no results yet" in proc.stderr


def test_verify_blames_a_dataset_changed_after_it_was_made_not_the_methods(home, monkeypatch):
    use(monkeypatch, home, "rust")
    paths = find_drivers()
    directory = home / "data" / "default"
    text = data_path(directory, "trade").read_text()
    # the same size (a size change is caught as soon as the manifest is read), another object
    data_path(directory, "trade").write_text(text.replace('"order_code":7,', '"order_code":8,', 1))
    with pytest.raises(DatasetError, match=r"trade.jsonl: the file no longer matches its "
                                           r"manifest \(count \d+, .*make it again"):
        verify(paths, driver_infos(paths), directory, timeout_s=20)
    data_path(directory, "trade").write_text("{not json" + " " * (len(text) - 10) + "\n")
    with pytest.raises(DatasetError, match="trade.jsonl: the dataset no longer reads as trade"):
        verify(paths, driver_infos(paths), directory, timeout_s=20)


def sitting_of(cell: dict) -> int:
    return json.loads(cell["params"])["sitting"]


def test_an_interrupted_run_resumes_keeping_whole_comparison_sets(home, monkeypatch):
    from serbench.run.rounds import comparison_key
    from serbench.run.runner import resume_plan
    use(monkeypatch, home)
    with pytest.raises(KeyboardInterrupt):
        run(home, PLAN, run_id="cut", listener=StopAfter(6, KeyboardInterrupt()))
    with Results(home / "results.duckdb") as results:
        before = {c["cell_id"] for c in results.cells("cut")}
        assert results.run("cut")["status"] == "interrupted"
        assert resume_plan(results, "cut") == "cut"
        after = results.cells("cut")
        run_row = results.run("cut")
    _, _, whole, _ = run(home, PLAN, run_id="whole")
    assert run_row["status"] == "complete" and len(after) == len(whole)
    assert len({c["cell_id"] for c in after}) == len(after), "no cell twice"
    assert {c["status"] for c in after} == {"ok"}
    sittings = {sitting_of(c) for c in after}
    assert sittings == {0, 1} and len(json.loads(run_row["params"])["sittings"]) == 2
    sets: dict[tuple, set] = defaultdict(set)
    for c in after:  # a set is measured in one sitting, never split across two
        sets[(c["model"], c["task"], c["n"], c["setting"], c["threads"])].add(sitting_of(c))
    assert all(len(found) == 1 for found in sets.values())
    kept = {c["cell_id"] for c in after if sitting_of(c) == 0}
    assert kept and kept <= before


def test_only_an_interrupted_or_failed_run_with_the_same_drivers_resumes(home, monkeypatch):
    from serbench.run.runner import resume_plan
    use(monkeypatch, home)
    run(home, PLAN, run_id="done")
    with pytest.raises(KeyboardInterrupt):
        run(home, PLAN, run_id="cut", listener=StopAfter(3, KeyboardInterrupt()))
    with Results(home / "results.duckdb") as results:
        with pytest.raises(ResultsError, match="run done is complete: nothing to resume"):
            resume_plan(results, "done")
    use(monkeypatch, home, methods="another")  # a changed driver: another build
    with Results(home / "results.duckdb") as results:
        with pytest.raises(RunError, match="the rust driver is not the one the run began with"):
            resume_plan(results, "cut")
        assert results.run("cut")["status"] == "interrupted", "left as it was"


def test_serbench_run_resume_goes_on_with_a_killed_run(home, monkeypatch):
    use(monkeypatch, home)
    with pytest.raises(KeyboardInterrupt):
        run(home, PLAN, run_id="cut", listener=StopAfter(4, KeyboardInterrupt()))
    result = CliRunner().invoke(cli, ["run", "--resume", "cut"])
    assert result.exit_code == 0, result.output
    with Results(home / "results.duckdb") as results:
        assert results.run("cut")["status"] == "complete"
    result = CliRunner().invoke(cli, ["run", "--resume", "cut", "--pin", "0"])
    assert result.exit_code != 0 and "--resume takes the run's own plan" in result.output


class StubDriver:
    """A driver process as a group holds it: alive until closed."""

    def __init__(self):
        self.alive = True

    def close(self):
        self.alive = False


def test_a_network_round_runs_with_no_other_groups_process_alive(home, monkeypatch):
    # the rule relies on it: in a batch, network sets run after every single-machine set
    assert max(TASK_ORDER[t] for t, spec in TASKS.items() if not spec.net) < \
        min(TASK_ORDER[t] for t, spec in TASKS.items() if spec.net)
    runner = Runner(plan=None, cells=[], drivers={}, infos={}, results=None, run_id="r")
    started = []
    monkeypatch.setattr(runner, "new_driver", lambda language, c: started.append(StubDriver())
                        or started[-1])
    monkeypatch.setattr(runner, "run_cell", lambda driver, c: CellResult("ok"))
    json_read, json_fetch = cell("json", 1), cell("json", 2, task="net_fetch")
    bson_fetch = cell("bson", 3, task="net_fetch")
    first = {"json": StubDriver(), "bson": StubDriver()}
    groups = {json_read.group_key: Group(runner, first["json"]),
              bson_fetch.group_key: Group(runner, first["bson"])}
    runner.round_of(groups, json_read)
    assert all(d.alive for d in first.values())  # a single-machine round: every one warm
    runner.round_of(groups, json_fetch)
    assert first["json"].alive and not first["bson"].alive and not started
    runner.round_of(groups, bson_fetch)  # bson's group starts a new process for its round
    assert not first["json"].alive and len(started) == 1 and started[0].alive
