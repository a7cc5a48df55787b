"""`info`, `data list`, `runs` and `compare` print their result on stdout, and nothing of it on
stderr, in every `--format`; each machine-readable form parses, under its stable column names.
Through the fake driver: two small runs of test_runner's plan."""
from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from serbench.cli import cli
from serbench.cli.data import DATASET_COLUMNS
from serbench.cli.drivers import CAPABILITY_COLUMNS
from serbench.cli.results import COMPARE_COLUMNS, RUN_COLUMNS
from serbench.cli.output import strict_json
from test_runner import PLAN, make_home, use


PLAN_AB = PLAN.replace('["write", "read_seq", "read_rand"]', '["write", "read_seq"]')


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """test_runner's home and fake driver, for the module: two runs, run-a and run-b."""
    tmp_path = tmp_path_factory.mktemp("cli_output")
    with pytest.MonkeyPatch.context() as monkeypatch:
        home = make_home(tmp_path, monkeypatch)
        use(monkeypatch, home)
        plan = tmp_path / "plan.toml"
        plan.write_text(PLAN_AB)
        for run_id in ("run-a", "run-b"):
            invoke("run", str(plan), "--run-id", run_id)
        yield home


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


COMMANDS = {  # arguments, columns, a value the result must hold
    "info": (["info"], CAPABILITY_COLUMNS, "fakejson"),
    "data list": (["data", "list"], DATASET_COLUMNS, "trade"),
    "runs": (["runs"], RUN_COLUMNS, "run-b"),
    "compare": (["compare", "run-a", "run-b"], COMPARE_COLUMNS, "fakejson"),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_the_table_for_people_is_on_stdout(two_runs, command):
    args, _, value = COMMANDS[command]
    result = invoke(*args)
    assert value in result.stdout
    assert value not in result.stderr


def csv_rows(text: str, columns) -> list[dict]:
    reader = csv.DictReader(io.StringIO(text))
    assert tuple(reader.fieldnames) == columns
    return list(reader)


def md_rows(text: str, columns) -> list[list[str]]:
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    assert [c.strip() for c in lines[0].strip("|").split("|")] == list(columns)
    assert set(lines[1].replace(" ", "")) == {"|", "-"}
    rows = [[c.strip() for c in line.strip("|").split(" | ")] for line in lines[2:]]
    assert all(len(row) == len(columns) for row in rows)
    return rows


@pytest.mark.parametrize("command", COMMANDS)
def test_each_machine_readable_form_is_on_stdout_and_parses(two_runs, command):
    args, columns, value = COMMANDS[command]
    found = {}
    for fmt in ("json", "csv", "md"):
        result = invoke(*args, "--format", fmt)
        assert value in result.stdout and value not in result.stderr, fmt
        found[fmt] = result.stdout
    rows = csv_rows(found["csv"], columns)
    assert len(md_rows(found["md"], columns)) == len(rows) > 0
    document = json.loads(found["json"])
    listed = document if isinstance(document, list) else document[
        {"info": "drivers", "compare": "cells"}.get(command, "")]
    assert len(listed) == (len({r["language"] for r in rows}) if command == "info"
                           else len(rows))


def test_runs_and_compare_give_numbers_a_script_can_use(two_runs):
    runs = json.loads(invoke("runs", "--format", "json").stdout)
    assert [(r["run_id"], r["status"]) for r in runs] == [("run-a", "complete"),
                                                          ("run-b", "complete")]
    assert runs[0]["cells"] >= runs[0]["ok"] > 0 and runs[0]["started_at"][:2] == "20"
    compared = json.loads(invoke("compare", "run-a", "run-b", "--format", "json").stdout)
    ok = [c for c in compared["cells"] if c["status_a"] == c["status_b"] == "ok"]
    assert ok and compared["summary"]["compared"] == len(ok)
    for c in ok:
        assert c["ratio"] == pytest.approx(c["median_b_ns"] / c["median_a_ns"], rel=1e-5)
        assert c["ci_low"] <= c["ci_high"]
        assert c["verdict"] in ("slower", "faster", "no difference")
    # CSV holds the table only: the summary goes to stderr
    result = invoke("compare", "run-a", "run-b", "--format", "csv")
    assert "cells compared" in result.stderr and "cells compared" not in result.stdout


def test_info_json_holds_every_driver_dataset_and_the_host(two_runs):
    document = json.loads(invoke("info", "--format", "json").stdout)
    assert document["drivers"]["rust"]["methods"]["fakejson"]["depths"] == ["materialize",
                                                                            "access"]
    assert {d["model"] for d in document["datasets"]} >= {"trade", "part"}
    assert document["host"]["logical_cores"] >= 1 and "git" in document
    rows = csv_rows(invoke("info", "--format", "csv").stdout, CAPABILITY_COLUMNS)
    fake = next(r for r in rows if r["method"] == "fakejson")
    assert (fake["language"], fake["depths"]) == ("rust", "materialize;access")


def test_a_progress_line_in_a_log_is_one_line_however_long(monkeypatch):
    """Without a terminal (a log) the progress comes as plain lines: each is whole, not
    wrapped at the console's width, so that grep finds a cell with its time left."""
    from pathlib import Path

    from rich.console import Console

    from serbench.cli import run as cli_run
    from serbench.cell import Cell
    log = io.StringIO()
    monkeypatch.setattr(cli_run, "console", Console(file=log, width=40))
    long = Cell(language="cpp", task="net_aggregate", model="sparse", method="json_gzip",
                depth="materialize", variant="", setting="tree_depth=3 density=0.001",
                dataset="d", dataset_dir=Path("d"), n=1, page_size=4096, cold=False,
                warmups=2, repetitions=1, seed=1, timeout_s=10, cell_id=1)
    bar = cli_run.ProgressBar(cost=lambda cell: 1.0)
    bar.LOG_EVERY_S = 0.0
    bar.ready([long])
    bar.logged -= 1.0
    bar.start(long)
    bar.stop()
    lines = [line for line in log.getvalue().splitlines() if "cells," in line]
    assert lines == ["0/1 cells, 0 s: cpp/json_gzip/sparse/net_aggregate/materialize n=1 "
                     "tree_depth=3 density=0.001"]


def strict_loads(text: str):
    """JSON as a strict parser reads it: Infinity and NaN are not JSON (RFC 8259)."""
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_json_is_strict_with_open_bounds_as_null(two_runs, monkeypatch):
    strict_loads(invoke("compare", "run-a", "run-b", "--format", "json").stdout)
    # cells left unjudged (a zero median) keep a band open above: written null
    monkeypatch.setattr("serbench.compare.judge", lambda comparison: None)
    compared = strict_loads(invoke("compare", "run-a", "run-b", "--format", "json").stdout)
    ok = [c for c in compared["cells"] if c["status_a"] == "ok"]
    assert ok and {c["band_high"] for c in ok} == {None}
    assert strict_loads(strict_json({"a": float("inf"), "b": [float("nan"), 1.5]})) == \
        {"a": None, "b": [None, 1.5]}


def test_nothing_to_list_is_an_empty_list_or_table(tmp_path, monkeypatch):
    monkeypatch.setenv("SERBENCH_HOME", str(tmp_path / "empty"))
    assert strict_loads(invoke("runs", "--format", "json").stdout) == []
    assert csv_rows(invoke("runs", "--format", "csv").stdout, RUN_COLUMNS) == []
    assert "run" in invoke("runs").stdout
    assert not (tmp_path / "empty" / "results.duckdb").exists(), "listing made no database"
