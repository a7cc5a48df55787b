"""Identifiers from outside: one rule (ids.checked) wherever a run id, a dataset name or a host
name enters, and no cleanup, report or run directory ever outside the work directory, even
for an id that got into the database before these checks (written here by hand)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from serbench import ids
from serbench.cli import cli
from serbench.cli.data import _checked_name
from serbench.network.dask_placement import facts_problem
from serbench.paths import report_files, run_files
from serbench.plan import PlanError, parse_plan
from serbench.results import Results, this_process
from test_runner import serbench

HOSTILE = ["..", "../x", "a/../../b", "/etc", "/", "a/b", "run\x00x", "run\nx", ".hidden",
           "-rf", "a" * 300, "", "a b", "\x1b[31mred"]


@pytest.mark.parametrize("kind", sorted(ids.MAX_LENGTH))
@pytest.mark.parametrize("value", HOSTILE)
def test_every_kind_of_id_refuses_what_would_leave_its_directory(kind, value):
    with pytest.raises(ids.IdError) as caught:
        ids.checked(kind, value)
    message = str(caught.value)
    assert message.startswith(f"{kind} ")
    assert "\n" not in message and "\x00" not in message and "\x1b" not in message
    assert len(message) < 300


@pytest.mark.parametrize("value", ["20261207-105304-ab12", "run-1.2", "tpch-sf0.1", "A_b"])
def test_ordinary_ids_pass(value):
    for kind in ids.MAX_LENGTH:
        assert ids.checked(kind, value) == value
    assert ids.checked("run id", "r" * 64) and ids.checked("dataset name", "d" * 128)
    with pytest.raises(ids.IdError, match="65 characters, at most 64"):
        ids.checked("run id", "r" * 65)


def test_under_refuses_parts_and_links_that_lead_out(tmp_path):
    root = tmp_path / "home"
    (root / "runs").mkdir(parents=True)
    assert ids.under(root, "runs", "x") == root.resolve() / "runs" / "x"
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "runs" / "link").symlink_to(outside)
    for parts in (("..", "outside"), ("runs", "../../outside"), (str(outside),),
                  ("runs", "link"), ("runs", "link", "deeper")):
        with pytest.raises(ids.IdError, match="outside"):
            ids.under(root, *parts)


def test_run_and_report_directories_check_their_id(tmp_path, monkeypatch):
    monkeypatch.setenv("SERBENCH_HOME", str(tmp_path))
    assert run_files("r-1") == tmp_path.resolve() / "runs" / "r-1"
    for make in (run_files, report_files):
        for value in ("../../victim", "/abs", "a\nb"):
            with pytest.raises(ids.IdError, match="run id"):
                make(value)


def forge_run(db: Path, run_id: str, status: str, params: dict | None = None) -> None:
    """A run row as an older serbench's import could have left it, written by hand."""
    with Results(db) as results:
        results.con.execute(
            "INSERT INTO runs (run_id, status, started_at, plan_name, plan_toml, params) "
            "VALUES (?, ?, now()::TIMESTAMP, 'p', '[[group]]', ?)",
            [run_id, status, json.dumps(params or {})])


def test_the_reaper_never_touches_a_directory_outside_the_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("SERBENCH_HOME", str(home))
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious").write_text("kept")
    dead = {"harness": {**this_process(), "pid": 2**22 + 1, "start": -1}}
    forge_run(home / "results.duckdb", "../../victim", "running", dead)
    # a run's directory that is a link out of the home
    (home / "runs").mkdir(parents=True)
    (home / "runs" / "linked").symlink_to(victim)
    forge_run(home / "results.duckdb", "linked", "running", dead)
    with Results(home / "results.duckdb") as results:
        assert sorted(results.reap_orphans()) == ["../../victim", "linked"]
        assert {r["status"] for r in results.runs()} == {"interrupted"}
    assert (victim / "precious").read_text() == "kept"


def test_a_report_of_a_hostile_id_is_refused_and_writes_nothing(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("SERBENCH_HOME", str(home))
    forge_run(home / "results.duckdb", "../../evil", "complete")
    proc = serbench(home, "report", "--run", "../../evil")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "run id '../../evil': letters" in proc.stderr
    assert not (tmp_path / "evil").exists() and not (home / "reports").exists()


@pytest.mark.parametrize("args", [
    ["run", "--run-id", "../x"],
    ["run", "--resume", "../x"],
])
def test_run_ids_on_the_command_line_are_checked(tmp_path, monkeypatch, args):
    monkeypatch.setenv("SERBENCH_HOME", str(tmp_path))
    proc = serbench(tmp_path, *args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "run id '../x': letters" in proc.stderr


def test_dataset_names_are_checked_in_data_commands_and_plans():
    with pytest.raises(click.BadParameter, match="dataset name '../x': letters"):
        _checked_name(None, None, "../x")
    with pytest.raises(PlanError, match=r"datasets\.\.\.: dataset name '\.\.': letters"):
        parse_plan('[datasets]\n".." = "tpch --sf 1"\n[[group]]\ntasks = ["write"]\n', "p",
                   "p")
    result = CliRunner().invoke(cli, ["data", "org", "--n", "3", "--name", "a/b"])
    assert result.exit_code == 2 and "dataset name 'a/b'" in result.output


def test_a_cluster_worker_reporting_a_hostile_host_name_is_refused():
    good = {"git": {}, "infos": {}, "host": {"hostname": "node-1.lab"}}
    assert facts_problem(good) is None
    assert "host name 'a/../b'" in facts_problem({**good, "host": {"hostname": "a/../b"}})
    assert "something else than its facts" in facts_problem({"git": 1})
    assert "something else than its facts" in facts_problem(["not", "a", "dict"])


def test_files_a_cluster_worker_reports_outside_the_work_directory_are_refused(tmp_path):
    from serbench.network.dask_placement import ClusterError, DaskPlacement

    class Named:
        def label(self):
            return "worker w on host h (tcp://x:1)"

    placement = DaskPlacement.__new__(DaskPlacement)
    placement.work = tmp_path / "work"
    placement.work.mkdir()
    assert placement._inside_work(Named(), str(placement.work / "out" / "a.bin")) == \
        placement.work.resolve() / "out" / "a.bin"
    for path in ("/etc/passwd", str(placement.work / ".." / "x"), os.sep,
                 str(placement.work / "a\x00b")):
        with pytest.raises(ClusterError, match="refused"):
            placement._inside_work(Named(), path)


def test_runs_may_be_a_link_the_user_made_but_a_run_may_not(tmp_path, monkeypatch):
    home, disk = tmp_path / "home", tmp_path / "bigdisk"
    (disk / "runs").mkdir(parents=True)
    home.mkdir()
    (home / "runs").symlink_to(disk / "runs")  # SERBENCH_HOME's runs on a larger disk
    monkeypatch.setenv("SERBENCH_HOME", str(home))
    assert run_files("r-1") == (disk / "runs").resolve() / "r-1"
    (disk / "runs" / "r-2").symlink_to(tmp_path)  # a run's own directory leading elsewhere
    with pytest.raises(ids.IdError, match="outside"):
        run_files("r-2")
