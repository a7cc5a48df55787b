"""`serbench selfcheck --runs`: a pair of runs that cannot measure this machine's noise is
refused with the reason and the option that helps; no profile ever holds a zero sigma, made,
saved, stored with a run or read back from a file someone edited."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from serbench.compare import noise
from serbench.cli import cli
from serbench.results import Results, ResultsError
from test_compare import METHODS, NOISE, NOISY_PLAN
from test_runner import PLAN, home, make_home, run, use  # noqa: F401 (home is a fixture)


def selfcheck(*args: str):
    return CliRunner().invoke(cli, ["selfcheck", "--runs", *args, "--format", "json"])


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """Runs a and b of one plan, c of another: measured once for the module."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        home = make_home(tmp_path_factory.mktemp("made"), monkeypatch)  # noqa: F811
        use(monkeypatch, home, methods=METHODS, times=f"seed=5,{NOISE}")
        run(home, NOISY_PLAN, run_id="a")
        run(home, NOISY_PLAN, run_id="b")
        run(home, NOISY_PLAN.replace("rounds_min = 6", "rounds_min = 5"), run_id="c")
    return home / "results.duckdb"


@pytest.fixture
def two_runs(made, tmp_path, monkeypatch) -> Path:
    """A home of its own holding a copy of the made runs' database."""
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(made, home / "results.duckdb")
    monkeypatch.setenv("SERBENCH_HOME", str(home))
    return home


def test_the_same_run_twice_is_refused(two_runs):
    result = selfcheck("a", "a")
    assert result.exit_code == 2
    assert "run a twice: a run compared with itself shows no noise" in result.output
    assert not noise.profile_path().exists()


def test_runs_of_different_plans_are_refused(two_runs):
    result = selfcheck("a", "c")
    assert result.exit_code == 2 and "runs of different plans (noisy and noisy" in result.output


def test_runs_of_different_builds_are_refused(two_runs):
    with Results(two_runs / "results.duckdb") as results:
        results.con.execute("UPDATE runs SET git_commit = 'other' WHERE run_id = 'b'")
    result = selfcheck("a", "b")
    assert result.exit_code == 2 and "runs of different builds" in result.output


def test_runs_on_different_hosts_are_refused(two_runs):
    with Results(two_runs / "results.duckdb") as results:
        results.con.execute("UPDATE runs SET host = '{\"hostname\": \"elsewhere\"}' "
                            "WHERE run_id = 'b'")
    assert "runs on different hosts" in selfcheck("a", "b").output


def test_too_few_shared_cells_are_refused(home, monkeypatch):  # noqa: F811
    use(monkeypatch, home)
    run(home, PLAN.replace("models = [\"trade\", \"part\"]", "models = [\"trade\"]"),
        run_id="x")
    run(home, PLAN.replace("models = [\"trade\", \"part\"]", "models = [\"trade\"]"),
        run_id="y")
    with Results(home / "results.duckdb") as results:
        results.con.execute("DELETE FROM samples WHERE run_id = 'y' AND cell_id > 3")
        results.con.execute("UPDATE cells SET status = 'failed' WHERE run_id = 'y' "
                            "AND cell_id > 3")
    result = selfcheck("x", "y")
    assert result.exit_code == 2
    assert "3 cells are ok in both runs; noise needs at least 8" in result.output


def test_an_incomplete_run_is_refused_with_the_option_selfcheck_takes(two_runs):
    with Results(two_runs / "results.duckdb") as results:
        results.con.execute("UPDATE runs SET status = 'failed' WHERE run_id = 'b'")
    refused = selfcheck("a", "b", "--no-save")
    assert isinstance(refused.exception, ResultsError)  # the CLI's main: exit 2, this message
    assert "run b is failed, not complete" in str(refused.exception)
    assert "pass --allow-incomplete" in str(refused.exception)
    accepted = selfcheck("a", "b", "--no-save", "--allow-incomplete")
    assert accepted.exit_code == 0, accepted.output


def test_no_zero_sigma_is_saved_or_used(two_runs, monkeypatch):
    # the fake's runs as alike as the rounds explain: the two runs see no noise of their own
    monkeypatch.setattr("serbench.cli.selfcheck.task_noise",
                        lambda comparison: {task: 0.0 for task in comparison.sigma})
    result = selfcheck("a", "b")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout[result.stdout.index("{"):])
    assert {row["noise"] for row in document["tasks"]} == {noise.MIN_SIGMA}
    saved = json.loads(noise.profile_path().read_text())
    [profile] = saved.values()
    assert set(profile["sigma"].values()) == {noise.MIN_SIGMA}
    assert min(noise.measured_here().sigma.values()) == noise.MIN_SIGMA


@pytest.mark.parametrize("stored", [
    {"sigma": {"read_seq": 0.0, "write": 0.02}},
    {"sigma": {"read_seq": -1, "write": 0.02, "micro": "x", "sort_dedup": float("nan")}},
])
def test_a_stored_profile_is_read_without_zeros(stored):
    profile = noise.from_json(stored)
    assert profile.sigma == {"read_seq": noise.MIN_SIGMA, "write": 0.02} or \
        profile.sigma == {"write": 0.02}
    assert min(profile.sigma.values()) >= noise.MIN_SIGMA


def test_profiles_that_are_not_profiles_fall_back_to_the_default(tmp_path, monkeypatch):
    monkeypatch.setenv("SERBENCH_HOME", str(tmp_path))
    for text in ("[1, 2]", "{\"host\": 3}", "not json"):
        noise.profile_path().write_text(text)
        assert noise.measured_here() == noise.DEFAULT
    assert min(noise.DEFAULT.sigma.values()) >= noise.MIN_SIGMA
    assert noise.from_json({"sigma": {"read_seq": "x"}}) == noise.DEFAULT
