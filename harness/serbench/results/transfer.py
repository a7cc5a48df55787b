"""Results that travel between machines: `serbench export` writes runs as three tidy tables,
`serbench import` merges them into another results database.

An export is a triple of files of one format, each a table written at its own level: FILE, a
row per sample (its run and cell ids, the cell's identity columns to group by, and the
sample's own columns); FILE's name with `.cells` before its suffix (`a.parquet` ->
`a.cells.parquet`), a row per cell (its status, checksums, counters, request parameters,
steady-state verdict; a cell without samples appears only here); and with `.runs` before its
suffix (`a.runs.parquet`), a row per run with its provenance (host, toolchains, drivers, plan,
parameters, machine state). The Parquet triple also carries each cell's stderr tail, so the
runs, cells and samples tables are rebuilt from it exactly, and names itself in each file's
key-value metadata (`serbench_export`, the results schema version, `serbench_table`, and one
`serbench_export_id` shared by the three files of one export); `serbench import` reads that
triple. CSV is for spreadsheets and scripts and is not imported.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path

import duckdb

from ..cell import IDENTITY
from ..ids import id_problem, shown
from ..provenance import host_name
from . import CELL_STATUSES, RUN_STATUSES, SCHEMA_VERSION, Results, ResultsError


# 1: one table, every run's provenance repeated in each sample's row; 2: samples with every
# column of their cell, and runs
EXPORT_FORMAT = "3"
FORMATS = ("parquet", "csv")
TABLES = ("samples", "cells", "runs")
RUN_COLUMNS = ("run_id", "status", "started_at", "finished_at", "plan_name", "plan_toml", "seed",
               "git_commit", "git_dirty", "host", "toolchains", "drivers", "params", "machine")
CELL_COLUMNS = ("run_id", "cell_id", *IDENTITY, "status", "error_kind", "message", "stderr",
                "expected_count", "expected_sum", "got_count", "got_sum", "eviction",
                "counters", "params", "steady", "steady_note")
SAMPLE_COLUMNS = ("run_id", "cell_id", "rep", "warmup", "total_ns", "cpu_ns", "io_ns", "extra")
# a sample's row carries its cell's identity, so it can be grouped without a join
SAMPLE_EXPORT_COLUMNS = ("run_id", "cell_id", *IDENTITY, *SAMPLE_COLUMNS[2:])


@dataclass(frozen=True)
class Exported:
    rows: int  # of the samples table
    cells: int
    runs: int
    samples_file: Path
    cells_file: Path
    runs_file: Path


def companion(samples_file: Path, table: str) -> Path:
    """A table of the export beside its samples table: a.csv -> a.cells.csv, a.runs.csv."""
    if table == "samples":
        return samples_file
    return samples_file.with_name(f"{samples_file.stem}.{table}{samples_file.suffix}")


def export_runs(results: Results, out: Path, fmt: str, run_ids: tuple[str, ...] = (),
                allow_incomplete: bool = False) -> Exported:
    """The runs named (default: every complete run, or every run) to the three tables."""
    if fmt not in FORMATS:
        raise ResultsError(f"unknown export format {fmt!r}; use parquet or csv")
    for run_id in run_ids:
        results.require_run(run_id, allow_incomplete)
    chosen = list(run_ids) or [r["run_id"] for r in results.runs()
                               if allow_incomplete or r["status"] == "complete"]
    out.parent.mkdir(parents=True, exist_ok=True)
    export_id = uuid.uuid4().hex  # ties the three files of this export together
    identity = ", ".join(f"c.{c}" for c in SAMPLE_EXPORT_COLUMNS[:2 + len(IDENTITY)])
    sample = ", ".join(f"s.{c}" for c in SAMPLE_COLUMNS[2:])
    rows = _copy(results, f"SELECT {identity}, {sample} FROM samples s JOIN cells c "
                          "ON c.run_id = s.run_id AND c.cell_id = s.cell_id WHERE s.run_id IN "
                          "(SELECT unnest(?)) ORDER BY s.run_id, s.cell_id, s.warmup DESC, s.rep",
                 chosen, out, fmt, "samples", export_id)
    # the cell's stderr (up to 64 KiB each) only where an import needs it
    cells = [c for c in CELL_COLUMNS if fmt == "parquet" or c != "stderr"]
    cell_rows = _copy(results, f"SELECT {', '.join(cells)} FROM cells WHERE run_id IN "
                               "(SELECT unnest(?)) ORDER BY run_id, cell_id",
                      chosen, companion(out, "cells"), fmt, "cells", export_id)
    runs = _copy(results, f"SELECT {', '.join(RUN_COLUMNS)} FROM runs WHERE run_id IN "
                          "(SELECT unnest(?)) ORDER BY started_at, run_id",
                 chosen, companion(out, "runs"), fmt, "runs", export_id)
    return Exported(rows, cell_rows, runs, out, companion(out, "cells"), companion(out, "runs"))


def _copy(results: Results, query: str, run_ids: list[str], out: Path, fmt: str,
          table: str, export_id: str) -> int:
    if fmt == "parquet":
        # zstd: a default run's samples table in 0.45 MB rather than snappy's 0.73 MB; every
        # Parquet reader in use (duckdb, arrow, polars, pandas, spark) reads it
        options = (f"FORMAT parquet, COMPRESSION zstd, "
                   f"KV_METADATA {{serbench_export: '{EXPORT_FORMAT}', "
                   f"schema_version: '{SCHEMA_VERSION}', serbench_table: '{table}', "
                   f"serbench_export_id: '{export_id}'}}")
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
    """Every run of a Parquet export (`path`, the samples table, and its cells and runs
    tables beside it) into this database, each in one transaction: a run that is already here
    (same id, start and host) is left as it is; another run with the same id is stored under
    `<id>.<k>`, the smallest free k. The files come from anywhere: the whole export is checked
    before anything is written (`_problems`), and refused naming each problem."""
    con = results.con
    export_id = _check_export(con, path, "samples")
    for table in TABLES[1:]:
        other = companion(path, table)
        if _check_export(con, other, table, f"; `serbench export` writes it beside "
                                            f"{path.name}, and an import reads all three "
                                            "tables") != export_id:
            raise ResultsError(f"{other}: the {table} table of another export than "
                               f"{path.name}; the three files of one `serbench export` "
                               "belong together")
    try:
        for table in TABLES:
            _load(con, companion(path, table), table)
        problems = _problems(con, path)
        if problems:
            shown = problems[:MAX_PROBLEMS]
            more = len(problems) - len(shown)
            raise ResultsError(
                f"{path}: not imported, the export is not as `serbench export` writes it:\n"
                + "\n".join(f"  {problem}" for problem in shown)
                + (f"\n  and {more} more" if more else ""))
        _check_triple(con, path)
        return [_import_run(results, path, run_id, started_at, host)
                for run_id, started_at, host in con.execute(
                    "SELECT run_id, started_at, host FROM incoming_runs ORDER BY started_at"
                ).fetchall()]
    finally:
        for table in TABLES:
            con.execute(f"DROP TABLE IF EXISTS incoming_{table}")


# how many problems an import refusal lists (each table's checks stop at a few rows each)
MAX_PROBLEMS = 20
ROWS_SHOWN = 3
# the primary key of each table as stored (results.py), in the export's column names
KEYS = {"runs": ("run_id",), "cells": ("run_id", "cell_id"),
        "samples": ("run_id", "cell_id", "warmup", "rep")}


def _load(con, path: Path, table: str) -> None:
    """The file into a temporary table, each row with its number in the file."""
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE incoming_{table} AS "
                    "SELECT * FROM read_parquet(?, file_row_number = true)", [str(path)])
    except duckdb.Error as exc:
        raise ResultsError(f"{path}: the {table} table cannot be read, the file is damaged "
                           f"({str(exc).splitlines()[0]}); not imported: export it "
                           "again") from None


def _expected_columns(con, table: str) -> dict[str, tuple[str, bool]]:
    """An export table's columns as this database stores them: name -> (type, nullable)."""
    stored = {}
    for name, kind, nullable in con.execute(
            "SELECT table_name || '.' || column_name, data_type, is_nullable = 'YES' FROM "
            "information_schema.columns WHERE table_catalog = current_database() AND "
            "table_schema = 'main' AND table_name IN ('runs', 'cells', 'samples')").fetchall():
        stored[name] = (kind, nullable)
    if table == "samples":
        source = {c: "samples" if c in SAMPLE_COLUMNS else "cells" for c in SAMPLE_EXPORT_COLUMNS}
        return {c: stored[f"{source[c]}.{c}"] for c in SAMPLE_EXPORT_COLUMNS}
    columns = RUN_COLUMNS if table == "runs" else CELL_COLUMNS
    return {c: stored[f"{table}.{c}"] for c in columns}


def _problems(con, path: Path) -> list[str]:
    """Everything that stops the export from being stored as it is, one line per problem
    naming the file, the row and what is wrong; the columns first (the rest reads them)."""
    problems = []
    for table in TABLES:
        problems += _column_problems(con, companion(path, table), table)
    if problems:
        return problems
    for table in TABLES:
        problems += _row_problems(con, companion(path, table), table)
    if not problems and not con.execute("SELECT count(*) FROM incoming_runs").fetchone()[0]:
        problems.append(f"{companion(path, 'runs').name} (runs table): no runs: nothing to "
                        "import")
    return problems


def _column_problems(con, file: Path, table: str) -> list[str]:
    found = dict(con.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_catalog = "
        "'temp' AND table_name = ? AND column_name != 'file_row_number'",
        [f"incoming_{table}"]).fetchall())
    where, problems = f"{file.name} ({table} table)", []
    expected = _expected_columns(con, table)
    for column, (kind, _) in expected.items():
        if column not in found:
            problems.append(f"{where}: no column {column} ({kind})")
        elif found[column] != kind:
            problems.append(f"{where}: column {column} is {found[column]}, an export's is {kind}")
    problems += [f"{where}: column {column}, which no export has" for column in found
                 if column not in expected]
    return problems


def _row_problems(con, file: Path, table: str) -> list[str]:
    """Each rule as a query for the numbers of the rows that break it."""
    columns = _expected_columns(con, table)
    rules = [(f"{column} IS NULL", f"{column} is empty (NULL)")
             for column, (_, nullable) in columns.items() if not nullable]
    rules += [(f"{column} IS NOT NULL AND NOT json_valid({column}::VARCHAR)",
               f"{column} is not JSON") for column, (kind, _) in columns.items()
              if kind == "JSON"]
    rules += {
        "runs": [(f"status NOT IN {_sql_list(RUN_STATUSES[1:])}",
                  f"status is not one of {', '.join(RUN_STATUSES[1:])} (a run is exported "
                  "once it has ended)"),
                 ("finished_at < started_at", "finished before it started")],
        "cells": [(f"status NOT IN {_sql_list(CELL_STATUSES)}",
                   f"status is not one of {', '.join(CELL_STATUSES)}"),
                  ("n < 0 OR threads < 1 OR page_size < 1 OR expected_count < 0 "
                   "OR got_count < 0", "a negative count, or no thread or page size")],
        "samples": [("rep < 0 OR total_ns < 0 OR cpu_ns < 0 OR io_ns < 0",
                     "a negative repetition or time"),
                    ("EXISTS (SELECT 1 FROM incoming_cells c WHERE c.run_id = "
                     "incoming_samples.run_id AND c.cell_id = incoming_samples.cell_id AND "
                     "c.status != 'ok')", "a sample of a cell that is not ok (only ok cells "
                                          "keep samples)")],
    }[table]
    key = ", ".join(KEYS[table])
    named = key if len(KEYS[table]) == 1 else f"({key})"
    rules.append((f"count(*) OVER (PARTITION BY {key}) > 1", f"{named} is not unique: the "
                                                             "same row twice"))
    problems = []
    for condition, what in rules:
        rows = [r for (r,) in con.execute(
            f"SELECT file_row_number + 1 FROM (SELECT *, {condition} AS broken FROM "
            f"incoming_{table}) WHERE broken ORDER BY 1 LIMIT {ROWS_SHOWN + 1}").fetchall()]
        if rows:
            problems.append(f"{file.name} ({table} table): {_rows(rows)}: {what}")
    return problems + _id_problems(con, file, table)


def _id_problems(con, file: Path, table: str) -> list[str]:
    """Ids that would name a directory (a run's files, its report) or a host: the rule every
    id serbench takes follows (ids.py)."""
    checks = [("run_id", "run id")]
    if table == "runs":  # where the host is JSON (else its own problem is named)
        checks.append(("CASE WHEN json_valid(host::VARCHAR) THEN host->>'hostname' END",
                       "host name"))
    if table == "cells":
        checks.append(("dataset", "dataset name"))
    problems = []
    for expression, kind in checks:
        for value, row in con.execute(
                f"SELECT {expression} AS v, min(file_row_number) + 1 FROM incoming_{table} "
                "WHERE v IS NOT NULL GROUP BY v ORDER BY 2").fetchall():
            problem = id_problem(kind, value)
            if problem:
                problems.append(f"{file.name} ({table} table): row {row}: {kind} "
                                f"{shown(value)}: {problem}")
    return problems


def _rows(numbers: list[int]) -> str:
    listed = ", ".join(map(str, numbers[:ROWS_SHOWN]))
    more = " and more" if len(numbers) > ROWS_SHOWN else ""
    return f"row{'s' * (len(numbers) > 1)} {listed}{more}"


def _sql_list(values: tuple[str, ...]) -> str:
    return "(" + ", ".join(f"'{value}'" for value in values) + ")"


def _check_export(con, path: Path, table: str, missing: str = "") -> str:
    """The export id of a table of a Parquet export of this format."""
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
    held = metadata.get("serbench_table")
    if held != table:
        hint = ""
        if table == "samples" and path.stem.endswith(f".{held}"):
            samples = path.with_name(path.stem.removesuffix(f".{held}") + path.suffix)
            hint = f"; import {samples.name}, and its cells and runs tables are read beside it"
        raise ResultsError(f"{path}: holds the {held} table of an export, not its {table} "
                           f"table{hint}")
    export_id = metadata.get("serbench_export_id", "")
    problem = id_problem("export id", export_id)
    if problem:
        raise ResultsError(f"{path}: export id {shown(export_id)}: {problem}; not imported")
    return export_id


def _check_triple(con, path: Path) -> None:
    """Each sample's cell is in the cells table, with the identity its row repeats, once; each
    cell's run is in the runs table."""
    same = " AND ".join(f"s.{c} IS NOT DISTINCT FROM c.{c}" for c in IDENTITY)
    problems = [
        ("SELECT DISTINCT s.run_id || ' cell ' || s.cell_id FROM incoming_samples s "
         "LEFT JOIN incoming_cells c ON c.run_id = s.run_id AND c.cell_id = s.cell_id "
         f"WHERE c.cell_id IS NULL OR NOT ({same})",
         "samples whose cell is not in {cells} as their rows say"),
        ("SELECT run_id || ' cell ' || cell_id FROM incoming_cells GROUP BY ALL "
         "HAVING count(*) > 1", "cells that {cells} holds more than once"),
        ("SELECT DISTINCT run_id FROM incoming_cells WHERE run_id NOT IN "
         "(SELECT run_id FROM incoming_runs)", "cells of runs not in {runs}")]
    for query, what in problems:
        found = [r for (r,) in con.execute(f"{query} ORDER BY 1 LIMIT 4").fetchall()]
        if found:
            what = what.format(cells=companion(path, "cells").name,
                               runs=companion(path, "runs").name)
            raise ResultsError(f"{path}: {what} (run {', '.join(found)}); the three files are "
                               "not one export; not imported")


def _import_run(results: Results, path: Path, run_id: str, started_at, host: str) -> Imported:
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
        for table, columns in (("runs", RUN_COLUMNS), ("cells", CELL_COLUMNS),
                               ("samples", SAMPLE_COLUMNS)):
            con.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT ?, "
                        f"{', '.join(columns[1:])} FROM incoming_{table} WHERE run_id = ?",
                        [stored, run_id])
        con.execute("COMMIT")
    except duckdb.Error as exc:  # what the checks did not foresee: refused all the same
        con.execute("ROLLBACK")
        raise ResultsError(f"{path}: run {run_id} not imported: the database refused it "
                           f"({str(exc).splitlines()[0]})") from None
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return Imported(run_id, stored, "imported" if stored == run_id else "renamed",
                    host_name(host))


def _free_id(results: Results, run_id: str) -> str:
    for k in range(2, 10_000):
        candidate = f"{run_id[:60]}.{k}"
        if id_problem("run id", candidate) is None and results.run(candidate) is None:
            return candidate
    raise ResultsError(f"no free run id for {run_id}")
