"""The results database: DuckDB at `$SERBENCH_HOME/results.duckdb` (docs/results-schema.md).

Schema version 3 (2 lacked the steady-state verdict and the machine's state, and is upgraded
in place on open; 1 lacked `cells.setting` and is refused):

- `meta(key, value)`: `schema_version`.
- `runs`: one row per `serbench run`, with its status (`running`, `complete`, `failed`,
  `interrupted`), provenance (host, toolchains, drivers' info, git, seed, parameters) and the
  machine's state before and after (load, frequency governor, other busy processes).
- `cells`: one row per cell of a run: identity (language, task, model, method, depth, variant,
  setting, dataset, n, threads, page_size, cold), status (`ok`, `invalid`, `failed`, `unsupported`),
  the error if any, expected and measured checksums, eviction used, counters, the request
  parameters as sent, and whether its measured repetitions ran at steady state (`steady`:
  true, false or NULL when it could not be judged; `steady_note` says why, see steady.py).
- `samples`: one row per repetition of a cell (warm-ups included, flagged), times in ns.
- view `sample_rows`: samples with their cell and run joined in; a cell without samples
  appears once with NULL sample columns.

Atomicity: a run is inserted `running`, cells with their samples are written whole, a few at a
time in one transaction (at most FLUSH_AFTER_S apart, and before any query through `con`), and
the run becomes `complete` only at the end. A harness killed mid-run leaves `running`; the run
records its harness process (`params.harness`), and the next serbench command that finds that
process gone marks the run `interrupted` and removes its leftover files (`reap_orphans`).
Only `ok` cells have samples, and a cell is `ok` only when its checksum and count matched
the expectation.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from ..cell import Cell
from ..ids import IdError, checked
from ..paths import home, run_files


SCHEMA_VERSION = "3"
RUN_STATUSES = ("running", "complete", "failed", "interrupted")
CELL_STATUSES = ("ok", "invalid", "failed", "unsupported")
SAMPLE_KEYS = ("rep", "warmup", "total_ns", "cpu_ns", "io_ns")
ROWS_PER_INSERT = 1000
FLUSH_AFTER_CELLS = 200
FLUSH_AFTER_S = 5.0

# a run's last stored cell: where a sitting whose harness was killed ended (`killed_at`)
LAST_WRITE = ("UPDATE runs SET params = json_merge_patch(coalesce(params, '{}'), ?) "
              "WHERE run_id = ?")

SAMPLE_ROWS_VIEW = """
CREATE OR REPLACE VIEW sample_rows AS
SELECT r.run_id, r.status AS run_status, r.started_at, r.finished_at, r.plan_name, r.seed,
       r.git_commit, r.git_dirty, r.host, r.toolchains, r.drivers, r.params AS run_params,
       r.machine, c.cell_id, c.language, c.task, c.model, c.method, c.depth, c.variant,
       c.setting, c.dataset, c.n,
       c.threads, c.page_size, c.cold, c.status, c.error_kind, c.message, c.expected_count,
       c.expected_sum, c.got_count, c.got_sum, c.eviction, c.counters, c.params,
       c.steady, c.steady_note,
       s.rep, s.warmup, s.total_ns, s.cpu_ns, s.io_ns, s.extra
FROM cells c
JOIN runs r ON r.run_id = c.run_id
LEFT JOIN samples s ON s.run_id = c.run_id AND s.cell_id = c.cell_id;
"""
# version 2 -> 3: the columns version 3 added, at the end as CREATE TABLE puts them
UPGRADE_2_TO_3 = """
ALTER TABLE runs ADD COLUMN machine JSON;
ALTER TABLE cells ADD COLUMN steady BOOLEAN;
ALTER TABLE cells ADD COLUMN steady_note VARCHAR;
UPDATE meta SET value = '3' WHERE key = 'schema_version';
"""

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id VARCHAR PRIMARY KEY,
    status VARCHAR NOT NULL,            -- running | complete | failed | interrupted
    started_at TIMESTAMP NOT NULL,      -- UTC
    finished_at TIMESTAMP,              -- UTC; NULL while running
    plan_name VARCHAR,
    plan_toml VARCHAR,
    seed BIGINT,
    git_commit VARCHAR,
    git_dirty BOOLEAN,
    host JSON,
    toolchains JSON,
    drivers JSON,
    params JSON,
    machine JSON                        -- {"before": {...}, "after": {...}}, provenance.py
);
CREATE TABLE IF NOT EXISTS cells (
    run_id VARCHAR NOT NULL,
    cell_id INTEGER NOT NULL,
    language VARCHAR NOT NULL,
    task VARCHAR NOT NULL,
    model VARCHAR NOT NULL,
    method VARCHAR NOT NULL,
    depth VARCHAR NOT NULL,             -- '' for write and raw
    variant VARCHAR NOT NULL,           -- '' = default; for raw: the method whose file is read
    setting VARCHAR NOT NULL,           -- the task's own setting, e.g. 'mode=seq'; '' if none
    dataset VARCHAR NOT NULL,
    n BIGINT NOT NULL,
    threads INTEGER NOT NULL,
    page_size INTEGER NOT NULL,
    cold BOOLEAN NOT NULL,
    status VARCHAR NOT NULL,            -- ok | invalid | failed | unsupported
    error_kind VARCHAR,
    message VARCHAR,
    stderr VARCHAR,
    expected_count BIGINT,
    expected_sum VARCHAR,
    got_count BIGINT,
    got_sum VARCHAR,
    eviction VARCHAR,
    counters JSON,
    params JSON,
    steady BOOLEAN,                     -- NULL: not judged (too few repetitions, no JIT figure)
    steady_note VARCHAR,
    PRIMARY KEY (run_id, cell_id)
);
CREATE TABLE IF NOT EXISTS samples (
    run_id VARCHAR NOT NULL,
    cell_id INTEGER NOT NULL,
    rep INTEGER NOT NULL,
    warmup BOOLEAN NOT NULL,
    total_ns BIGINT NOT NULL,
    cpu_ns BIGINT NOT NULL,
    io_ns BIGINT NOT NULL,
    extra JSON,
    PRIMARY KEY (run_id, cell_id, warmup, rep)
);
"""


class ResultsError(RuntimeError):
    pass


def db_path() -> Path:
    return home() / "results.duckdb"


def utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def new_run_id() -> str:
    return utc_now().strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


@dataclass
class CellResult:
    """What the runner concluded about one cell."""

    status: str
    error_kind: str | None = None
    message: str | None = None
    stderr: str | None = None
    expected: dict | None = None  # {"count": int, "sum": "16 hex"}
    got: dict | None = None
    eviction: str | None = None
    counters: dict | None = None
    params: dict | None = None
    samples: list[dict] = field(default_factory=list)
    steady: bool | None = None  # judged from the samples (steady.py) when the cell is ok
    steady_note: str | None = None

    def __post_init__(self):
        if self.status not in CELL_STATUSES:
            raise ValueError(f"bad cell status {self.status!r}")
        if self.status != "ok" and self.samples:
            raise ValueError("only ok cells keep samples: other numbers must never be plotted")


class Results:
    """One connection to the results database, schema created or checked on open."""

    def __init__(self, path: Path | None = None, read_only: bool = False):
        self.path = Path(path) if path else db_path()
        if read_only and not self.path.exists():
            raise ResultsError(f"{self.path}: no results yet; run `serbench run` first")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.IOException as exc:
            raise ResultsError(f"{self.path}: cannot open the results database (another "
                               f"serbench process may be using it): {exc}") from None
        self._pending_cells: list[tuple] = []
        self._pending_samples: list[tuple] = []
        self._pending_since: float | None = None
        self._check_schema(read_only)

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The connection, every cell added so far written first: whoever queries sees them."""
        self.flush()
        return self._con

    def _check_schema(self, read_only: bool) -> None:
        has_meta = self.con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'meta'"
        ).fetchone()[0]
        if has_meta:
            row = self.con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if row is not None and row[0] == "2" and not read_only:
                self._upgrade_from_2()
                return
            if row is None or row[0] != SCHEMA_VERSION:
                raise ResultsError(f"{self.path}: results schema version "
                                   f"{row[0] if row else 'unknown'}, this serbench reads "
                                   f"version {SCHEMA_VERSION}; move the file away to start anew")
            return
        if read_only:
            raise ResultsError(f"{self.path}: not a serbench results database")
        self.con.execute("BEGIN")
        self.con.execute(SCHEMA)
        self.con.execute(SAMPLE_ROWS_VIEW)
        self.con.execute("INSERT INTO meta VALUES ('schema_version', ?)", [SCHEMA_VERSION])
        self.con.execute("COMMIT")

    def _upgrade_from_2(self) -> None:
        """Version 2 lacked the steady-state columns and the machine's state: added as NULL
        (not judged, not recorded), so older runs stay readable."""
        self.con.execute("BEGIN")
        self.con.execute(UPGRADE_2_TO_3)
        self.con.execute(SAMPLE_ROWS_VIEW)
        self.con.execute("COMMIT")

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._con.close()

    def __enter__(self) -> "Results":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------------

    def begin_run(self, run_id: str, plan_name: str, plan_toml: str, seed: int,
                  provenance: dict, params: dict, machine: dict | None = None) -> None:
        run_id = checked("run id", run_id)
        if self.run(run_id) is not None:
            raise ResultsError(f"run {run_id} already exists in {self.path}")
        git = provenance.get("git", {})
        self.con.execute(
            "INSERT INTO runs VALUES (?, 'running', ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [run_id, utc_now(), plan_name, plan_toml, seed, git.get("commit"), git.get("dirty"),
             _json(provenance.get("host")), _json(provenance.get("toolchains")),
             _json(provenance.get("drivers")), _json({**params, "harness": this_process()}),
             _json(None if machine is None else {"before": machine})])

    def add_cell(self, run_id: str, cell: Cell, result: CellResult) -> None:
        """The cell and its samples, stored whole or not at all: kept in memory and written
        with the cells before and after it in one transaction (`flush`), at most
        FLUSH_AFTER_S later, since DuckDB spends ~5 ms per statement and commit, ~10 s of
        the default run when each cell was its own."""
        expected, got = result.expected or {}, result.got or {}
        self._pending_cells.append(
            (run_id, cell.cell_id, cell.language, cell.task, cell.model, cell.method,
             cell.depth, cell.variant, cell.setting, cell.dataset, cell.n, cell.threads,
             cell.page_size, cell.cold, result.status, result.error_kind, result.message,
             result.stderr, expected.get("count"), expected.get("sum"), got.get("count"),
             got.get("sum"), result.eviction, _json(result.counters), _json(result.params),
             result.steady, result.steady_note))
        self._pending_samples += [(run_id, cell.cell_id, s["rep"], s["warmup"], s["total_ns"],
                                   s["cpu_ns"], s["io_ns"], _extra(s))
                                  for s in result.samples or ()]
        self._pending_since = self._pending_since or time.monotonic()
        if (len(self._pending_cells) >= FLUSH_AFTER_CELLS
                or time.monotonic() - self._pending_since >= FLUSH_AFTER_S):
            self.flush()

    def flush(self) -> None:
        """Every pending cell with its samples in one transaction."""
        cells, samples = self._pending_cells, self._pending_samples
        if not cells:
            return
        self._pending_cells, self._pending_samples, self._pending_since = [], [], None
        try:
            self._write(cells, samples)
        except duckdb.Error:  # one bad cell must not take the others with it
            failure = None
            for row in cells:
                try:
                    self._write([row], [s for s in samples if s[:2] == row[:2]])
                except duckdb.Error as error:
                    failure = failure or error
            if failure is not None:
                raise failure from None

    def _write(self, cells: list[tuple], samples: list[tuple]) -> None:
        self._con.execute("BEGIN")
        try:
            _insert_rows(self._con, "cells", cells)
            _insert_rows(self._con, "samples", samples)
            for run_id in {row[0] for row in cells}:
                self._con.execute(LAST_WRITE, [_json({"last_write": str(utc_now())}), run_id])
            self._con.execute("COMMIT")
        except BaseException:
            self._con.execute("ROLLBACK")
            raise

    def finish_run(self, run_id: str, status: str, machine: dict | None = None,
                   at: datetime | None = None) -> None:
        """The run's final status, at `at` (default now), and the machine's state after it
        beside the one before."""
        if status not in RUN_STATUSES[1:]:
            raise ValueError(f"bad final run status {status!r}")
        self.con.execute("UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
                         [status, at or utc_now(), run_id])
        if machine is not None:
            self.con.execute("UPDATE runs SET machine = json_merge_patch(coalesce(machine, "
                             "'{}'), ?) WHERE run_id = ?", [_json({"after": machine}), run_id])

    def resume_run(self, run_id: str, sitting: dict) -> int:
        """An interrupted or failed run becomes `running` again in a new sitting (this
        process, `sitting`'s start and machine state), appended to its params' `sittings`;
        the sitting's number is returned (the first sitting of a run is 0)."""
        run = self.require_run(run_id, allow_incomplete=True)
        if run["status"] not in ("interrupted", "failed"):
            alive = run["status"] == "running"
            raise ResultsError(f"run {run_id} is {run['status']}: "
                               + ("its harness is still alive" if alive else "nothing to resume"))
        params = json.loads(run["params"]) if run["params"] else {}
        sittings = params.get("sittings") or [{"started": str(run["started_at"])}]
        if run["finished_at"] is not None:  # where the sitting before this one stopped
            sittings[-1] = {**sittings[-1], "ended": str(run["finished_at"])}
        params.update(sittings=sittings + [sitting], harness=this_process())
        self.con.execute("UPDATE runs SET status = 'running', finished_at = NULL, params = ? "
                         "WHERE run_id = ?", [_json(params), run_id])
        return len(sittings)

    def drop_cells(self, run_id: str, cell_ids: list[int]) -> None:
        """Forget cells (and their samples) a resumed run measures again."""
        if not cell_ids:
            return
        self.flush()
        marks = ", ".join("?" * len(cell_ids))
        for table in ("samples", "cells"):
            self.con.execute(f"DELETE FROM {table} WHERE run_id = ? AND cell_id IN ({marks})",
                             [run_id, *cell_ids])

    def reap_orphans(self) -> list[str]:
        """Runs left `running` by a harness process that no longer exists (killed outright):
        marked `interrupted`, their files under runs/ removed unless the run kept them.
        Returns their ids."""
        reaped = []
        for run_id, params in self.con.execute(
                "SELECT run_id, params FROM runs WHERE status = 'running'").fetchall():
            params = json.loads(params) if params else {}
            if process_alive(params.get("harness")):
                continue
            self.finish_run(run_id, "interrupted", at=killed_at(params))
            try:
                run_dir = run_files(run_id)
            except IdError:  # an id no serbench gives (an older import): no files
                reaped.append(run_id)
                continue
            kill_recorded(run_dir)  # drivers still busy with the dead harness's last request
            if not params.get("keep_files"):
                shutil.rmtree(run_dir, ignore_errors=True)
            reaped.append(run_id)
        return reaped

    # -- reading ---------------------------------------------------------------------------

    def run(self, run_id: str) -> dict | None:
        rows = self._dicts("SELECT * FROM runs WHERE run_id = ?", [run_id])
        return rows[0] if rows else None

    def runs(self) -> list[dict]:
        return self._dicts(
            "SELECT r.run_id, r.status, r.started_at, r.finished_at, r.plan_name, "
            "count(c.cell_id) AS cells, count(c.cell_id) FILTER (c.status = 'ok') AS ok "
            "FROM runs r LEFT JOIN cells c USING (run_id) GROUP BY ALL ORDER BY r.started_at")

    def latest_run(self) -> str | None:
        row = self.con.execute("SELECT run_id FROM runs WHERE status = 'complete' "
                               "ORDER BY started_at DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def require_run(self, run_id: str, allow_incomplete: bool = False) -> dict:
        """A run that exists and, unless allowed otherwise, completed."""
        run = self.run(run_id)
        if run is None:
            raise ResultsError(f"no run {run_id!r} in {self.path}; `serbench runs` lists them")
        if run["status"] != "complete" and not allow_incomplete:
            raise ResultsError(f"run {run_id} is {run['status']}, not complete; its numbers may "
                               "be partial (pass --allow-incomplete to use it anyway)")
        return run

    def cells(self, run_id: str) -> list[dict]:
        return self._dicts("SELECT * FROM cells WHERE run_id = ? ORDER BY cell_id", [run_id])

    def samples(self, run_id: str) -> list[dict]:
        return self._dicts("SELECT * FROM samples WHERE run_id = ? ORDER BY cell_id, warmup DESC, "
                           "rep", [run_id])

    def _dicts(self, query: str, params: list | None = None) -> list[dict]:
        cursor = self.con.execute(query, params or [])
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def this_process() -> dict:
    return process_record(os.getpid())


def process_record(pid: int) -> dict:
    """What identifies a process across pid reuse and reboots."""
    return {"pid": pid, "boot_id": _boot_id(), "start": _start_ticks(pid)}


def record_process(run_dir: Path, pid: int) -> None:
    """Notes a process the run started (a driver, its own process group) under the run's
    directory, so that a reaper can stop it if the harness dies."""
    directory = run_dir / "processes"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{pid}.json").write_text(json.dumps(process_record(pid)))


def kill_recorded(run_dir: Path) -> None:
    """Kills the process group of every recorded process that is still the one recorded."""
    for path in (run_dir / "processes").glob("*.json"):
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if process_alive(record):
            try:
                os.killpg(record["pid"], signal.SIGKILL)
            except OSError:
                continue
            for _ in range(100):  # gone (and reaped by init) before its files are removed
                if not process_alive(record):
                    break
                time.sleep(0.02)


def process_alive(record: dict | None) -> bool:
    """Is the process a `process_record` describes still running (same boot, same pid, same
    start time)? A run without the record (older serbench) counts as gone."""
    if not isinstance(record, dict):
        return False
    if record.get("boot_id") != _boot_id():
        return False
    return _start_ticks(record.get("pid")) == record.get("start") is not None


def _boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def _start_ticks(pid) -> int | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22)."""
    try:
        stat = Path(f"/proc/{int(pid)}/stat").read_text()
    except (OSError, TypeError, ValueError):
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


def _insert_rows(con, table: str, rows: list[tuple]) -> None:
    """Multi-row INSERTs: DuckDB's executemany runs one statement per row."""
    for start in range(0, len(rows), ROWS_PER_INSERT):
        chunk = rows[start:start + ROWS_PER_INSERT]
        marks = "(" + ", ".join(["?"] * len(chunk[0])) + ")"
        con.execute(f"INSERT INTO {table} VALUES " + ", ".join([marks] * len(chunk)),
                    [value for row in chunk for value in row])


def _extra(sample: dict) -> str | None:
    """Whatever a sample carries beyond the standard keys (e.g. per-thread times)."""
    extra = {k: v for k, v in sample.items() if k not in SAMPLE_KEYS}
    return _json(extra) if extra else None


def killed_at(params: dict) -> datetime | None:
    """When a run whose harness was killed stopped: its last stored cell, if that was in its
    last sitting (else nothing was measured in it, and the sitting's start is the best known).
    Never the time the death was noticed, which may be days later."""
    moments = [params.get("last_write"), (params.get("sittings") or [{}])[-1].get("started")]
    known = [naive_utc(m) for m in moments if m]
    return max(known) if known else None


def sitting_spans(params: dict, finished_at: datetime | None
                  ) -> list[tuple[datetime, datetime | None]]:
    """Each sitting of a run as (start, end), naive UTC; the end is None where it is not
    known (a sitting still running, or one recorded before sittings kept their end)."""
    sittings = params.get("sittings") or []
    spans = [(naive_utc(s["started"]), naive_utc(s["ended"]) if s.get("ended") else None)
             for s in sittings]
    if spans:
        spans[-1] = (spans[-1][0], finished_at)
    return spans


def naive_utc(text: str) -> datetime:
    """A stored moment (naive UTC, or aware as a sitting's start is) as naive UTC."""
    moment = datetime.fromisoformat(text)
    return moment.astimezone(timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


def _json(value) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True)
