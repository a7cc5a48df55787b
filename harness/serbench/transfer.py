"""Results that travel between machines: `serbench export` writes runs as two tidy tables,
`serbench import` merges them into another results database.

An export is a pair of files of one format: FILE, a row per sample with its cell's columns and
its run's id (a cell without samples is one row with empty sample columns), and FILE's name
with `.runs` before its suffix (`a.parquet` -> `a.runs.parquet`), a row per run with its
provenance (host, toolchains, drivers, plan, parameters, machine state), written once. The
Parquet pair also carries each cell's stderr tail, so the runs, cells and samples tables can be
rebuilt from it exactly, and names itself in each file's key-value metadata (`serbench_export`,
the results schema version, `serbench_table`); `serbench import` reads that pair. CSV is for
spreadsheets and scripts and is not imported.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from .provenance import host_name
from .results import RUN_ID, SCHEMA_VERSION, Results, ResultsError

EXPORT_FORMAT = "2"  # 1: one table, every run's provenance repeated in each sample's row
FORMATS = ("parquet", "csv")
RUN_COLUMNS = ("run_id", "status", "started_at", "finished_at", "plan_name", "plan_toml", "seed",
               "git_commit", "git_dirty", "host", "toolchains", "drivers", "params", "machine")
CELL_COLUMNS = ("run_id", "cell_id", "language", "task", "model", "method", "depth", "variant",
                "setting", "dataset", "n", "threads", "page_size", "cold", "status",
                "error_kind", "message", "stderr", "expected_count", "expected_sum",
                "got_count", "got_sum", "eviction", "counters", "params", "steady",
                "steady_note")
SAMPLE_COLUMNS = ("run_id", "cell_id", "rep", "warmup", "total_ns", "cpu_ns", "io_ns", "extra")


@dataclass(frozen=True)
class Exported:
    rows: int  # of the samples table
    runs: int
    samples_file: Path
    runs_file: Path


def runs_file(samples_file: Path) -> Path:
    """The runs table beside the samples table: a.csv -> a.runs.csv."""
    return samples_file.with_name(f"{samples_file.stem}.runs{samples_file.suffix}")


def export_runs(results: Results, out: Path, fmt: str, run_ids: tuple[str, ...] = (),
                allow_incomplete: bool = False) -> Exported:
    """The runs named (default: every complete run, or every run) to the pair of tables."""
    if fmt not in FORMATS:
        raise ResultsError(f"unknown export format {fmt!r}; use parquet or csv")
    for run_id in run_ids:
        results.require_run(run_id, allow_incomplete)
    chosen = list(run_ids) or [r["run_id"] for r in results.runs()
                               if allow_incomplete or r["status"] == "complete"]
    out.parent.mkdir(parents=True, exist_ok=True)
    # the cell's stderr (up to 64 KiB each) only where an import needs it
    cells = [c for c in CELL_COLUMNS if fmt == "parquet" or c != "stderr"]
    columns = [f"c.{c}" for c in cells] + [f"s.{c}" for c in SAMPLE_COLUMNS[2:]]
    rows = _copy(results, f"SELECT {', '.join(columns)} FROM cells c LEFT JOIN samples s "
                          "ON s.run_id = c.run_id AND s.cell_id = c.cell_id WHERE c.run_id IN "
                          "(SELECT unnest(?)) ORDER BY c.run_id, c.cell_id, s.warmup DESC, s.rep",
                 chosen, out, fmt, "samples")
    runs = _copy(results, f"SELECT {', '.join(RUN_COLUMNS)} FROM runs WHERE run_id IN "
                          "(SELECT unnest(?)) ORDER BY started_at, run_id",
                 chosen, runs_file(out), fmt, "runs")
    return Exported(rows, runs, out, runs_file(out))


def _copy(results: Results, query: str, run_ids: list[str], out: Path, fmt: str,
          table: str) -> int:
    if fmt == "parquet":
        options = (f"FORMAT parquet, KV_METADATA {{serbench_export: '{EXPORT_FORMAT}', "
                   f"schema_version: '{SCHEMA_VERSION}', serbench_table: '{table}'}}")
    else:
        options = "FORMAT csv, HEADER"
    # COPY, not a relation's write_*: a relation with parameters is an open result on the
    # connection, and duckdb 2 refuses to write it out
    (rows,) = results.con.execute(f"COPY ({query}) TO ? ({options})",
                                  [run_ids, str(out)]).fetchone()
    return rows


@dataclass(frozen=True)
class Imported:
    run_id: str  # as in the file
    stored_as: str  # its id in this database
    action: str  # imported | renamed | present (the same run was already here)
    host: str


def import_runs(results: Results, path: Path) -> list[Imported]:
    """Every run of a Parquet export (`path`, the samples table, and its runs table beside
    it) into this database, each in one transaction: a run that is already here (same id,
    start and host) is left as it is; another run with the same id is stored under `<id>.<k>`,
    the smallest free k."""
    con = results.con
    _check_export(con, path, "samples")
    _check_export(con, runs_file(path), "runs", f"; `serbench export` writes it beside "
                                                f"{path.name}, and an import reads both")
    con.execute("CREATE OR REPLACE TEMP TABLE incoming AS SELECT * FROM read_parquet(?)",
                [str(path)])
    con.execute("CREATE OR REPLACE TEMP TABLE incoming_runs AS SELECT * FROM read_parquet(?)",
                [str(runs_file(path))])
    try:
        _check_pair(con, path)
        return [_import_run(results, run_id, started_at, host)
                for run_id, started_at, host in con.execute(
                    "SELECT run_id, started_at, host FROM incoming_runs ORDER BY started_at"
                ).fetchall()]
    finally:
        con.execute("DROP TABLE IF EXISTS incoming")
        con.execute("DROP TABLE IF EXISTS incoming_runs")


def _check_export(con, path: Path, table: str, missing: str = "") -> None:
    if not path.is_file():
        raise ResultsError(f"{path}: no such file{missing}")
    try:
        metadata = dict(con.execute(
            "SELECT key::VARCHAR, value::VARCHAR FROM parquet_kv_metadata(?)",
            [str(path)]).fetchall())
    except duckdb.Error as exc:
        raise ResultsError(f"{path}: not a Parquet file ({str(exc).splitlines()[0]})") from None
    version = metadata.get("serbench_export")
    if version is None:
        raise ResultsError(f"{path}: not a serbench export (`serbench export --format "
                           "parquet` writes one)")
    if version != EXPORT_FORMAT:
        raise ResultsError(f"{path}: a serbench export of format {version}, this serbench "
                           f"reads format {EXPORT_FORMAT}; import it with the serbench that "
                           "exported it")
    if metadata.get("schema_version") != SCHEMA_VERSION:
        raise ResultsError(f"{path}: exported with results schema "
                           f"{metadata.get('schema_version')}, this serbench stores "
                           f"{SCHEMA_VERSION}; import it with the serbench that exported it "
                           "into a database of that version")
    if metadata.get("serbench_table") != table:
        raise ResultsError(f"{path}: holds the {metadata.get('serbench_table')} table of an "
                           f"export, not its {table} table")


def _check_pair(con, path: Path) -> None:
    """Every run of the samples table has its provenance in the runs table."""
    orphans = [r for (r,) in con.execute(
        "SELECT DISTINCT run_id FROM incoming WHERE run_id NOT IN "
        "(SELECT run_id FROM incoming_runs) ORDER BY run_id").fetchall()]
    if orphans:
        raise ResultsError(f"{path}: runs {', '.join(orphans)} are not in "
                           f"{runs_file(path).name}: the two files are not one export")


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
        _insert(con, "runs", RUN_COLUMNS, stored, run_id, "", source="incoming_runs")
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
            condition: str, source: str = "incoming") -> None:
    con.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT DISTINCT ?, "
                f"{', '.join(columns[1:])} FROM {source} WHERE run_id = ? {condition}",
                [stored, run_id])


def _free_id(results: Results, run_id: str) -> str:
    for k in range(2, 10_000):
        candidate = f"{run_id[:60]}.{k}"
        if RUN_ID.match(candidate) and results.run(candidate) is None:
            return candidate
    raise ResultsError(f"no free run id for {run_id}")
