"""`serbench compare RUN_A RUN_B`: the same cells of two runs, side by side.

Cells are matched by identity (language, task, model, method, depth, variant, setting, dataset,
n, threads, page_size, cold); each side's figure is the median total time of its measured (not
warm-up) samples, and cells are ranked by the ratio B / A. Only cells `ok` in both runs have
numbers; the others are counted, never compared. A pair measured under different protocols
(warm-ups, repetitions, iterations, forks, a floor paired in rounds) is flagged with what
differs and left out of the geometric mean: its ratio mixes the change with the method.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from .results import Results

IDENTITY = ("language", "task", "model", "method", "depth", "variant", "setting", "dataset", "n",
            "threads", "page_size", "cold")

# the request parameters that decide how a cell was measured, not what
PROTOCOL_PARAMS = ("warmups", "warmup_ms", "warmup_max_ms", "repetitions", "iterations")

MEDIANS = f"""
SELECT {", ".join(f"c.{k}" for k in IDENTITY)}, c.status,
       median(s.total_ns) FILTER (NOT s.warmup) AS median_ns,
       c.params,
       count(DISTINCT json_extract(s.extra, '$.fork')) AS forks,
       bool_or(json_extract(s.extra, '$.floor_ns') IS NOT NULL) AS floor_paired
FROM cells c LEFT JOIN samples s ON s.run_id = c.run_id AND s.cell_id = c.cell_id
WHERE c.run_id = ?
GROUP BY ALL
"""


@dataclass
class Row:
    identity: dict
    median_a: float
    median_b: float
    # how the two were measured differently, e.g. ["repetitions 5 -> 3"]; empty: the same
    protocol: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.median_b / self.median_a if self.median_a else math.inf


@dataclass
class Comparison:
    run_a: str
    run_b: str
    rows: list[Row] = field(default_factory=list)  # ok in both, sorted by ratio, largest first
    only_a: int = 0
    only_b: int = 0
    not_ok: list[tuple[dict, str, str]] = field(default_factory=list)  # identity, status A, B

    @property
    def geometric_mean(self) -> float | None:
        """Over the pairs measured the same way."""
        ratios = [r.ratio for r in self.rows if 0 < r.ratio < math.inf and not r.protocol]
        if not ratios:
            return None
        return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def compare_runs(results: Results, run_a: str, run_b: str,
                 allow_incomplete: bool = False) -> Comparison:
    for run_id in (run_a, run_b):
        results.require_run(run_id, allow_incomplete)
    a, b = _medians(results, run_a), _medians(results, run_b)
    comparison = Comparison(run_a, run_b, only_a=len(a.keys() - b.keys()),
                            only_b=len(b.keys() - a.keys()))
    for key in a.keys() & b.keys():
        (status_a, median_a, how_a), (status_b, median_b, how_b) = a[key], b[key]
        identity = dict(zip(IDENTITY, key))
        if status_a == status_b == "ok" and median_a is not None and median_b is not None:
            comparison.rows.append(Row(identity, median_a, median_b, differences(how_a, how_b)))
        elif status_a != "unsupported" or status_b != "unsupported":
            comparison.not_ok.append((identity, status_a, status_b))
    comparison.rows.sort(key=lambda r: (-r.ratio, tuple(map(str, r.identity.values()))))
    comparison.not_ok.sort(key=lambda item: tuple(map(str, item[0].values())))
    return comparison


def _medians(results: Results, run_id: str) -> dict[tuple, tuple[str, float | None, dict]]:
    """identity -> (status, median of measured samples, protocol)."""
    rows = results.con.execute(MEDIANS, [run_id]).fetchall()
    width = len(IDENTITY)
    out = {}
    for row in rows:
        status, median, params, forks, floor_paired = row[width:]
        params = json.loads(params) if params else {}
        protocol = {k: params.get(k) for k in PROTOCOL_PARAMS}
        out[tuple(row[:width])] = (status, median, {**protocol, "forks": forks,
                                                    "floor paired": bool(floor_paired)})
    return out


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
