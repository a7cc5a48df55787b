"""What a report reads from the results database: one run, its cells and their sample statistics."""
from __future__ import annotations

import json
import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from ..results import Results, ResultsError
from ..tasks import TASKS


FLOOR_METHOD = "raw"  # the method-independent read floor (pages hashed, nothing decoded)


class ReportError(Exception):
    """A report cannot be made; the message says why and what to do."""


@dataclass(frozen=True)
class Stat:
    """Median with min–max over the measured (non-warm-up) repetitions, in nanoseconds."""
    median: float
    low: float
    high: float


@dataclass(frozen=True)
class Run:
    run_id: str
    status: str
    started_at: datetime | None
    finished_at: datetime | None
    plan_name: str
    plan_toml: str
    seed: int | None
    git_commit: str
    git_dirty: bool | None
    host: dict
    toolchains: dict
    drivers: dict
    params: dict
    machine: dict = field(default_factory=dict)  # {"before": ..., "after": ...}, provenance.py


@dataclass(frozen=True)
class Cell:
    cell_id: int
    language: str
    task: str
    model: str
    method: str
    depth: str
    variant: str
    dataset: str
    n: int
    threads: int | None
    page_size: int | None
    cold: bool | None
    status: str
    error_kind: str
    message: str
    stderr: str
    expected_count: int | None
    expected_sum: str
    got_count: int | None
    got_sum: str
    eviction: str
    counters: dict = field(default_factory=dict)
    reps: int = 0
    total: Stat | None = None
    cpu: Stat | None = None
    io: Stat | None = None
    # the median over measured repetitions of each one's cpu_ns / (cpu_ns + io_ns): splits the
    # median total into cpu and io (figures.py), as the cpu and io medians need not add up to it
    cpu_share: float | None = None
    setting: str = ""  # the task's own setting, e.g. "mode=seq" (results-schema.md)
    extra: dict = field(default_factory=dict)  # medians of the samples' own times, by key
    # a JVM's first timed repetition (its sample says "jit": "cold"), never in the statistics
    cold_jit_ns: float | None = None
    # a read timed in rounds with its own file's raw read (floor_rounds): the median over
    # repetitions of each one's time over the raw read at its place in the round
    over_paired_floor: float | None = None
    # were the measured repetitions at steady state (steady.py)? None: not judged
    steady: bool | None = None
    steady_note: str = ""
    # a network cell: each node's figures (total, cpu, io ns, bytes, peak RSS), medians over
    # the measured repetitions, by node name
    nodes: dict = field(default_factory=dict)
    # its method reads bytes without checking them in this variant (the default of a method
    # with a `validate` variant, PROTOCOL.md 3), so its number is labelled wherever it appears
    trusting: bool = False
    # a cold cell not shown to be cold: its eviction left its files cached, or no figure says
    # (cold_note); labelled wherever its number appears
    cold_note: str = ""
    # round -> the mean of its measured repetitions (stats.observations): what rankings pair
    rounds: dict = field(default_factory=dict)

    @property
    def settings(self) -> dict:
        """`"buffer=fresh k=100"` as `{"buffer": "fresh", "k": 100}`."""
        return {k: int(v) if v.isdigit() else v
                for k, v in (item.split("=", 1) for item in self.setting.split())}

    @property
    def is_floor(self) -> bool:
        return self.method == FLOOR_METHOD

    @property
    def measured(self) -> bool:
        """Only ok cells with measured samples become numbers; the rest are shown as a status."""
        return self.status == "ok" and self.total is not None

    @property
    def host(self) -> str:
        """The cluster host a single-machine cell ran on (runner.run_units), "" for a cell
        measured on the harness's machine or a network cell (its nodes on many hosts)."""
        host = self.counters.get("host")
        return host_name(host) if host else ""


def host_name(host: dict) -> str:
    """A placed host: its Dask worker's name, and its hostname where that differs."""
    worker, hostname = host.get("worker") or "unnamed worker", host.get("hostname")
    return f"{worker} ({hostname})" if hostname and hostname != worker else worker


@dataclass(frozen=True)
class RunData:
    run: Run
    cells: list[Cell]


def _json(text: str | None) -> dict:
    return (json.loads(text) if text else None) or {}


@contextmanager
def _results(db_path: Path) -> Iterator[Results]:
    """Read-only, through the results module: its schema check and its messages apply."""
    try:
        with Results(db_path, read_only=True) as results:
            yield results
    except ResultsError as exc:
        raise ReportError(str(exc)) from None


def latest_complete_run(db_path: Path) -> str:
    with _results(db_path) as results:
        run_id = results.latest_run()
    if run_id is None:
        raise ReportError(f"{db_path} holds no complete run; name one with --run "
                          "(and --allow-incomplete for a run that did not finish)")
    return run_id


RUN_FIELDS = ("run_id", "status", "started_at", "finished_at", "plan_name", "plan_toml", "seed",
              "git_commit", "git_dirty")
JSON_FIELDS = ("host", "toolchains", "drivers", "params", "machine")

CELL_COLUMNS = ("cell_id, language, task, model, method, depth, variant, dataset, n, threads, "
                "page_size, cold, status, error_kind, message, stderr, expected_count, "
                "expected_sum, got_count, got_sum, eviction, counters, setting, steady, steady_note")

# a task's own per-sample times (PROTOCOL.md section 5), summarised by their medians
EXTRA_TIMES = ("encode_ns", "decode_ns", "phase1_ns", "phase2_ns")

# statistics over measured repetitions only: warm-ups never count
STATS_SQL = """
SELECT cell_id, count(*),
       median(total_ns), min(total_ns), max(total_ns),
       median(cpu_ns), min(cpu_ns), max(cpu_ns),
       median(io_ns), min(io_ns), max(io_ns),
       """ + ",\n       ".join(f"median(CAST(extra->>'{k}' AS DOUBLE))" for k in EXTRA_TIMES) + """,
       median(total_ns / CAST(extra->>'floor_ns' AS DOUBLE)),
       median(cpu_ns / NULLIF(CAST(cpu_ns + io_ns AS DOUBLE), 0))
FROM samples WHERE run_id = ? AND NOT warmup GROUP BY cell_id
"""

# each round's mean of the measured repetitions (stats.observations; a sample without a
# round, from a run before rounds, is a round of its own that pairs with nothing)
ROUNDS_SQL = """
SELECT cell_id, coalesce(CAST(extra->>'round' AS INTEGER), -1 - rep) AS round, avg(total_ns)
FROM samples WHERE run_id = ? AND NOT warmup GROUP BY ALL
"""

# every node's own figures in each measured repetition of a network cell
NODES_SQL = """
SELECT cell_id, extra->'nodes' FROM samples
WHERE run_id = ? AND NOT warmup AND (extra->'nodes') IS NOT NULL
"""

# the first repetition of each fresh JVM (one per fork), warm-up or not: the JIT was not warm
COLD_JIT_SQL = """
SELECT cell_id, median(total_ns) FROM samples
WHERE run_id = ? AND extra->>'jit' = 'cold' GROUP BY cell_id
"""


def _stat(values: tuple) -> Stat | None:
    return None if values[0] is None else Stat(*(float(v) for v in values))


def load_run(db_path: Path, run_id: str, allow_incomplete: bool = False) -> RunData:
    """The run (refused unless complete, or allowed) with every cell and its statistics."""
    with _results(db_path) as results:
        row = results.require_run(run_id, allow_incomplete)
        con = results.con
        stats = {r[0]: r[1:] for r in con.execute(STATS_SQL, [run_id]).fetchall()}
        cold_jit = dict(con.execute(COLD_JIT_SQL, [run_id]).fetchall())
        nodes = node_medians(con.execute(NODES_SQL, [run_id]).fetchall())
        rounds: dict[int, dict[int, float]] = {}
        for cell_id, number, mean in con.execute(ROUNDS_SQL, [run_id]).fetchall():
            rounds.setdefault(cell_id, {})[number] = float(mean)
        cells = con.execute(f"SELECT {CELL_COLUMNS} FROM cells WHERE run_id = ? ORDER BY cell_id",
                            [run_id]).fetchall()
    run = Run(**{k: row[k] for k in RUN_FIELDS}, **{k: _json(row[k]) for k in JSON_FIELDS})
    trusted = trusting_variants(run.drivers)
    return RunData(run, [_cell(c, stats.get(c[0]), cold_jit.get(c[0]), nodes.get(c[0], {}),
                               trusted, rounds.get(c[0], {})) for c in cells])


# tasks that encode only, or measure files: no bytes are read back, so nothing is trusted
NOT_READING = tuple(task for task, spec in TASKS.items() if not spec.reads_bytes)
# tasks whose cold repetitions evict their input first (PROTOCOL.md 5; a write evicts nothing)
EVICTING = tuple(task for task, spec in TASKS.items() if spec.evicts)
# a cold repetition that found more than this share of its files still cached was not cold
COLD_TOLERANCE = 0.01


def cold_note(task: str, cold: bool | None, counters: dict) -> str:
    """Cold means cold, shown: the share of its files a cold cell found still cached after
    eviction (the largest over its repetitions, recorded by the runner) must be about none."""
    if not (cold and task in EVICTING):
        return ""
    cached = counters.get("cached_after_eviction")
    if cached is None:
        return "cold unproven (no residency figure)"
    return f"not cold ({cached:.0%} cached after eviction)" if cached > COLD_TOLERANCE else ""


def trusting_variants(drivers: dict) -> set[tuple[str, str, str]]:
    """(language, method, variant) whose reads use bytes they do not check, from each
    driver's recorded `info`: the default variant of a method that lists `validate`
    (PROTOCOL.md 3)."""
    found = set()
    for language, recorded in drivers.items():
        methods = ((recorded or {}).get("info") or {}).get("methods") or {}
        found |= {(language, method, "") for method, spec in methods.items()
                  if "validate" in (spec.get("variants") or ())}
    return found


def node_medians(rows: list[tuple]) -> dict[int, dict[str, dict]]:
    """cell id -> node -> figure -> median over the cell's measured repetitions."""
    values: dict[int, dict[str, dict[str, list]]] = {}
    for cell_id, nodes in rows:
        for node, figures in json.loads(nodes).items():
            per = values.setdefault(cell_id, {}).setdefault(node, {})
            for key, value in figures.items():
                if isinstance(value, (int, float)):
                    per.setdefault(key, []).append(value)
    return {cell_id: {node: {k: statistics.median(v) for k, v in figures.items()}
                      for node, figures in nodes.items()}
            for cell_id, nodes in values.items()}


def _text(value) -> str:
    return "" if value is None else str(value)


def _cell(row: tuple, stats: tuple | None, cold_jit_ns: float | None = None,
          nodes: dict | None = None, trusted: set | None = None,
          rounds: dict | None = None) -> Cell:
    (cell_id, language, task, model, method, depth, variant, dataset, n, threads, page_size, cold,
     status, error_kind, message, stderr, expected_count, expected_sum, got_count, got_sum,
     eviction, counters, setting, steady, steady_note) = row
    cell = Cell(cell_id, language, task, model, method, _text(depth), _text(variant),
                _text(dataset), n, threads, page_size, cold, status, _text(error_kind),
                _text(message), _text(stderr), expected_count, _text(expected_sum), got_count,
                _text(got_sum), _text(eviction), _json(counters), setting=_text(setting),
                steady=steady, steady_note=_text(steady_note),
                trusting=task not in NOT_READING
                and (language, method, _text(variant)) in (trusted or ()),
                cold_note=cold_note(task, cold, _json(counters)) if status == "ok" else "")
    # samples of a cell that is not ok are never turned into numbers
    if stats is None or status != "ok":
        return cell
    reps, *values = stats
    extra = {k: v for k, v in zip(EXTRA_TIMES, values[9:]) if v is not None}
    over_paired_floor, cpu_share = values[9 + len(EXTRA_TIMES):]
    return replace(cell, reps=reps, total=_stat(values[0:3]), cpu=_stat(values[3:6]),
                   io=_stat(values[6:9]), extra=extra, nodes=nodes or {}, rounds=rounds or {},
                   cpu_share=None if cpu_share is None else float(cpu_share),
                   cold_jit_ns=None if cold_jit_ns is None else float(cold_jit_ns),
                   over_paired_floor=None if over_paired_floor is None
                   else float(over_paired_floor))
