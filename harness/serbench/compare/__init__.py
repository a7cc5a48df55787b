"""`serbench compare RUN_A RUN_B`: the same cells of two runs, side by side.

Cells are matched by identity (language, task, model, method, depth, variant, setting, dataset,
n, threads, page_size, cold); each side's figure is the median total time of its measured (not
warm-up) samples, and cells are ranked by the ratio B / A. Only cells `ok` in both runs have
numbers; the others are counted, never compared. A pair measured under different protocols
(warm-ups, repetitions, iterations, forks, a floor paired in rounds) is flagged with what
differs and left out of the geometric mean: its ratio mixes the change with the method.

Two runs of the same build on one machine differ by more than their samples say: the whole
run shifts (a neighbour, the host's clock), and every process has its own luck. So a cell is
judged against real run-to-run variation, not its own samples alone (stats.py):

- the run-wide shift: the median log ratio over the cells measured the same way (per task
  when a task has MIN_TASK_CELLS of them), with its interval; "run B was 7 % faster on every
  cell" is the machine, not the code;
- each cell's residual, its log ratio less the shift of its comparison set (the cells
  measured in the same rounds saw the same machine; sets minutes apart need not), is judged
  against the root of its within-run variance (from each run's rounds) plus its task's
  between-run variance (robust: the spread of the task's residuals beyond what the rounds
  explain): `slower` or `faster` beyond stats.CELL_Z of that, else `no difference`; `band` is
  the range of ratios that noise explains;
- each language × method's mean residual over its cells, flagged when it stands out from the
  other methods' (a change in one method's code moves all its cells).

Each ratio also carries the 95 % interval of the ratio of medians from the two runs' own
samples (a seeded percentile bootstrap): what the samples alone would claim.

A cell of a cluster run names the host it ran on (runner.run_units); a cell that ran on
different hosts in the two runs is not compared (its ratio would compare the machines)
unless `across_hosts`: it is counted apart.
"""
from __future__ import annotations

import json
import math
import random
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property

from .. import stats
from ..cell import IDENTITY
from ..provenance import host_name
from ..results import Results
from ..tasks import threaded


# the request parameters that decide how a cell was measured, not what
PROTOCOL_PARAMS = ("warmups", "warmup_ms", "warmup_max_ms", "prewarm_max_ms", "repetitions",
                   "iterations")

MEDIANS = f"""
SELECT {", ".join(f"c.{k}" for k in IDENTITY)}, c.status,
       list(s.total_ns ORDER BY s.rep, json_extract(s.extra, '$.fork'))
           FILTER (NOT s.warmup) AS times,
       list(coalesce(CAST(json_extract(s.extra, '$.round') AS INTEGER), -1 - s.rep)
            ORDER BY s.rep, json_extract(s.extra, '$.fork')) FILTER (NOT s.warmup) AS rounds,
       c.params,
       count(DISTINCT json_extract(s.extra, '$.fork')) AS forks,
       bool_or(json_extract(s.extra, '$.floor_ns') IS NOT NULL) AS floor_paired,
       coalesce(json_extract_string(c.counters, '$.host.worker'), '') AS host
FROM cells c LEFT JOIN samples s ON s.run_id = c.run_id AND s.cell_id = c.cell_id
WHERE c.run_id = ?
GROUP BY ALL
"""


LEVEL = 0.95
RESAMPLES = 2000


@dataclass
class Row:
    identity: dict
    times_a: list[int]
    times_b: list[int]
    # how the two were measured differently, e.g. ["repetitions 5 -> 3"]; empty: the same
    protocol: list[str] = field(default_factory=list)
    rounds_a: dict[int, float] = field(default_factory=dict)  # stats.observations
    rounds_b: dict[int, float] = field(default_factory=dict)
    # set by judge(): the ratios run-to-run noise explains, and the verdict against them
    band: tuple[float, float] = (0.0, math.inf)
    verdict: str = "no difference"

    @property
    def median_a(self) -> float:
        return statistics.median(self.times_a)

    @property
    def median_b(self) -> float:
        return statistics.median(self.times_b)

    @property
    def ratio(self) -> float:
        return self.median_b / self.median_a if self.median_a else math.inf

    @cached_property  # a bootstrap: once per row, whoever asks
    def interval(self) -> tuple[float, float]:
        return ratio_interval(self.times_a, self.times_b)

    @property
    def residual(self) -> float | None:
        """log(ratio) less the log of the middle of its band (its comparison set's shift)."""
        low, high = self.band
        if not (0 < low and high < math.inf and 0 < self.ratio < math.inf):
            return None
        return math.log(self.ratio) - (math.log(low) + math.log(high)) / 2


@dataclass
class Comparison:
    run_a: str
    run_b: str
    rows: list[Row] = field(default_factory=list)  # ok in both, sorted by ratio, largest first
    only_a: int = 0
    only_b: int = 0
    not_ok: list[tuple[dict, str, str]] = field(default_factory=list)  # identity, status A, B
    # cells that ran on different cluster hosts in the two runs, not compared: identity, hosts
    other_hosts: list[tuple[dict, str, str]] = field(default_factory=list)
    hosts: tuple[str, str] | None = None  # the two host names, when they differ
    shift: stats.Shift | None = None  # the run-wide shift B / A (judge)
    task_shifts: dict[str, stats.Shift] = field(default_factory=dict)
    sigma: dict[str, float] = field(default_factory=dict)  # between-run noise per task, log
    methods: list["MethodShift"] = field(default_factory=list)  # methods that stand out

    @property
    def geometric_mean(self) -> float | None:
        """Over the pairs measured the same way."""
        return _geometric_mean(self.comparable)

    def task_means(self) -> dict[str, float]:
        """The geometric mean per task, over its pairs measured the same way."""
        by_task: dict[str, list[Row]] = {}
        for row in self.comparable:
            by_task.setdefault(row.identity["task"], []).append(row)
        return {task: _geometric_mean(rows) for task, rows in by_task.items()}

    @property
    def comparable(self) -> list[Row]:
        return [r for r in self.rows if 0 < r.ratio < math.inf and not r.protocol]


@dataclass(frozen=True)
class MethodShift:
    """A language × method (× variant: each is an implementation) whose cells moved
    together, beyond its task shifts."""
    language: str
    method: str
    variant: str
    ratio: float   # exp(mean residual): B / A beyond the run's shift
    cells: int
    score: float   # robust z among the methods' means

    @property
    def name(self) -> str:
        """`rust bincode` or `rust bincode[repeat]`."""
        return f"{self.language} {self.method}" + (f"[{self.variant}]" if self.variant else "")


# what a comparison set's cells share (rounds.py: measured in the same rounds)
SET_KEYS = ("task", "model", "dataset", "n", "setting", "threads", "page_size", "cold")


def judge(comparison: Comparison) -> None:
    """The run-wide shift, each task's, each cell's verdict and band, and the methods that
    stand out, from the rows measured the same way (the others are judged by them). A cell
    is judged after the shift of the cells measured in its rounds (its comparison set), which
    saw the same machine: minutes apart, two sets of one run can see two machines; a set
    with few cells takes its task's shift, a task with few the run's."""
    rows = comparison.comparable
    if not rows:
        return
    comparison.shift = stats.shift([math.log(r.ratio) for r in rows])
    # a task with few cells is judged by every comparable row
    bases = {task: mine if len(mine) >= stats.MIN_TASK_CELLS else rows
             for (task,), mine in _grouped(rows, ("task",)).items()}
    for task, basis in bases.items():
        comparison.task_shifts[task] = stats.shift([math.log(r.ratio) for r in basis])
    centres = _set_centres(rows, comparison.task_shifts)
    for task, basis in bases.items():
        comparison.sigma[task] = stats.between_run_sigma(
            [math.log(r.ratio) - centres[_set_of(r)] for r in basis],
            [stats.cell_within_var(r.rounds_a, r.rounds_b) for r in basis])
    for row in comparison.rows:
        task = row.identity["task"]
        if task not in comparison.task_shifts or not 0 < row.ratio < math.inf:
            continue
        centre = centres.get(_set_of(row), math.log(comparison.task_shifts[task].ratio))
        within = stats.cell_within_var(row.rounds_a, row.rounds_b)
        row.verdict = stats.cell_verdict(math.log(row.ratio) - centre, within,
                                         comparison.sigma[task])
        half = stats.CELL_Z * math.sqrt(within + comparison.sigma[task] ** 2)
        row.band = (math.exp(centre - half), math.exp(centre + half))
    comparison.methods = _methods_apart(rows)


def _key(row: Row, keys: tuple[str, ...]) -> tuple:
    return tuple(row.identity.get(k) for k in keys)


def _grouped(rows: list[Row], keys: tuple[str, ...]) -> dict[tuple, list[Row]]:
    groups: dict[tuple, list[Row]] = defaultdict(list)
    for row in rows:
        groups[_key(row, keys)].append(row)
    return groups


def _set_of(row: Row) -> tuple:
    return _key(row, SET_KEYS)


def _set_centres(rows: list[Row], task_shifts: dict[str, stats.Shift]) -> dict[tuple, float]:
    """Each comparison set's log shift: its own median with enough cells, else its task's."""
    return {key: (statistics.median(math.log(r.ratio) for r in mine)
                  if len(mine) >= stats.MIN_TASK_CELLS
                  else math.log(task_shifts[key[0]].ratio))
            for key, mine in _grouped(rows, SET_KEYS).items()}


def _methods_apart(rows: list[Row]) -> list[MethodShift]:
    """The implementations whose cells' median residual stands out from the others' and is
    established by their own cells (two sided, beyond Student's t at 95 % of its standard
    error): an implementation whose cells merely scatter (an I/O-bound floor) is not one
    that moved."""
    residuals: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for row in rows:
        if row.residual is not None:
            residuals[(row.identity["language"], row.identity["method"],
                       row.identity["variant"])].append(row.residual)
    means = {key: statistics.median(values) for key, values in residuals.items()}
    apart = {key: score for key, score in stats.outlying(means).items()
             if abs(means[key]) > stats.t_quantile(len(residuals[key]) - 1)
             * stats.robust_se(residuals[key])}
    return sorted((MethodShift(*key, math.exp(means[key]), len(residuals[key]), score)
                   for key, score in apart.items()), key=lambda m: -abs(m.score))


def _geometric_mean(rows: list[Row]) -> float | None:
    if not rows:
        return None
    return math.exp(sum(math.log(r.ratio) for r in rows) / len(rows))


def compare_runs(results: Results, run_a: str, run_b: str,
                 allow_incomplete: bool = False, across_hosts: bool = False) -> Comparison:
    for run_id in (run_a, run_b):
        results.require_run(run_id, allow_incomplete)
    a, b = _medians(results, run_a), _medians(results, run_b)
    comparison = Comparison(run_a, run_b, only_a=len(a.keys() - b.keys()),
                            only_b=len(b.keys() - a.keys()),
                            hosts=hosts(results, run_a, run_b))
    for key in a.keys() & b.keys():
        (status_a, times_a, how_a, rounds_a, host_a), (status_b, times_b, how_b, rounds_b,
                                                       host_b) = a[key], b[key]
        identity = dict(zip(IDENTITY, key))
        if host_a != host_b and not across_hosts:
            comparison.other_hosts.append((identity, host_a, host_b))
        elif status_a == status_b == "ok" and times_a and times_b:
            comparison.rows.append(Row(identity, times_a, times_b, differences(how_a, how_b),
                                       rounds_a, rounds_b))
        elif status_a != "unsupported" or status_b != "unsupported":
            comparison.not_ok.append((identity, status_a, status_b))
    comparison.rows.sort(key=lambda r: (-r.ratio, tuple(map(str, r.identity.values()))))
    comparison.not_ok.sort(key=lambda item: tuple(map(str, item[0].values())))
    comparison.other_hosts.sort(key=lambda item: tuple(map(str, item[0].values())))
    judge(comparison)
    return comparison


def _medians(results: Results,
             run_id: str) -> dict[tuple, tuple[str, list[int], dict, dict, str]]:
    """identity -> (status, measured samples' total times, protocol, round observations,
    cluster host)."""
    rows = results.con.execute(MEDIANS, [run_id]).fetchall()
    width = len(IDENTITY)
    out = {}
    for row in rows:
        status, times, rounds, params, forks, floor_paired, host = row[width:]
        params = json.loads(params) if params else {}
        protocol = {k: params.get(k) for k in PROTOCOL_PARAMS}
        samples = [{"warmup": False, "total_ns": t, "round": r}
                   for t, r in zip(times or [], rounds or [])]
        out[tuple(row[:width])] = (status, list(times or []), {**protocol, "forks": forks,
                                                    "floor paired": bool(floor_paired)},
                                   stats.observations(samples), host)
    return out


def ratio_interval(a: list[int], b: list[int], level: float = LEVEL,
                   resamples: int = RESAMPLES, seed: int = 42) -> tuple[float, float]:
    """Percentile bootstrap interval of median(B) / median(A), each side resampled with
    replacement from its own samples."""
    rng = random.Random(seed)
    ratios = sorted(statistics.median(rng.choices(b, k=len(b)))
                    / max(statistics.median(rng.choices(a, k=len(a))), 1e-9)
                    for _ in range(resamples))
    tail = (1 - level) / 2
    return ratios[int(tail * resamples)], ratios[min(resamples - 1, int((1 - tail) * resamples))]


def hosts(results: Results, run_a: str, run_b: str) -> tuple[str, str] | None:
    """The two runs' host names when they differ (a ratio across machines), else None."""
    names = []
    for run_id in (run_a, run_b):
        host = results.con.execute("SELECT host FROM runs WHERE run_id = ?", [run_id]).fetchone()
        names.append(host_name(host[0] if host else None))
    return (names[0], names[1]) if names[0] != names[1] else None


def differences(a: dict, b: dict) -> list[str]:
    """`key A -> B` for every protocol setting the two cells did not share."""
    return [f"{k} {a.get(k)} -> {b.get(k)}" for k in sorted(a.keys() | b.keys())
            if a.get(k) != b.get(k)]


def other_hosts_line(comparison: Comparison) -> str:
    """How many cells were left out for having run on different cluster hosts."""
    return (f"{len(comparison.other_hosts):,} cells ran on different hosts in the two runs "
            "(a cluster's workers, or a cluster and this machine): not compared, since each "
            "ratio would compare the machines (--across-hosts compares them)")


def shift_line(shift: stats.Shift | None) -> str:
    """The run-wide shift in a sentence: the machine's, when it moved every cell alike."""
    if shift is None:
        return "no cell measured the same way in both runs: no run-wide shift"
    ratio = f"B / A = {shift.ratio:.3f} ({shift.low:.3f}–{shift.high:.3f}) over {shift.cells:,} cells"
    if not shift.established:
        return f"run-wide shift: none established ({ratio})"
    way = "slower" if shift.ratio > 1 else "faster"
    return (f"run B was {abs(shift.ratio - 1) * 100:.0f} % {way} on every cell ({ratio}): the machine, "
            "not the code; each cell is judged after it")


def label(identity: dict) -> str:
    method = identity["method"] + (f"[{identity['variant']}]" if identity["variant"] else "")
    parts = [identity["language"], method, identity["model"], identity["task"]]
    if identity["depth"]:
        parts.append(identity["depth"])
    text = "/".join(parts) + f" n={identity['n']:,}"
    if identity["setting"]:
        text += f" {identity['setting']}"
    if threaded(identity["task"]):
        text += f" threads={identity['threads']}"
    if not identity["cold"]:
        text += " warm"
    return text
