"""read_par, sort_dedup, memory, micro and sizes through the real Rust driver: a plan over
the golden vectors (every cell checked by the harness), and the sort's memory budget on an
input ten times the budget."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from serbench.checksum import object_hash
from serbench.driver import DriverProcess
from serbench.native import datagen_path
from serbench.order import sorted_distinct_checksum
from serbench.results import Results

from test_end_to_end import RUST, cli_ok, home  # noqa: F401  (the fixture)

PLAN = """
name = "tasks"
[params]
n = [5, 1000]          # 1000 is capped at each dataset's count
page_size = 256
warmups = 1
repetitions = 2
threads = [1, 2]
budget_bytes = [4096, 1048576]
iterations = 3
sweep_k = [10, 100]
timeout_s = 120
[[group]]
tasks = ["read_par", "sort_dedup", "memory", "micro", "sizes"]
models = ["trade", "part"]
methods = ["handcoded", "bincode", "json_gzip"]
languages = ["rust"]
"""

NEW_TASKS = ("read_par", "sort_dedup", "memory", "micro", "sizes")


def test_the_new_tasks_run_and_check_out_through_the_real_driver(home, tmp_path):
    plan = tmp_path / "tasks.toml"
    plan.write_text(PLAN)
    cli_ok("run", str(plan))
    with Results(home / "results.duckdb") as results:
        [run] = results.runs()
        cells = results.cells(run["run_id"])
    problems = [(c["method"], c["model"], c["task"], c["depth"], c["setting"], c["status"],
                 c["message"]) for c in cells if c["status"] not in ("ok", "unsupported")]
    assert problems == []
    ok = {(c["task"], c["method"]) for c in cells if c["status"] == "ok"}
    assert {(t, m) for t in NEW_TASKS for m in ("handcoded", "bincode", "json_gzip")} <= ok
    assert ("read_par", "raw") in ok
    for c in cells:
        if c["status"] == "ok" and c["method"] != "raw":
            assert (c["got_count"], c["got_sum"]) == (c["expected_count"], c["expected_sum"])
    runs = {c["setting"]: json.loads(c["counters"])["runs"] for c in cells
            if (c["task"], c["model"], c["method"]) == ("sort_dedup", "part", "handcoded")}
    # a small budget makes several runs
    assert runs["budget_bytes=4096"] > runs["budget_bytes=1048576"] == 1
    memory = [json.loads(c["counters"]) for c in cells if c["task"] == "memory"
              and c["status"] == "ok"]
    assert all(m["retained_bytes_per_object"] > 0 for m in memory)


BUDGET = 1 << 20
# the slack documented in drivers/rust/driver/src/tasks/sort_dedup.rs: fixed (buffers and the
# allocator's committed chunks) plus the paged format's indexes, per input object
FIXED_SLACK, SLACK_PER_OBJECT = 16 << 20, 64
TRADES = 60_000  # about 15 MiB of decoded trades: more than ten times the budget


def test_sort_dedup_stays_within_its_memory_budget(tmp_path):
    source = tmp_path / "trade.jsonl"
    subprocess.run([str(datagen_path()), "trade", "--n", str(TRADES), "--seed", "7",
                    "--out", str(source)], check=True, capture_output=True)
    with source.open() as f:  # some duplicates, so that removing them is part of the work
        lines = f.readlines()
    source.write_text("".join(lines + lines[::7]))
    base, output = tmp_path / "trade", tmp_path / "sorted"
    output.mkdir()
    cell = {"model": "trade", "method": "handcoded", "variant": ""}
    with DriverProcess("rust", RUST, timeout_s=300).start() as writer:
        written = writer.request("run", task="write", depth="", **cell,
                                 params={"input": str(source), "output": str(base),
                                         "page_size": 65536, "warmups": 0, "repetitions": 1,
                                         "cold": False})
    assert written["status"] == "ok", written
    # a fresh process: nothing the write allocated is still resident
    with DriverProcess("rust", RUST, timeout_s=300).start() as sorter:
        sorted_ = sorter.request("run", task="sort_dedup", depth="materialize", **cell,
                                 params={"input": str(base), "output": str(output),
                                         "budget_bytes": BUDGET, "page_size": 65536,
                                         "warmups": 0, "repetitions": 1, "cold": False})
    assert sorted_["status"] == "ok", sorted_
    result = sorted_["result"]
    assert result["checksum"] == sorted_distinct_checksum("trade", source)
    counters = result["counters"]
    assert counters["input_objects"] == len(lines) + len(lines[::7])
    assert counters["runs"] >= 10
    grown = counters["peak_rss_bytes"] - counters["rss_start_bytes"]
    slack = FIXED_SLACK + SLACK_PER_OBJECT * counters["input_objects"]
    assert grown <= BUDGET + slack, f"{grown:,} bytes over the start, budget {BUDGET:,}"
    assert len({object_hash("trade", json.loads(line)) for line in lines}) \
        == result["checksum"]["count"]
