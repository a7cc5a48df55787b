"""The report's first screen: the answer before the detail.

Per task and model, each language's fastest and slowest implementation at equal depth and
setting, its best as a multiple of the overall best, and the spread; sizes per model; what
was not measured or carries a label, counted; the published findings it measured in one line
each, the rest counted. All computed from the same series and outcomes the sections below
show.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ..tasks import threaded
from .blocks import Facts, Row, Section, Table
from .data import COLD_TOLERANCE, EVICTING, Cell
from .reproduction import Measured, published_outcomes
from .series import LANGUAGES, NoiseOf, Series, canonical, distinct, label_without, tied_ranks
from .size_views import SizeEntry
from .tasks import TaskModel, spec_for
from .units import multiple, number, unit_for


@dataclass(frozen=True)
class Entry:
    """One measured implementation of a summary row."""
    language: str
    name: str  # method, variant and any label ("· unsteady")
    cell: Cell

    @property
    def ns(self) -> float:
        return self.cell.total.median


def summary_section(tasks: dict[str, list[TaskModel]], sizes: dict[str, list[SizeEntry]],
                    cells: list[Cell], noise_note: str = "") -> Section:
    languages = sorted({c.language for c in cells}, key=lambda x: canonical(x, LANGUAGES))
    blocks = [counts(cells, noise_note), fastest_table(tasks, languages)]
    if sizes:
        blocks.append(sizes_table(sizes))
    blocks.append(published_lines(Measured(sizes, tasks)))
    return Section("summary", "Summary", "The answer first: every figure below is computed "
                   "from this run's verified cells, and each is detailed in the sections that "
                   "follow.", blocks=blocks, lead=True)


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
        *([("run-to-run noise", noise_note)] if noise_note else []),
    ], links={"without numbers": "not-measured", "measured": "provenance"})


def fastest_table(tasks: dict[str, list[TaskModel]], languages: list[str]) -> Table:
    rows = []
    for task, models in tasks.items():
        if not spec_for(task).builders:
            continue
        for tm in models:
            for where, entries in compared_groups(tm).items():
                rows.append(_row(task, tm.where, where, entries, languages, tm.noise_of))
    return Table("Fastest and slowest per language, at equal depth and setting",
                 ["task", "model", "at", *languages, "spread"], rows,
                 "Per language: its fastest implementations (a ≈ b: this run does not tell "
                 "them apart, by the rankings' rule below), the first one's median time and "
                 "its multiple of the overall fastest's median; then its slowest "
                 "implementation and its median's multiple of the language's fastest's. "
                 "Every multiple is the ratio of the two medians it names. (tied for "
                 "fastest): the language's fastest are tied with the overall fastest. "
                 "Spread: the slowest median over the fastest, over every language. Labels "
                 "(unsteady, trusts its bytes) follow the name, as everywhere.",
                 numeric=frozenset({len(languages) + 3}))


def compared_groups(tm: TaskModel) -> dict[str, list[Entry]]:
    """Measured implementations at the section's n, by depth and setting (what is compared)."""
    groups: dict[str, list[Entry]] = defaultdict(list)
    for s in tm.series:
        cell = s.cells.get(tm.n)
        if s.is_floor or cell is None or not cell.measured:
            continue
        where = " · ".join(filter(None, [s.key.depth, s.key.setting,
                                         f"{s.key.threads} threads" if threaded(tm.task)
                                         else ""]))
        groups[where or "—"].append(Entry(s.key.language, implementation_name(s), cell))
    return groups


def implementation_name(s: Series) -> str:
    """The label without its language, depth and setting (the row says those)."""
    return label_without(s, s.key.language, s.key.depth, s.key.setting,
                         f"{s.key.threads} threads")


def _row(task: str, model: str, where: str, entries: list[Entry], languages: list[str],
         noise_of: NoiseOf) -> Row:
    overall = tied_ranks(entries, noise_of, lambda e: e.cell)
    best = overall[0][1]
    fastest_overall = min(entries, key=lambda e: e.ns)
    unit = unit_for(fastest_overall.ns)
    per_language = []
    for language in languages:
        mine = [e for e in entries if e.language == language]
        if not mine:
            per_language.append("—")
            continue
        ranked = tied_ranks(mine, noise_of, lambda e: e.cell)
        fastest = ranked[0][1]
        first, slowest = min(mine, key=lambda e: e.ns), max(mine, key=lambda e: e.ns)
        tied_with_best = not distinct(best[0].cell, fastest[0].cell, noise_of)
        text = (f"{' ≈ '.join(e.name for e in fastest)} {number(unit.of(first.ns))} "
                f"{unit.name} ({multiple(first.ns / fastest_overall.ns)}"
                f"{', tied for fastest' if tied_with_best else ''})")
        if len(ranked) > 1:
            text += f"; slowest {slowest.name} {multiple(slowest.ns / first.ns)}"
        per_language.append(text)
    slowest_overall = max(entries, key=lambda e: e.ns)
    return Row([task, model, where, *per_language,
                multiple(slowest_overall.ns / fastest_overall.ns)])


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
