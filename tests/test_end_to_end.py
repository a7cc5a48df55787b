"""End to end through the real Rust driver: a small plan through `serbench run` and
`serbench report`, and damaged files that must end as failed cells, never ok ones.

The datasets are the golden vectors repeated (manifests computed by the Python reference), so
the test needs no generator; the driver must be built (`serbench build`, which `make test`
runs through scripts/setup).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import built_driver
from fake_driver import make_dataset
from serbench.drivers import process as driver_module
from serbench.cli import cli
from serbench.datasets.manifest import data_path
from serbench.drivers.process import BUILD_PATHS, LANGUAGES, DriverProcess, env_var
from serbench.plan import RAW, parse_plan
from serbench.results import Results
from serbench.run.runner import Listener, run_plan

RUST = BUILD_PATHS["rust"]
MODELS = ("trade", "part")
METHODS = ("handcoded", "bincode", "json_gzip")

PLAN = """
name = "e2e"
[params]
rounds_max = 1
n = [3, 1000]          # 1000 is capped at each dataset's count
page_size = 256        # small pages: objects pack several to a page and spill over
warmups = 1
repetitions = 2
timeout_s = 60
[[group]]
tasks = ["write", "read_seq", "read_rand"]
models = ["trade", "part"]
methods = ["handcoded", "bincode", "json_gzip"]
languages = ["rust"]
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    """A private SERBENCH_HOME with golden-vector datasets; only the real Rust driver."""
    built_driver("rust")
    home = tmp_path / "home"
    monkeypatch.setenv("SERBENCH_HOME", str(home))
    monkeypatch.setattr(driver_module, "BUILD_PATHS",
                        {lang: RUST if lang == "rust" else tmp_path / "none" for lang in LANGUAGES})
    for language in LANGUAGES:
        monkeypatch.delenv(env_var(language), raising=False)
    make_dataset(home / "data" / "default", models=MODELS, copies=4)
    return home


def cli_ok(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_plan_runs_and_reports_through_the_real_driver(home, tmp_path):
    plan = tmp_path / "e2e.toml"
    plan.write_text(PLAN)
    output = cli_ok("run", str(plan))
    # where the run's time went, every task of the plan named once
    spent = next(line for line in output.splitlines() if line.startswith("time by task: "))
    assert sorted(item.split()[0] for item in spent[14:].split(", ")) == [
        "read_rand", "read_seq", "write"]
    with Results(home / "results.duckdb") as results:
        [run] = results.runs()
        cells = results.cells(run["run_id"])
        samples = results.samples(run["run_id"])
    assert run["status"] == "complete"
    problems = [(c["method"], c["model"], c["task"], c["depth"], c["status"], c["message"])
                for c in cells if c["status"] != "ok"]
    assert problems == []
    seen = {(c["method"], c["model"], c["task"]) for c in cells}
    for model in MODELS:
        for method in METHODS:
            assert {(method, model, t) for t in ("write", "read_seq", "read_rand")} <= seen
        assert {("raw", model, "read_seq"), ("raw", model, "read_rand")} <= seen
    for cell in cells:
        # raw hashes bytes: its expectation is the harness's own reading of the file
        assert cell["got_sum"] == cell["expected_sum"]
        assert cell["got_count"] == cell["expected_count"]
    depths = {c["depth"] for c in cells if c["method"] == "handcoded" and c["task"] != "write"}
    assert depths == {"materialize", "access"}
    measured = [s for s in samples if not s["warmup"]]
    assert len(measured) == 2 * len(cells)
    assert all(s["total_ns"] == s["cpu_ns"] + s["io_ns"] and s["io_ns"] > 0 for s in measured)

    output = cli_ok("report")
    html, markdown = (Path(line) for line in output.split()
                      if line.endswith(("report.html", "report.md")))
    text = html.read_text()
    assert len(text) > 10_000 and markdown.stat().st_size > 0
    for name in (*METHODS, "raw", *MODELS, "read_seq", "read_rand", "write"):
        assert name in text, name


class TruncateWrittenFiles(Listener):
    """Damages every data file once, when the first read starts: after the writes (and their
    floors, which the rounds interleave with them) are done."""

    def __init__(self, home: Path):
        self.home = home
        self.damaged = False

    def start(self, cell) -> None:
        if cell.task != "write" and not self.damaged:
            self.damaged = True
            for pages in (self.home / "runs").rglob("*.pages"):
                os.truncate(pages, pages.stat().st_size // 2)


def test_a_file_damaged_between_write_and_read_fails_its_reads(home):
    plan = parse_plan(PLAN.replace('"bincode", "json_gzip"', "").replace(', "part"]', "]")
                      .replace("[3, 1000]", "[3]"), "damaged.toml", "damaged")
    with Results(home / "results.duckdb") as results:
        run_id = run_plan(plan, results, listener=TruncateWrittenFiles(home))
        cells = results.cells(run_id)
        assert results.run(run_id)["status"] == "complete"
    by_task = {}
    for cell in cells:
        by_task.setdefault(cell["task"], []).append(cell)
    assert {c["status"] for c in by_task["write"]} == {"ok"}, "written before the damage"
    reads = by_task["read_seq"] + by_task["read_rand"]
    assert len(reads) == 2 * 2 + 2  # two depths and the raw floor, two tasks
    for cell in reads:
        assert (cell["status"], cell["error_kind"]) == ("failed", "corrupt_input"), cell
        assert "truncated" in cell["message"] and ".pages" in cell["message"]


def test_the_driver_answers_damaged_and_mismatched_files_and_keeps_serving(home, tmp_path):
    source = str(data_path(home / "data" / "default", "trade"))
    base = tmp_path / "trade"
    reps = {"cold": True, "warmups": 0, "repetitions": 1}

    def read(driver, method="handcoded", depth="access", **params):
        return driver.request("run", task="read_seq", model="trade", method=method, depth=depth,
                              variant="", params={"input": str(base), "start": 0, "n": 8,
                                                  **reps, **params})

    with DriverProcess("rust", RUST, timeout_s=30) as driver:
        encoded = driver.request("encode", model="trade", method="handcoded", depth="",
                                 variant="", params={"input": source, "output": str(base),
                                                     "page_size": 4096})
        assert encoded["status"] == "ok", encoded
        assert read(driver)["status"] == "ok"
        assert read(driver, n=9)["error"]["kind"] == "out_of_range"
        assert read(driver, method="bincode", depth="materialize")["error"]["kind"] == "wrong_file"
        index = Path(f"{base}.index")
        entries = bytearray(index.read_bytes())
        entries[-1] ^= 0x40  # the last entry's length
        index.write_bytes(bytes(entries))
        damaged = read(driver)
        assert damaged["error"]["kind"] == "corrupt_input"
        assert "entry 7" in damaged["error"]["message"] or "entries hash" in damaged["error"]["message"]
        index.unlink()
        assert read(driver)["error"]["kind"] == "not_found"
        info = driver.request("info")
        assert info["status"] == "ok" and info["result"]["language"] == "rust"


def test_a_run_whose_harness_was_killed_is_marked_interrupted_by_the_next_command(home,
                                                                                 tmp_path):
    """SIGKILL leaves no chance to clean up: the run row stays `running` and its files stay;
    the next serbench command finds the harness gone, marks the run and removes the files."""
    import signal
    import subprocess
    import sys
    import time

    plan = tmp_path / "long.toml"
    plan.write_text(PLAN.replace("repetitions = 2", "repetitions = 200"))
    env = {**os.environ, "SERBENCH_HOME": str(home), env_var("rust"): str(RUST),
           **{env_var(lang): str(tmp_path / "none") for lang in LANGUAGES if lang != "rust"}}
    harness = subprocess.Popen([str(Path(sys.executable).parent / "serbench"), "run", str(plan),
                                "--run-id", "killed"], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    files = home / "runs" / "killed"
    try:
        deadline = time.monotonic() + 60
        while not files.exists() and harness.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert files.exists() and harness.poll() is None, "the run never wrote files"
    finally:
        os.killpg(harness.pid, signal.SIGKILL)  # the harness and its drivers
        harness.wait()
    result = CliRunner().invoke(cli, ["runs"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "run killed was left running by a serbench process that no longer exists" in \
        result.output
    with Results(home / "results.duckdb") as results:
        assert results.run("killed")["status"] == "interrupted"
    assert not files.exists()
