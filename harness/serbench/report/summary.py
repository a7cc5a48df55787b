"""The report's first screen: the answer before the detail.

Takeaways, then what was measured and what carries a label, counted; then one row per task,
model and compared group (answer.py): who is fastest, by how much, how sure; sizes per model;
the published findings it measured in one line each, the rest counted. All computed from the
same series and outcomes the sections below show, where each row's detail is.
"""
from __future__ import annotations

from collections import defaultdict

from .answer import answer_table, answers, takeaways
from .blocks import Facts, Row, Section, Table
from .data import COLD_TOLERANCE, EVICTING, Cell
from .leaders import languages_of
from .reproduction import Measured, published_outcomes
from .size_views import SizeEntry
from .tasks import TaskModel
from .units import multiple


def summary_section(tasks: dict[str, list[TaskModel]], sizes: dict[str, list[SizeEntry]],
                    cells: list[Cell], noise_note: str = "") -> Section:
    found = answers(tasks)
    blocks = [takeaways(found, steady_by_language(cells))]
    if found:
        blocks.append(answer_table(found))
    blocks.append(counts(cells, noise_note))
    if sizes:
        blocks.append(sizes_table(sizes))
    blocks.append(published_lines(Measured(sizes, tasks)))
    return Section("summary", "Summary", "The answer first: every figure below is computed "
                   "from this run's verified cells, and each is detailed in the sections that "
                   "follow.", blocks=blocks, lead=True)


def steady_by_language(cells: list[Cell]) -> dict[str, tuple[int, int]]:
    """Per language: (steady, timed) cells."""
    return {language: (sum(c.steady is True for c in timed), len(timed))
            for language in languages_of(cells)
            if (timed := [c for c in cells if c.language == language and c.measured])}


def counts(cells: list[Cell], noise_note: str = "") -> Facts:
    by_status = defaultdict(int)
    for cell in cells:
        by_status[cell.status] += 1
    timed = [c for c in cells if c.measured]
    unsteady = sum(c.steady is False for c in timed)
    unjudged = sum(c.steady is None for c in timed)
    trusting = sum(c.trusting for c in timed)
    cold = sum(bool(c.cold) and c.task in EVICTING for c in timed)
    not_cold = sum(bool(c.cold_note) for c in timed)
    missing = ", ".join(f"{by_status[s]:,} {s}" for s in ("invalid", "failed", "unsupported")
                        if by_status[s]) or "none"
    return Facts([
        ("measured", f"{len(timed):,} timed cells: {len(timed) - unsteady - unjudged:,} steady, "
                     f"{unsteady:,} unsteady, {unjudged:,} not judged"),
        ("labelled", f"{trusting:,} timed cells read bytes they do not check (trusts its "
                     "bytes)" if trusting else "no timed cell reads bytes it does not check"),
        ("cold reads", f"{not_cold:,} cold cells not shown to be cold (not cold, or cold "
                       "unproven)" if not_cold else f"all {cold:,} cold cells were cold (at most "
                       f"{COLD_TOLERANCE:.0%} of their files' pages cached after eviction)"
                       if cold else "no cold cells"),
        ("without numbers", missing),
        *([("warmed", warmed)] if (warmed := warmed_line(timed)) else []),
        *([("run-to-run noise", noise_note)] if noise_note else []),
    ], links={"without numbers": "not-measured", "measured": "provenance"})


def warmed_line(timed: list[Cell]) -> str:
    """How the processes with a JIT were warmed before timing (run/prewarm.py): per language,
    how many ended quiet and the median time it took; "" when none was."""
    groups: dict[str, dict[tuple, dict]] = defaultdict(dict)
    for c in timed:
        if isinstance(warm := c.counters.get("prewarm"), dict):
            groups[c.language][(c.method, c.model, c.dataset, c.page_size)] = warm
    parts = []
    for language, warms in groups.items():
        quiet = sum(w.get("quiet") is True for w in warms.values())
        ms = sorted(w.get("ms", 0) for w in warms.values())
        parts.append(f"{language}: {quiet} of {len(warms)} processes quiet before timing "
                     f"(median {ms[len(ms) // 2] / 1000:.1f} s of warm-up passes)")
    return "; ".join(parts)


def sizes_table(sizes: dict[str, list[SizeEntry]]) -> Table:
    rows = []
    for model, entries in sizes.items():
        small, large = entries[0], entries[-1]
        rows.append(Row([model, f"{small.label} {small.avg:,.0f} B",
                         f"{large.label} {large.avg:,.0f} B", multiple(large.avg / small.avg),
                         str(len(entries))]))
    return Table("Bytes per object", ["model", "smallest", "largest", "largest / smallest",
                                      "implementations"], rows,
                 numeric=frozenset({3, 4}))


def published_lines(measured: Measured) -> Facts:
    """One line per published figure this run measured: its verdict where it has one (it
    names both sides), else both figures; the rest counted, as the section lists them."""
    items, unmeasured = [], 0
    for fig, outcome in published_outcomes(measured):
        if outcome is None:
            unmeasured += 1
        elif outcome.verdict:
            items.append((fig.subject, outcome.verdict))
        else:
            items.append((fig.subject, f"published {fig.figure}; this run {outcome.measured}"))
    if unmeasured:
        label = "other published figures" if items else "published figures"
        items.append((label, f"{unmeasured} listed with the cells they need, which this run "
                             "does not have"))
    return Facts(items, links={"other published figures": "published",
                               "published figures": "published"})
