"""`serbench compare RUN_A RUN_B`: the same cells of two runs, side by side.

Cells are matched by identity (language, task, model, method, depth, variant, setting, dataset,
n, threads, page_size, cold); each side's figure is the median total time of its measured (not
warm-up) samples, and cells are ranked by the ratio B / A. Only cells `ok` in both runs have
numbers; the others are counted, never compared. A pair measured under different protocols
(warm-ups, repetitions, iterations, forks, a floor paired in rounds) is flagged with what
differs and left out of the geometric mean: its ratio mixes the change with the method.

Each ratio carries a 95 % confidence interval (percentile bootstrap of the ratio of medians,
resampling each side's measured samples; seeded, so a comparison is reproducible) and a
verdict: `faster` or `slower` when the interval excludes 1, `no difference` when it does not.
"""
from __future__ import annotations

import json
import math
import random
import statistics
from dataclasses import dataclass, field
from functools import cached_property

from .provenance import host_name
from .results import Results

IDENTITY = ("language", "task", "model", "method", "depth", "variant", "setting", "dataset", "n",
            "threads", "page_size", "cold")

# the request parameters that decide how a cell was measured, not what
PROTOCOL_PARAMS = ("warmups", "warmup_ms", "warmup_max_ms", "repetitions", "iterations")

MEDIANS = f"""
SELECT {", ".join(f"c.{k}" for k in IDENTITY)}, c.status,
       list(s.total_ns ORDER BY s.rep, json_extract(s.extra, '$.fork'))
           FILTER (NOT s.warmup) AS times,
       c.params,
       count(DISTINCT json_extract(s.extra, '$.fork')) AS forks,
       bool_or(json_extract(s.extra, '$.floor_ns') IS NOT NULL) AS floor_paired
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
    def verdict(self) -> str:
        low, high = self.interval
        return "slower" if low > 1 else "faster" if high < 1 else "no difference"


@dataclass
class Comparison:
    run_a: str
    run_b: str
    rows: list[Row] = field(default_factory=list)  # ok in both, sorted by ratio, largest first
    only_a: int = 0
    only_b: int = 0
    not_ok: list[tuple[dict, str, str]] = field(default_factory=list)  # identity, status A, B
    hosts: tuple[str, str] | None = None  # the two host names, when they differ

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


def _geometric_mean(rows: list[Row]) -> float | None:
    if not rows:
        return None
    return math.exp(sum(math.log(r.ratio) for r in rows) / len(rows))


def compare_runs(results: Results, run_a: str, run_b: str,
                 allow_incomplete: bool = False) -> Comparison:
    for run_id in (run_a, run_b):
        results.require_run(run_id, allow_incomplete)
    a, b = _medians(results, run_a), _medians(results, run_b)
    comparison = Comparison(run_a, run_b, only_a=len(a.keys() - b.keys()),
                            only_b=len(b.keys() - a.keys()),
                            hosts=hosts(results, run_a, run_b))
    for key in a.keys() & b.keys():
        (status_a, times_a, how_a), (status_b, times_b, how_b) = a[key], b[key]
        identity = dict(zip(IDENTITY, key))
        if status_a == status_b == "ok" and times_a and times_b:
            comparison.rows.append(Row(identity, times_a, times_b, differences(how_a, how_b)))
        elif status_a != "unsupported" or status_b != "unsupported":
            comparison.not_ok.append((identity, status_a, status_b))
    comparison.rows.sort(key=lambda r: (-r.ratio, tuple(map(str, r.identity.values()))))
    comparison.not_ok.sort(key=lambda item: tuple(map(str, item[0].values())))
    return comparison


def _medians(results: Results, run_id: str) -> dict[tuple, tuple[str, list[int], dict]]:
    """identity -> (status, measured samples' total times, protocol)."""
    rows = results.con.execute(MEDIANS, [run_id]).fetchall()
    width = len(IDENTITY)
    out = {}
    for row in rows:
        status, times, params, forks, floor_paired = row[width:]
        params = json.loads(params) if params else {}
        protocol = {k: params.get(k) for k in PROTOCOL_PARAMS}
        out[tuple(row[:width])] = (status, list(times or []), {**protocol, "forks": forks,
                                                    "floor paired": bool(floor_paired)})
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


def label(identity: dict) -> str:
    method = identity["method"] + (f"[{identity['variant']}]" if identity["variant"] else "")
    parts = [identity["language"], method, identity["model"], identity["task"]]
    if identity["depth"]:
        parts.append(identity["depth"])
    text = "/".join(parts) + f" n={identity['n']:,}"
    if identity["setting"]:
        text += f" {identity['setting']}"
    if identity["task"] == "read_par":
        text += f" threads={identity['threads']}"
    if not identity["cold"]:
        text += " warm"
    return text
