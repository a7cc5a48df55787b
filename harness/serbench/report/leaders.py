"""Who leads one task × model: its measured implementations at the section's n, grouped by what
is compared (depth, setting, threads) and ranked by the rankings' tie rule; each one's floor,
and whether this run tells it from that floor. The summary's answer and each task section's
per-language table read them."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from .. import stats
from ..tasks import threaded
from .blocks import Row, Table
from .data import Cell
from .net_cells import transfer_floor_ns
from .series import (LANGUAGES, NoiseOf, Series, canonical, distinct, label_without, own_floor,
                     tied_ranks)
from .units import multiple, number, unit_for


@dataclass(frozen=True)
class Entry:
    """One measured implementation of a compared group."""
    language: str
    name: str  # method, variant and any label ("· unsteady")
    cell: Cell
    floor_ns: float | None = None  # the least its work costs: its own file's raw, or transfer
    at_floor: bool = False         # this run does not tell it from that floor

    @property
    def ns(self) -> float:
        return self.cell.total.median

    @property
    def label(self) -> str:
        return f"{self.language} · {self.name}"


def compared_groups(tm) -> dict[str, list[Entry]]:
    """Measured implementations at the section's n, by depth and setting (what is compared)."""
    groups: dict[str, list[Entry]] = defaultdict(list)
    for s in tm.series:
        cell = s.cells.get(tm.n)
        if s.is_floor or cell is None or not cell.measured:
            continue
        where = " · ".join(filter(None, [s.key.depth, s.key.setting,
                                         f"{s.key.threads} threads" if threaded(tm.task)
                                         else ""]))
        floor = _floor(s, cell, tm)
        groups[where or "—"].append(Entry(
            s.key.language, implementation_name(s), cell,
            floor_ns=floor[0] if floor else None,
            at_floor=floor is not None and not _apart(cell, floor[1], tm.noise_of)))
    return groups


def _floor(s: Series, cell: Cell, tm) -> tuple[float, dict] | None:
    """The floor of a series' cell as (median, rounds): the raw read or write of its own file
    (same language and setup), else the transfer floor of its busiest node's bytes (a network
    cell on a measured link: a constant in every round), else none."""
    own = own_floor(s, tm.series, tm.n)
    if own is not None:
        return own.total.median, own.rounds
    transfer = transfer_floor_ns(cell)
    return (transfer, dict.fromkeys(cell.rounds, transfer)) if transfer else None


def _apart(cell: Cell, floor_rounds: dict, noise_of: NoiseOf) -> bool:
    """Does this run set the cell apart from its floor (the rankings' rule; the floor counts
    the cell's own noise)?"""
    noise = noise_of(cell)
    return stats.difference(cell.rounds, floor_rounds, noise, noise).distinct


def implementation_name(s: Series) -> str:
    """The label without its language, depth and setting (the row says those)."""
    return label_without(s, s.key.language, s.key.depth, s.key.setting,
                         f"{s.key.threads} threads")


def language_table(tm, languages: tuple[str, ...]) -> list[Table]:
    """Each language's fastest and slowest implementations per compared group of one task ×
    model: the detail behind the summary's one row per group."""
    groups = tm.compared
    present = [lang for lang in languages if any(e.language == lang for g in groups.values()
                                                  for e in g)]
    if not groups or not present:
        return []
    rows = [Row([where, *language_cells(entries, present, tm.noise_of)])
            for where, entries in groups.items()]
    return [Table(f"Fastest and slowest per language: {tm.task} · {tm.where}, n = {tm.n:,}",
                  ["at", *present], rows,
                  "Per language: its fastest implementations (a ≈ b: this run does not tell "
                  "them apart, by the rankings' rule), the first one's median time and its "
                  "multiple of the overall fastest's median; then its slowest implementation "
                  "and its median's multiple of the language's fastest's. Every multiple is the "
                  "ratio of the two medians it names. (tied for fastest): the language's "
                  "fastest are tied with the overall fastest.")]


def language_cells(entries: list[Entry], languages: list[str], noise_of: NoiseOf) -> list[str]:
    best = tied_ranks(entries, noise_of, lambda e: e.cell)[0][1]
    fastest_overall = min(entries, key=lambda e: e.ns)
    unit = unit_for(fastest_overall.ns)
    cells = []
    for language in languages:
        mine = [e for e in entries if e.language == language]
        if not mine:
            cells.append("—")
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
        cells.append(text)
    return cells


def languages_of(cells: list[Cell]) -> tuple[str, ...]:
    return tuple(sorted({c.language for c in cells}, key=lambda x: canonical(x, LANGUAGES)))
