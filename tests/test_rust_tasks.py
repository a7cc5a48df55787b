"""read_par, sort_dedup, memory, micro and sizes through the real Rust driver: a plan over
the golden vectors (every cell checked by the harness). The sort's memory bound:
tests/test_sort_budget.py."""
from __future__ import annotations

import json

from serbench.results import Results

from test_end_to_end import RUST, cli_ok, home  # noqa: F401  (the fixture)

PLAN = """
name = "tasks"
[params]
rounds_max = 1
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
