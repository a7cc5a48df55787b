"""`serbench export` of a real run (test_end_to_end's plan through the Rust driver): tidy
tables whose size follows the samples, each run's provenance written once, and the Parquet
pair imported back whole into another database."""
from __future__ import annotations

import csv
import json

import pytest

from serbench.results import Results
from serbench.transfer import import_runs
from test_end_to_end import PLAN, cli_ok, home  # noqa: F401  (the fixture)

# a sample's row: its cell's identity, status, checksums, counters and request parameters
# (the driver's input paths among them) and the sample's times; measured at 700-800 B here
ROW_BYTES = 1500


@pytest.fixture
def run(home, tmp_path):  # noqa: F811
    plan = tmp_path / "e2e.toml"
    plan.write_text(PLAN)
    run_id = cli_ok("run", str(plan)).split()[-1]
    with Results(home / "results.duckdb") as results:
        return results.run(run_id)


def provenance_bytes(run: dict) -> int:
    """The run's provenance as JSON text: what the old export repeated in every row."""
    return sum(len(run[k] or "") for k in ("host", "toolchains", "drivers", "params",
                                           "machine", "plan_toml"))


def test_a_csv_export_holds_each_run_once_and_grows_with_its_samples(run, tmp_path):
    out = tmp_path / "run.csv"
    cli_ok("export", "--run", run["run_id"], "--format", "csv", "--out", str(out))
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and {r["run_id"] for r in rows} == {run["run_id"]}
    assert out.stat().st_size < ROW_BYTES * len(rows)
    # the provenance once: more than its JSON (quotes doubled in CSV), less than twice it
    runs = tmp_path / "run.runs.csv"
    assert provenance_bytes(run) < runs.stat().st_size < 2 * provenance_bytes(run)
    with open(runs, newline="") as f:
        [row] = list(csv.DictReader(f))
    assert json.loads(row["drivers"]) == json.loads(run["drivers"])


def test_a_parquet_export_is_imported_back_whole(run, home, tmp_path):  # noqa: F811
    out = tmp_path / "run.parquet"
    cli_ok("export", "--run", run["run_id"], "--out", str(out))
    assert (tmp_path / "run.runs.parquet").is_file()
    with Results(home / "results.duckdb") as source, Results(tmp_path / "other.duckdb") as db:
        assert [r.action for r in import_runs(db, out)] == ["imported"]
        for table in ("runs", "cells", "samples"):
            query = f"SELECT * FROM {table} ORDER BY ALL"
            assert db.con.execute(query).fetchall() == source.con.execute(query).fetchall()
