"""The results database: schema, atomicity, readers' refusal of incomplete runs, export."""
from __future__ import annotations

import csv
import json
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from serbench.ids import IdError
from serbench.plan import Cell
from serbench.results.transfer import export_runs, import_runs
from serbench.results import (ROWS_PER_INSERT, SCHEMA_VERSION, CellResult, Results, ResultsError,
                              killed_at, sitting_spans)

PROVENANCE = {"host": {"cpu_model": "test"}, "toolchains": {"python": "3"},
              "git": {"commit": "abc", "dirty": True}, "drivers": {"rust": {"path": "x"}}}


def cell(cell_id: int, **changes) -> Cell:
    base = dict(language="rust", task="read_seq", model="trade", method="handcoded",
                depth="materialize", variant="", setting="", dataset="default",
                dataset_dir=Path("/data/default"), n=100, threads=1, page_size=4096, cold=True,
                warmups=1, repetitions=2, seed=42, timeout_s=60.0, pin_cpus="",
                cell_id=cell_id)
    base.update(changes)
    return Cell(**base)


def samples(reps: int = 2, warmups: int = 1) -> list[dict]:
    rows = [{"rep": i, "warmup": True, "total_ns": 900, "cpu_ns": 800, "io_ns": 100}
            for i in range(warmups)]
    rows += [{"rep": i, "warmup": False, "total_ns": 1000 + i, "cpu_ns": 700, "io_ns": 300 + i,
              "per_thread_ns": [1, 2]} for i in range(reps)]
    return rows


def ok(**changes) -> CellResult:
    result = CellResult("ok", expected={"count": 100, "sum": "00000000000000ff"},
                        got={"count": 100, "sum": "00000000000000ff"}, eviction="fadvise_dontneed",
                        counters={"objects": 100}, params={"n": 100}, samples=samples())
    result.__dict__.update(changes)
    return result


@pytest.fixture
def results(tmp_path: Path):
    with Results(tmp_path / "results.duckdb") as db:
        yield db


def begin(results: Results, run_id: str = "run-a") -> str:
    results.begin_run(run_id, "default", "[[group]]", 42, PROVENANCE, {"pin": None})
    return run_id


def test_schema_created_with_version(results):
    assert results.con.execute("SELECT value FROM meta WHERE key = 'schema_version'"
                               ).fetchone()[0] == SCHEMA_VERSION
    tables = {r[0] for r in results.con.execute(
        "SELECT table_name FROM information_schema.tables").fetchall()}
    assert {"meta", "runs", "cells", "samples", "sample_rows"} <= tables


def test_other_schema_version_is_refused(tmp_path):
    path = tmp_path / "r.duckdb"
    Results(path).close()
    con = duckdb.connect(str(path))
    con.execute("UPDATE meta SET value = '99'")
    con.close()
    with pytest.raises(ResultsError, match="schema version 99"):
        Results(path)


def test_a_version_1_database_is_refused_with_what_to_do(tmp_path):
    path = tmp_path / "r.duckdb"
    Results(path).close()
    con = duckdb.connect(str(path))
    con.execute("UPDATE meta SET value = '1'")
    con.close()
    with pytest.raises(ResultsError, match="version 1, this serbench reads version 3; move"):
        Results(path)


VERSION_2_CELLS = """CREATE TABLE cells (run_id VARCHAR NOT NULL, cell_id INTEGER NOT NULL,
    language VARCHAR NOT NULL, task VARCHAR NOT NULL, model VARCHAR NOT NULL,
    method VARCHAR NOT NULL, depth VARCHAR NOT NULL, variant VARCHAR NOT NULL,
    setting VARCHAR NOT NULL, dataset VARCHAR NOT NULL, n BIGINT NOT NULL,
    threads INTEGER NOT NULL, page_size INTEGER NOT NULL, cold BOOLEAN NOT NULL,
    status VARCHAR NOT NULL, error_kind VARCHAR, message VARCHAR, stderr VARCHAR,
    expected_count BIGINT, expected_sum VARCHAR, got_count BIGINT, got_sum VARCHAR,
    eviction VARCHAR, counters JSON, params JSON, PRIMARY KEY (run_id, cell_id))"""


def test_a_version_2_database_is_upgraded_in_place_and_keeps_its_runs(tmp_path):
    """Version 2 as it was written (no steady columns, no machine state): opened for writing,
    it gains them as NULL and its old cells read back unjudged."""
    path = tmp_path / "r.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)")
    con.execute("INSERT INTO meta VALUES ('schema_version', '2')")
    con.execute("CREATE TABLE runs (run_id VARCHAR PRIMARY KEY, status VARCHAR NOT NULL, "
                "started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP, plan_name VARCHAR, "
                "plan_toml VARCHAR, seed BIGINT, git_commit VARCHAR, git_dirty BOOLEAN, "
                "host JSON, toolchains JSON, drivers JSON, params JSON)")
    con.execute(VERSION_2_CELLS)
    con.execute("CREATE TABLE samples (run_id VARCHAR NOT NULL, cell_id INTEGER NOT NULL, "
                "rep INTEGER NOT NULL, warmup BOOLEAN NOT NULL, total_ns BIGINT NOT NULL, "
                "cpu_ns BIGINT NOT NULL, io_ns BIGINT NOT NULL, extra JSON, "
                "PRIMARY KEY (run_id, cell_id, warmup, rep))")
    con.execute("INSERT INTO runs VALUES ('old', 'complete', now(), now(), 'default', '', 42, "
                "'abc', false, '{}', '{}', '{}', '{}')")
    con.execute("INSERT INTO cells VALUES ('old', 1, 'rust', 'read_seq', 'part', 'handcoded', "
                "'access', '', '', 'default', 10, 1, 4096, true, 'ok', NULL, NULL, NULL, 10, "
                "'00', 10, '00', 'none', '{}', '{}')")
    con.close()
    with pytest.raises(ResultsError, match="version 2, this serbench reads version 3"):
        Results(path, read_only=True)  # a reader never writes: it says what to do
    with Results(path) as results:
        assert results.cells("old")[0]["steady"] is None
        assert results.run("old")["machine"] is None
        run_id = begin(results)
        results.add_cell(run_id, cell(1), ok(steady=False, steady_note="drift"))
        assert results.con.execute("SELECT steady, steady_note FROM sample_rows WHERE "
                                   "run_id = ? LIMIT 1", [run_id]).fetchone() == (False, "drift")
    with Results(path, read_only=True) as results:
        assert results.con.execute("SELECT value FROM meta").fetchone()[0] == "3"


def test_steadiness_and_the_machine_state_are_stored(results):
    results.begin_run("m", "default", "[[group]]", 42, PROVENANCE, {}, {"load_average": [0.5]})
    results.add_cell("m", cell(1), ok(steady=True, steady_note="no drift across 2 repetitions"))
    results.add_cell("m", cell(2), ok(steady=None, steady_note="too few"))
    results.finish_run("m", "complete", {"load_average": [1.5]})
    assert [(c["steady"], c["steady_note"]) for c in results.cells("m")] == [
        (True, "no drift across 2 repetitions"), (None, "too few")]
    assert json.loads(results.run("m")["machine"]) == {"before": {"load_average": [0.5]},
                                                       "after": {"load_average": [1.5]}}


def test_the_task_setting_is_stored_with_the_cell(results):
    run_id = begin(results)
    results.add_cell(run_id, cell(1, task="read_par", setting="mode=rand", threads=2), ok())
    row = results.cells(run_id)[0]
    assert (row["setting"], row["threads"]) == ("mode=rand", 2)


def test_read_only_needs_an_existing_database(tmp_path):
    with pytest.raises(ResultsError, match="no results yet"):
        Results(tmp_path / "none.duckdb", read_only=True)


def test_run_lifecycle_and_provenance(results):
    run_id = begin(results)
    run = results.run(run_id)
    assert run["status"] == "running" and run["finished_at"] is None
    assert run["git_commit"] == "abc" and run["git_dirty"] is True and run["seed"] == 42
    assert json.loads(run["host"]) == {"cpu_model": "test"}
    results.finish_run(run_id, "complete")
    run = results.run(run_id)
    assert run["status"] == "complete" and run["finished_at"] >= run["started_at"]


def test_a_killed_sitting_ends_at_its_last_cell_and_a_resumed_run_counts_only_its_sittings(
        results, monkeypatch):
    """A harness killed at 10:20 and noticed at 15:00 stopped at 10:20; the run resumed at
    16:00 and done at 16:45 measured for 65 minutes, not the 6 h 45 min from start to end."""
    import serbench.results as module
    from serbench.report.data import Run
    from serbench.report.provenance import run_facts

    def at(hour: int, minute: int) -> datetime:
        monkeypatch.setattr(module, "utc_now", lambda: datetime(2026, 1, 1, hour, minute))
        return datetime(2026, 1, 1, hour, minute)

    at(10, 0)
    begin(results, "cut")
    at(10, 20)
    results.add_cell("cut", cell(0), ok())
    results.flush()
    at(15, 0)
    results.con.execute("UPDATE runs SET params = json_merge_patch(params, ?)",
                        [json.dumps({"harness": {"pid": 0}})])  # its process is gone
    assert results.reap_orphans() == ["cut"]
    assert results.run("cut")["finished_at"] == at(10, 20), "not when it was noticed"
    results.resume_run("cut", {"started": "2026-01-01 16:00:00+00:00",
                               "git": {"commit": "def", "dirty": False}})
    at(16, 45)
    results.finish_run("cut", "complete")
    run = results.run("cut")
    params = json.loads(run["params"])
    assert sitting_spans(params, run["finished_at"]) == [(at(10, 0), at(10, 20)),
                                                          (at(16, 0), at(16, 45))]
    facts = dict(run_facts(Run("cut", "complete", run["started_at"], run["finished_at"], "p",
                               "", 1, "abc", False, {}, {}, {}, params), []).items)
    assert "measured in 2 sittings, 65.0 min in all" in facts["finished"]
    assert "0: 2026-01-01 10:00:00 UTC, 20.0 min; 1: 2026-01-01 16:00:00 UTC, 45.0 min" \
        in facts["finished"]
    assert facts["finished"].endswith("; harness: sitting 1 at def"), "another commit is named"


def test_a_sitting_killed_before_its_first_cell_ends_where_it_began():
    params = {"last_write": "2026-01-01 10:20:00",
              "sittings": [{"started": "2026-01-01 10:00:00", "ended": "2026-01-01 10:20:00"},
                           {"started": "2026-01-01 16:00:00+00:00"}]}
    assert killed_at(params) == datetime(2026, 1, 1, 16, 0)
    assert killed_at({}) is None
    assert sitting_spans({}, None) == []
    assert sitting_spans({"sittings": [{"started": "2026-01-01 10:00:00"}]}, None) == \
        [(datetime(2026, 1, 1, 10, 0), None)]


def test_run_ids_are_checked(results):
    begin(results, "same")
    with pytest.raises(ResultsError, match="already exists"):
        begin(results, "same")
    with pytest.raises(IdError, match="run id 'no spaces': letters, digits"):
        begin(results, "no spaces")


def test_cells_and_samples_and_the_view(results):
    run_id = begin(results)
    results.add_cell(run_id, cell(1), ok())
    results.add_cell(run_id, cell(2, depth="key"), CellResult("unsupported", message="no key"))
    results.add_cell(run_id, cell(3, n=7), CellResult("failed", "crash", "boom", "stderr tail"))
    results.finish_run(run_id, "complete")
    stored = results.cells(run_id)
    assert [c["status"] for c in stored] == ["ok", "unsupported", "failed"]
    assert stored[0]["expected_sum"] == stored[0]["got_sum"] == "00000000000000ff"
    assert json.loads(stored[0]["counters"]) == {"objects": 100}
    assert stored[2]["stderr"] == "stderr tail" and stored[2]["error_kind"] == "crash"
    rows = results.con.execute("SELECT cell_id, rep, warmup, total_ns, extra, run_status, "
                               "git_commit FROM sample_rows ORDER BY cell_id, warmup DESC, rep"
                               ).fetchall()
    assert [(r[0], r[1], r[2]) for r in rows] == [
        (1, 0, True), (1, 0, False), (1, 1, False), (2, None, None), (3, None, None)]
    assert json.loads(rows[1][4]) == {"per_thread_ns": [1, 2]} and rows[0][4] is None
    assert {r[5] for r in rows} == {"complete"} and {r[6] for r in rows} == {"abc"}


def test_samples_beyond_one_insert_are_all_stored_in_order(results):
    run_id = begin(results)
    many = samples(reps=2 * ROWS_PER_INSERT + 3, warmups=0)
    results.add_cell(run_id, cell(1), ok(samples=many))
    stored = results.con.execute("SELECT rep, total_ns FROM samples ORDER BY rep").fetchall()
    assert stored == [(s["rep"], s["total_ns"]) for s in many]


def test_only_ok_cells_keep_samples():
    with pytest.raises(ValueError, match="only ok cells"):
        CellResult("invalid", samples=samples())
    with pytest.raises(ValueError, match="bad cell status"):
        CellResult("fine")


def test_a_cell_is_stored_whole_or_not_at_all(results):
    run_id = begin(results)
    results.add_cell(run_id, cell(1), ok())
    duplicated = samples() + samples()[:1]  # the same (warmup, rep) twice: the insert fails
    results.add_cell(run_id, cell(2), ok(samples=duplicated))
    results.add_cell(run_id, cell(3), ok())
    with pytest.raises(duckdb.ConstraintException):
        results.flush()
    # the bad cell is stored not at all, the good ones of its batch whole
    assert [c["cell_id"] for c in results.cells(run_id)] == [1, 3]
    assert len(results.samples(run_id)) == 6
    results.add_cell(run_id, cell(2), ok())  # the connection is still usable
    assert len(results.samples(run_id)) == 9


def test_cells_are_written_in_batches_and_every_query_sees_them(results, monkeypatch):
    run_id = begin(results)
    monkeypatch.setattr("serbench.results.FLUSH_AFTER_CELLS", 3)
    written = lambda: results._con.execute("SELECT count(*) FROM cells").fetchone()[0]
    results.add_cell(run_id, cell(1), ok())
    results.add_cell(run_id, cell(2), ok())
    assert written() == 0  # pending: one transaction for the batch
    results.add_cell(run_id, cell(3), ok())
    assert written() == 3
    results.add_cell(run_id, cell(4), ok())
    assert len(results.cells(run_id)) == 4  # a query writes what is pending first
    monkeypatch.setattr("serbench.results.FLUSH_AFTER_S", 0.0)
    results.add_cell(run_id, cell(5), ok())
    assert written() == 5  # and a batch waits no longer than FLUSH_AFTER_S


def test_closing_writes_what_is_pending(tmp_path):
    with Results(tmp_path / "r.duckdb") as results:
        run_id = begin(results)
        results.add_cell(run_id, cell(1), ok())
    with Results(tmp_path / "r.duckdb", read_only=True) as results:
        assert len(results.cells(run_id)) == 1


@pytest.mark.parametrize("status", ["running", "interrupted", "failed"])
def test_incomplete_runs_are_refused_unless_allowed(results, status):
    run_id = begin(results)
    if status != "running":
        results.finish_run(run_id, status)
    with pytest.raises(ResultsError, match=f"is {status}, not complete"):
        results.require_run(run_id)
    assert results.require_run(run_id, allow_incomplete=True)["status"] == status
    assert results.latest_run() is None
    with pytest.raises(ResultsError, match="no run 'nope'"):
        results.require_run("nope")


def test_runs_listing(results):
    run_id = begin(results)
    results.add_cell(run_id, cell(1), ok())
    results.add_cell(run_id, cell(2, n=5), CellResult("failed", "hang", "slow"))
    results.finish_run(run_id, "complete")
    [row] = results.runs()
    assert (row["run_id"], row["status"], row["cells"], row["ok"]) == (run_id, "complete", 2, 1)
    assert results.latest_run() == run_id


def test_export_parquet_and_csv(results, tmp_path):
    done = begin(results, "done")
    results.add_cell(done, cell(1), ok())
    results.add_cell(done, cell(2, n=5), CellResult("invalid", "checksum_mismatch", "bad sum"))
    results.finish_run(done, "complete")
    partial = begin(results, "partial")
    results.add_cell(partial, cell(1), ok())

    exported = export_runs(results, tmp_path / "one.parquet", "parquet", (done,))
    assert (exported.rows, exported.cells, exported.runs) == (3, 2, 1)
    assert (exported.cells_file, exported.runs_file) == (tmp_path / "one.cells.parquet",
                                                         tmp_path / "one.runs.parquet")
    rows = duckdb.sql(f"SELECT run_id, cell_id, method, warmup, total_ns FROM "
                      f"read_parquet('{tmp_path / 'one.parquet'}')").fetchall()
    assert rows == [("done", 1, "handcoded", True, 900), ("done", 1, "handcoded", False, 1000),
                    ("done", 1, "handcoded", False, 1001)]

    exported = export_runs(results, tmp_path / "all.csv", "csv")  # complete runs only
    assert (exported.rows, exported.cells, exported.runs) == (3, 2, 1)
    samples, cells, runs = (csv_table(tmp_path / f"all{t}.csv") for t in ("", ".cells", ".runs"))
    # a sample's row: the identity to group by and its own times, nothing of its cell's results
    assert list(samples[0]) == ["run_id", "cell_id", "language", "task", "model", "method",
                                "depth", "variant", "setting", "dataset", "n", "threads",
                                "page_size", "cold", "rep", "warmup", "total_ns", "cpu_ns",
                                "io_ns", "extra"]
    # a cell once, the one without samples too; its stderr only where an import needs it
    assert [(c["cell_id"], c["status"], c["message"]) for c in cells] == [
        ("1", "ok", ""), ("2", "invalid", "bad sum")]
    assert json.loads(cells[0]["counters"]) == {"objects": 100} and "stderr" not in cells[0]
    # the run's provenance once, in the runs table
    assert [(r["run_id"], r["git_commit"]) for r in runs] == [("done", "abc")]
    exported = export_runs(results, tmp_path / "every.csv", "csv", allow_incomplete=True)
    assert (exported.rows, exported.cells, exported.runs) == (6, 3, 2)

    with pytest.raises(ResultsError, match="not complete"):
        export_runs(results, tmp_path / "p.csv", "csv", (partial,))
    with pytest.raises(ResultsError, match="unknown export format"):
        export_runs(results, tmp_path / "p.json", "json", (done,))


def csv_table(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def filled(db: Results, run_id: str, host: str) -> str:
    provenance = {**PROVENANCE, "host": {"hostname": host, "cpu_model": "test"}}
    db.begin_run(run_id, "default", f"# plan of {host}\n[[group]]", 42, provenance, {"pin": None})
    db.add_cell(run_id, cell(1), ok())
    db.add_cell(run_id, cell(2, n=5), CellResult("failed", "crash", "boom", "stderr tail"))
    db.add_cell(run_id, cell(3, depth="key"), CellResult("unsupported", message="no key"))
    db.finish_run(run_id, "complete", {"load_1m": 0.5})
    return run_id


def table(db: Results, name: str, run_id: str) -> list[tuple]:
    """A run's rows of one table, its run id left out (an import may rename it)."""
    cursor = db.con.execute(f"SELECT * EXCLUDE (run_id) FROM {name} WHERE run_id = ? "
                            f"ORDER BY ALL", [run_id])
    return cursor.fetchall()


def test_runs_of_two_machines_meet_in_one_database_whole(tmp_path):
    with Results(tmp_path / "a.duckdb") as a, Results(tmp_path / "b.duckdb") as b:
        filled(a, "run-1", "alpha")
        filled(b, "run-1", "beta")  # the same id on another machine
        filled(b, "run-2", "beta")
        assert export_runs(a, tmp_path / "a.parquet", "parquet").cells == 3
        assert export_runs(b, tmp_path / "b.parquet", "parquet",
                           ("run-1", "run-2")).rows == 2 * 3
        with Results(tmp_path / "merged.duckdb") as merged:
            first = import_runs(merged, tmp_path / "a.parquet")
            second = import_runs(merged, tmp_path / "b.parquet")
            assert [(r.run_id, r.stored_as, r.action, r.host) for r in first + second] == [
                ("run-1", "run-1", "imported", "alpha"),
                ("run-1", "run-1.2", "renamed", "beta"),
                ("run-2", "run-2", "imported", "beta")]
            for source, original, stored in ((a, "run-1", "run-1"), (b, "run-1", "run-1.2"),
                                             (b, "run-2", "run-2")):
                for name in ("runs", "cells", "samples"):
                    assert table(merged, name, stored) == table(source, name, original), name
            # importing again changes nothing
            again = import_runs(merged, tmp_path / "b.parquet")
            assert {r.action for r in again} == {"present"}
            assert len(merged.runs()) == 3


def test_a_file_that_is_not_a_serbench_export_is_refused(tmp_path, results):
    other = tmp_path / "other.parquet"
    duckdb.sql(f"COPY (SELECT 1 AS a) TO '{other}' (FORMAT parquet)")
    with pytest.raises(ResultsError, match="not a serbench export"):
        import_runs(results, other)
    text = tmp_path / "text.parquet"
    text.write_text("run_id,cell_id\n")
    with pytest.raises(ResultsError, match="not a Parquet file"):
        import_runs(results, text)
    with pytest.raises(ResultsError, match="no such file"):
        import_runs(results, tmp_path / "absent.parquet")
    assert results.runs() == []


def test_an_export_is_imported_only_whole(tmp_path):
    with Results(tmp_path / "a.duckdb") as a, Results(tmp_path / "b.duckdb") as b:
        export_runs(a, tmp_path / "a.parquet", "parquet", (filled(a, "run-1", "alpha"),))
        export_runs(a, tmp_path / "c.parquet", "parquet", (filled(a, "run-3", "alpha"),))
        # a table alone: the importer names the file to import
        for table in ("cells", "runs"):
            with pytest.raises(ResultsError, match=f"holds the {table} table of an export, not "
                                                   r"its samples table; import a\.parquet"):
                import_runs(b, tmp_path / f"a.{table}.parquet")
        # the samples table without a companion, or with another export's
        for table in ("cells", "runs"):
            mine, kept = tmp_path / f"a.{table}.parquet", tmp_path / f"kept.{table}"
            mine.rename(kept)
            with pytest.raises(ResultsError, match=rf"a\.{table}\.parquet: no such file; "
                                                   r"`serbench export` writes it beside "
                                                   r"a\.parquet, and an import reads all three"):
                import_runs(b, tmp_path / "a.parquet")
            (tmp_path / f"c.{table}.parquet").rename(mine)
            with pytest.raises(ResultsError, match=rf"a\.{table}\.parquet: the {table} table "
                                                   r"of another export than a\.parquet"):
                import_runs(b, tmp_path / "a.parquet")
            mine.rename(tmp_path / f"c.{table}.parquet")
            kept.rename(mine)
        # tables of one export id that disagree (written by hand): no run goes in
        rows = tmp_path / "a.parquet"
        duckdb.sql(f"COPY (SELECT * REPLACE ('bincode' AS method) FROM '{rows}') TO "
                   f"'{tmp_path / 'x.parquet'}' (FORMAT parquet, KV_METADATA "
                   f"{{{', '.join(f'{k}: {v!r}' for k, v in kv_metadata(rows).items())}}})")
        for table in ("cells", "runs"):
            (tmp_path / f"x.{table}.parquet").write_bytes(
                (tmp_path / f"a.{table}.parquet").read_bytes())
        with pytest.raises(ResultsError, match=r"samples whose cell is not in x\.cells\.parquet "
                                               r"as their rows say \(run run-1 cell 1\)"):
            import_runs(b, tmp_path / "x.parquet")
        assert import_runs(b, tmp_path / "a.parquet")[0].action == "imported"
        assert [r["run_id"] for r in b.runs()] == ["run-1"]
        # exports of the earlier formats: one table (1), the samples and runs pair (2)
        for version in ("1", "2"):
            old = tmp_path / f"old{version}.parquet"
            duckdb.sql(f"COPY (SELECT 1 AS a) TO '{old}' (FORMAT parquet, KV_METADATA "
                       f"{{serbench_export: '{version}', schema_version: '{SCHEMA_VERSION}'}})")
            with pytest.raises(ResultsError, match=f"a serbench export of format {version}, "
                                                   "this serbench reads format 3"):
                import_runs(b, old)


def kv_metadata(path: Path) -> dict[str, str]:
    return dict(duckdb.execute("SELECT key::VARCHAR, value::VARCHAR FROM "
                               "parquet_kv_metadata(?)", [str(path)]).fetchall())
