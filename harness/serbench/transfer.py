"""Results that travel between machines: `serbench export` writes runs to one self-describing
file, `serbench import` merges such a file into another results database.

The file is one table, `sample_rows` (a row per sample, its cell and run joined in; a cell
without samples is one row with empty sample columns) plus each run's plan text and each
cell's stderr tail, so the runs, cells and samples tables can be rebuilt from it exactly. A
Parquet export names itself in its key-value metadata (`serbench_export`, the results schema
version); CSV is for spreadsheets and is not imported.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from .provenance import host_name
from .results import RUN_ID, SCHEMA_VERSION, Results, ResultsError

EXPORT_FORMAT = "1"
RUN_COLUMNS = ("run_id", "status", "started_at", "finished_at", "plan_name", "plan_toml", "seed",
               "git_commit", "git_dirty", "host", "toolchains", "drivers", "params", "machine")
# the same columns as they are named in the export (sample_rows renames two)
EXPORTED_RUN_COLUMNS = tuple({"status": "run_status", "params": "run_params"}.get(c, c)
                             for c in RUN_COLUMNS)
CELL_COLUMNS = ("run_id", "cell_id", "language", "task", "model", "method", "depth", "variant",
                "setting", "dataset", "n", "threads", "page_size", "cold", "status",
                "error_kind", "message", "stderr", "expected_count", "expected_sum",
                "got_count", "got_sum", "eviction", "counters", "params", "steady",
                "steady_note")
SAMPLE_COLUMNS = ("run_id", "cell_id", "rep", "warmup", "total_ns", "cpu_ns", "io_ns", "extra")


def export_runs(results: Results, out: Path, fmt: str, run_ids: tuple[str, ...] = (),
                allow_incomplete: bool = False) -> int:
    """The runs named (default: every complete run, or every run) to Parquet or CSV; returns
    the number of rows written."""
    if fmt not in ("parquet", "csv"):
        raise ResultsError(f"unknown export format {fmt!r}; use parquet or csv")
    for run_id in run_ids:
        results.require_run(run_id, allow_incomplete)
    if run_ids:
        where, params = f"WHERE s.run_id IN ({', '.join('?' * len(run_ids))})", list(run_ids)
    else:
        where, params = ("", []) if allow_incomplete else ("WHERE s.run_status = 'complete'", [])
    if fmt == "parquet":
        extra = ", r.plan_toml, c.stderr"
        options = (f"FORMAT parquet, KV_METADATA {{serbench_export: '{EXPORT_FORMAT}', "
                   f"schema_version: '{SCHEMA_VERSION}'}}")
    else:
        extra, options = "", "FORMAT csv, HEADER"
    out.parent.mkdir(parents=True, exist_ok=True)
    # COPY, not a relation's write_*: a relation with parameters is an open result on the
    # connection, and duckdb 2 refuses to write it out
    (rows,) = results.con.execute(
        f"COPY (SELECT s.*{extra} FROM sample_rows s "
        f"JOIN runs r ON r.run_id = s.run_id "
        f"JOIN cells c ON c.run_id = s.run_id AND c.cell_id = s.cell_id {where} "
        f"ORDER BY s.run_id, s.cell_id, s.warmup DESC, s.rep) TO ? ({options})",
        [*params, str(out)]).fetchone()
    return rows


@dataclass(frozen=True)
class Imported:
    run_id: str  # as in the file
    stored_as: str  # its id in this database
    action: str  # imported | renamed | present (the same run was already here)
    host: str


def import_runs(results: Results, path: Path) -> list[Imported]:
    """Every run of a Parquet export into this database, each in one transaction: a run that
    is already here (same id, start and host) is left as it is; another run with the same id
    is stored under `<id>.<k>`, the smallest free k."""
    con = results.con
    _check_export(con, path)
    con.execute("CREATE OR REPLACE TEMP TABLE incoming AS SELECT * FROM read_parquet(?)",
                [str(path)])
    try:
        done = []
        for run_id, started_at, host in con.execute(
                "SELECT DISTINCT run_id, started_at, host FROM incoming ORDER BY started_at"
        ).fetchall():
            done.append(_import_run(results, run_id, started_at, host))
        return done
    finally:
        con.execute("DROP TABLE IF EXISTS incoming")


def _check_export(con, path: Path) -> None:
    if not path.is_file():
        raise ResultsError(f"{path}: no such file")
    try:
        metadata = dict(con.execute(
            "SELECT key::VARCHAR, value::VARCHAR FROM parquet_kv_metadata(?)",
            [str(path)]).fetchall())
    except duckdb.Error as exc:
        raise ResultsError(f"{path}: not a Parquet file ({str(exc).splitlines()[0]})") from None
    if metadata.get("serbench_export") != EXPORT_FORMAT:
        raise ResultsError(f"{path}: not a serbench export (`serbench export --format "
                           "parquet` writes one)")
    if metadata.get("schema_version") != SCHEMA_VERSION:
        raise ResultsError(f"{path}: exported with results schema "
                           f"{metadata.get('schema_version')}, this serbench stores "
                           f"{SCHEMA_VERSION}; import it with the serbench that exported it "
                           "into a database of that version")


def _import_run(results: Results, run_id: str, started_at, host: str) -> Imported:
    con = results.con
    # the same run (its id or a renamed copy of it, the same start on the same host)
    same = con.execute("SELECT run_id FROM runs WHERE (run_id = ? OR starts_with(run_id, ?)) "
                       "AND started_at = ? AND host = ?",
                       [run_id, f"{run_id[:60]}.", started_at, host]).fetchone()
    if same is not None:
        return Imported(run_id, same[0], "present", host_name(host))
    stored = run_id if results.run(run_id) is None else _free_id(results, run_id)
    con.execute("BEGIN")
    try:
        con.execute(f"INSERT INTO runs ({', '.join(RUN_COLUMNS)}) SELECT DISTINCT ?, "
                    f"{', '.join(EXPORTED_RUN_COLUMNS[1:])} FROM incoming WHERE run_id = ?",
                    [stored, run_id])
        _insert(con, "cells", CELL_COLUMNS, stored, run_id, "")
        _insert(con, "samples", SAMPLE_COLUMNS, stored, run_id, "AND rep IS NOT NULL")
        cells, = con.execute("SELECT count(DISTINCT cell_id) FROM incoming WHERE run_id = ?",
                             [run_id]).fetchone()
        kept, = con.execute("SELECT count(*) FROM cells WHERE run_id = ?", [stored]).fetchone()
        if kept != cells:
            raise ResultsError(f"run {run_id}: the file's rows of one cell disagree "
                               f"({cells} cells, {kept} distinct cell rows); not imported")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return Imported(run_id, stored, "imported" if stored == run_id else "renamed",
                    host_name(host))


def _insert(con, table: str, columns: tuple[str, ...], stored: str, run_id: str,
            condition: str) -> None:
    con.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT DISTINCT ?, "
                f"{', '.join(columns[1:])} FROM incoming WHERE run_id = ? {condition}",
                [stored, run_id])


def _free_id(results: Results, run_id: str) -> str:
    for k in range(2, 10_000):
        candidate = f"{run_id[:60]}.{k}"
        if RUN_ID.match(candidate) and results.run(candidate) is None:
            return candidate
    raise ResultsError(f"no free run id for {run_id}")
