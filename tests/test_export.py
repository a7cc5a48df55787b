"""`serbench export` of a real run (test_end_to_end's plan through the Rust driver): three tidy
tables, each row written at its own level (a sample's row carries only its cell's identity,
a cell's results once, a run's provenance once), so the export grows with the samples by a
bounded amount each; and the Parquet triple imported back whole into another database."""
from __future__ import annotations

import csv
import json

import pytest

from serbench.results import Results
from serbench.results.transfer import import_runs
from test_end_to_end import PLAN, cli_ok, home  # noqa: F401  (the fixture)

# a sample's row: run and cell ids, the cell's identity, the sample's times and extra; measured
# at 154 B here, 186 B in a default run (whose extra names the round); 800 B before, with its
# cell's counters and parameters
SAMPLE_BYTES = 250
# a cell's row: status, checksums, counters and request parameters (the driver's input paths
# among them, long under pytest's tmp_path); measured at 770 B here
CELL_BYTES = 1500


@pytest.fixture
def run(home, tmp_path):  # noqa: F811
    plan = tmp_path / "e2e.toml"
    plan.write_text(PLAN)
    run_id = cli_ok("run", str(plan)).split()[-1]
    with Results(home / "results.duckdb") as results:
        return results.run(run_id)


def provenance_bytes(run: dict) -> int:
    """The run's provenance as JSON text: what the first export repeated in every row."""
    return sum(len(run[k] or "") for k in ("host", "toolchains", "drivers", "params",
                                           "machine", "plan_toml"))


def table(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_a_csv_export_writes_each_level_once(run, home, tmp_path):  # noqa: F811
    out = tmp_path / "run.csv"
    cli_ok("export", "--run", run["run_id"], "--format", "csv", "--out", str(out))
    samples, cells, runs = (tmp_path / f"run{t}.csv" for t in ("", ".cells", ".runs"))
    with Results(home / "results.duckdb") as results:
        counts = results.con.execute(
            "SELECT (SELECT count(*) FROM samples WHERE run_id = $1), "
            "(SELECT count(*) FROM cells WHERE run_id = $1)", [run["run_id"]]).fetchone()
    assert (len(table(samples)), len(table(cells))) == counts
    assert samples.stat().st_size < SAMPLE_BYTES * counts[0]
    assert cells.stat().st_size < CELL_BYTES * counts[1]
    # the provenance once: more than its JSON (quotes doubled in CSV), less than twice it
    assert provenance_bytes(run) < runs.stat().st_size < 2 * provenance_bytes(run)
    [row] = table(runs)
    assert json.loads(row["drivers"]) == json.loads(run["drivers"])


def test_a_parquet_export_is_imported_back_whole(run, home, tmp_path):  # noqa: F811
    out = tmp_path / "run.parquet"
    cli_ok("export", "--run", run["run_id"], "--out", str(out))
    with Results(home / "results.duckdb") as source, Results(tmp_path / "other.duckdb") as db:
        assert [r.action for r in import_runs(db, out)] == ["imported"]
        for name in ("runs", "cells", "samples"):
            query = f"SELECT * FROM {name} ORDER BY ALL"
            assert db.con.execute(query).fetchall() == source.con.execute(query).fetchall()
