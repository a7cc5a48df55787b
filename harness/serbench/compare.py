"""`serbench compare RUN_A RUN_B`: the same cells of two runs, side by side.

Cells are matched by identity (language, task, model, method, depth, variant, setting, dataset,
n, threads, page_size, cold); each side's figure is the median total time of its measured (not
warm-up) samples, and cells are ranked by the ratio B / A. Only cells `ok` in both runs have
numbers; the others are counted, never compared.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .results import Results

IDENTITY = ("language", "task", "model", "method", "depth", "variant", "setting", "dataset", "n",
            "threads", "page_size", "cold")

MEDIANS = f"""
SELECT {", ".join(f"c.{k}" for k in IDENTITY)}, c.status,
       median(s.total_ns) FILTER (NOT s.warmup) AS median_ns
FROM cells c LEFT JOIN samples s ON s.run_id = c.run_id AND s.cell_id = c.cell_id
WHERE c.run_id = ?
GROUP BY ALL
"""


@dataclass
class Row:
    identity: dict
    median_a: float
    median_b: float

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
        ratios = [r.ratio for r in self.rows if 0 < r.ratio < math.inf]
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
        (status_a, median_a), (status_b, median_b) = a[key], b[key]
        identity = dict(zip(IDENTITY, key))
        if status_a == status_b == "ok" and median_a is not None and median_b is not None:
            comparison.rows.append(Row(identity, median_a, median_b))
        elif status_a != "unsupported" or status_b != "unsupported":
            comparison.not_ok.append((identity, status_a, status_b))
    comparison.rows.sort(key=lambda r: (-r.ratio, tuple(map(str, r.identity.values()))))
    comparison.not_ok.sort(key=lambda item: tuple(map(str, item[0].values())))
    return comparison


def _medians(results: Results, run_id: str) -> dict[tuple, tuple[str, float | None]]:
    rows = results.con.execute(MEDIANS, [run_id]).fetchall()
    width = len(IDENTITY)
    return {tuple(row[:width]): (row[width], row[width + 1]) for row in rows}


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
