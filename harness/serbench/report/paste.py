"""tables.md: one Markdown table per task, depth and setting, to paste into a design doc or a
README. Implementations are rows and models columns; each entry is the median and its multiple
of the column's fastest; the caption names the run, the host and each model's n."""
from __future__ import annotations

import math
from collections import defaultdict

from ..provenance import host_name
from .data import Run
from .series import label_without
from .tasks import TaskModel, spec_for
from .units import multiple, number, unit_for


def paste_tables(run: Run, tasks: dict[str, list[TaskModel]]) -> str:
    host = host_name(run.host)
    lines = [f"# serbench tables: run {run.run_id}", "",
             f"Measured on {host} ({run.host.get('cpu_model') or 'cpu not recorded'}, "
             f"{run.host.get('logical_cores') or '?'} logical cores). Median of the measured "
             "repetitions; in brackets, the multiple of the fastest in the same column.", ""]
    for task, models in tasks.items():
        if not spec_for(task).builders:
            continue
        for where, columns in _tables(models).items():
            lines += _table(task, where, columns, run.run_id, host)
    return "\n".join(lines).rstrip("\n") + "\n"


def _tables(models: list[TaskModel]) -> dict[str, dict[str, tuple[int, dict[str, float]]]]:
    """depth · setting -> model -> (n, implementation -> median ns)."""
    found: dict[str, dict[str, tuple[int, dict[str, float]]]] = defaultdict(dict)
    for tm in models:
        for s in tm.series:
            cell = s.cells.get(tm.n)
            if s.is_floor or cell is None or not cell.measured:
                continue
            where = " · ".join(filter(None, [s.key.depth, s.key.setting]))
            _, medians = found[where].setdefault(tm.where, (tm.n, {}))
            medians[label_without(s, s.key.depth, s.key.setting)] = cell.total.median
    return found


def _table(task: str, where: str, columns: dict[str, tuple[int, dict[str, float]]],
           run_id: str, host: str) -> list[str]:
    models = list(columns)
    best = {m: min(columns[m][1].values()) for m in models}
    names = {name for _, medians in columns.values() for name in medians}

    def mean_multiple(name: str) -> float:
        ratios = [columns[m][1][name] / best[m] for m in models if name in columns[m][1]]
        return math.exp(sum(map(math.log, ratios)) / len(ratios))

    title = " · ".join(filter(None, [task, where]))
    ns = ", ".join(f"{m} n = {columns[m][0]:,}" for m in models)
    lines = [f"**{title}** (run {run_id}, {host}; {ns})", "",
             "| implementation | " + " | ".join(models) + " |",
             "| --- | " + " | ".join("---:" for _ in models) + " |"]
    for name in sorted(names, key=lambda n: (mean_multiple(n), n)):
        entries = []
        for m in models:
            value = columns[m][1].get(name)
            if value is None:
                entries.append("—")
            else:
                unit = unit_for(value)
                entries.append(f"{number(unit.of(value))} {unit.name} "
                               f"({multiple(value / best[m])})")
        lines.append(f"| {name} | " + " | ".join(entries) + " |")
    return lines + [""]
