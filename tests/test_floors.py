"""The write and sort floors of every real driver through the harness: each floor cell is
checked against the harness's own fold of the method's file (and its copy or `sorted` against
that file's bytes), so a driver whose floor moves other bytes fails here. Datasets are the
golden vectors repeated (duplicates for the sort); every driver must be built."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import built_drivers
from fake_driver import make_dataset
from serbench.drivers.process import LANGUAGES, env_var
from serbench.plan import RAW, parse_plan
from serbench.results import Results
from serbench.run.runner import run_plan

METHODS = ("handcoded", "json", "msgpack")  # one binary, one text, one library format
COPIES = 20  # of each golden object: duplicates to drop, and inputs above the sort's budget

PLAN = """
name = "floors-test"
[params]
rounds_max = 1
n = [1000]
warmups = 0
repetitions = 1
min_sample_ms = 0.001
timeout_s = 120
[[group]]
tasks = ["write"]
models = ["part", "tweet"]
methods = ["handcoded", "json", "msgpack"]
floor_rounds = 2
[[group]]
tasks = ["sort_dedup"]
models = ["part", "tweet"]
methods = ["handcoded", "json", "msgpack"]
budget_bytes = [4096]
page_size = 512
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[list, list]:
    built_drivers()
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SERBENCH_HOME", str(home))
        for language in LANGUAGES:
            mp.delenv(env_var(language), raising=False)
        make_dataset(home / "data" / "default", models=("part", "tweet"), copies=COPIES)
        with Results(home / "results.duckdb") as results:
            run_id = run_plan(parse_plan(PLAN, "floors-test.toml", "floors-test"), results)
            return results.cells(run_id), results.samples(run_id)


def test_every_floor_cell_of_every_driver_is_ok_beside_its_method(run):
    cells, _ = run
    bad = [(c["language"], c["task"], c["method"], c["variant"], c["model"], c["message"])
           for c in cells if c["status"] != "ok"]
    assert not bad
    floors = {(c["language"], c["task"], c["variant"], c["model"])
              for c in cells if c["method"] == RAW}
    assert floors == {(language, task, method, model) for language in LANGUAGES
                      for task in ("write", "sort_dedup") for method in METHODS
                      for model in ("part", "tweet")}


def test_the_sort_floor_keeps_every_object_and_the_sort_drops_duplicates(run):
    cells, _ = run
    for c in (c for c in cells if c["task"] == "sort_dedup"):
        copies = c["expected_count"] if c["method"] == RAW else COPIES * c["expected_count"]
        assert c["got_count"] == c["expected_count"], c
        assert json.loads(c["counters"])["input_objects"] == copies, c
        assert json.loads(c["counters"])["runs"] >= 2, c  # the budget is below the input


def test_a_write_in_rounds_carries_its_floor_in_every_measured_sample(run):
    cells, samples = run
    writes = {c["cell_id"] for c in cells if c["task"] == "write" and c["method"] != RAW}
    measured = [s for s in samples if s["cell_id"] in writes and not s["warmup"]]
    assert len(measured) == 2 * len(writes)
    assert all(json.loads(s["extra"])["floor_ns"] > 0 for s in measured)
