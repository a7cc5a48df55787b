"""Cells grouped into series (one per method × language × depth × …, over n) and ranked at one n."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import stats
from ..cell import DEPTHS, LANGUAGES
from ..models import MODELS
from ..tasks import TASKS as TASK_SPECS
from .data import FLOOR_METHOD, Cell
from .units import byte_size


TASKS = tuple(TASK_SPECS)  # the tasks' canonical order


def canonical(value: str, order: tuple[str, ...]) -> tuple[int, str]:
    """Sort key: known ids in their canonical order, unknown ones after them alphabetically."""
    return (order.index(value), "") if value in order else (len(order), value)


@dataclass(frozen=True)
class SeriesKey:
    """Everything that identifies a line except n; `repeat` separates cells a plan repeated."""
    language: str
    method: str
    depth: str
    variant: str
    setting: str
    dataset: str
    threads: int | None
    page_size: int | None
    cold: bool | None
    repeat: int = 0


# fields shown in a label only when they differ within one task × model
OPTIONAL_LABEL_FIELDS = ("dataset", "threads", "page_size", "cold", "repeat")


@dataclass
class Series:
    key: SeriesKey
    label: str = ""
    cells: dict[int, Cell] = field(default_factory=dict)  # by n

    @property
    def is_floor(self) -> bool:
        return self.key.method == FLOOR_METHOD

    @property
    def measured_ns(self) -> list[int]:
        return sorted(n for n, c in self.cells.items() if c.measured)

    def sort_key(self) -> tuple:
        k = self.key
        return (not self.is_floor, canonical(k.depth, DEPTHS), k.method,
                canonical(k.language, LANGUAGES), k.variant, k.setting, self.label)


def _key(cell: Cell, repeat: int = 0) -> SeriesKey:
    return SeriesKey(cell.language, cell.method, cell.depth, cell.variant, cell.setting,
                     cell.dataset,
                     cell.threads, cell.page_size, cell.cold, repeat)


def build_series(cells: list[Cell]) -> list[Series]:
    """Series of one task × model, labelled, floor first, then by depth, method and language."""
    by_key: dict[SeriesKey, Series] = {}
    for cell in cells:
        repeat = 0
        while (key := _key(cell, repeat)) in by_key and cell.n in by_key[key].cells:
            repeat += 1
        by_key.setdefault(key, Series(key)).cells[cell.n] = cell
    varying = {name for name in OPTIONAL_LABEL_FIELDS
               if len({getattr(k, name) for k in by_key}) > 1}
    for series in by_key.values():
        series.label = label(series.key, varying, series.is_floor) + marks(series)
    return sorted(by_key.values(), key=Series.sort_key)


UNSTEADY = "unsteady"
TRUSTING = "trusts its bytes"


def steadiness(cell: Cell) -> str:
    """The label a timed number carries when it was not shown to be at steady state."""
    if cell.steady is False:
        return f"{UNSTEADY} ({cell.steady_note})"
    return "unjudged" if cell.steady is None else ""


def ok_status(cell: Cell) -> str:
    """The status column of a measured cell: ok, whether it trusted its bytes, whether its
    cold cache was shown to be cold, and its steadiness unless shown steady."""
    return " · ".join(filter(None, ["ok", TRUSTING if cell.trusting else "", cell.cold_note,
                                    steadiness(cell)]))


def marks(series: Series) -> str:
    """What a series' label adds to its name: every label its numbers carry."""
    return trusting_mark(series) + cold_mark(series) + unsteady_mark(series)


def trusting_mark(series: Series) -> str:
    """A read that does not check the bytes it reads (an unvalidated in-place access) is
    faster for it; its label says so wherever it appears."""
    return f" · {TRUSTING}" if any(c.trusting for c in series.cells.values()) else ""


def cold_mark(series: Series) -> str:
    """A cold read that left its files cached was not cold; which n: the ranking's status."""
    notes = {c.cold_note.split(" (")[0] for c in series.cells.values()
             if c.measured and c.cold_note}
    return "".join(f" · {note}" for note in sorted(notes))


def unsteady_mark(series: Series) -> str:
    """Every table and plot names a series by its label, so a series with a number measured
    before steady state says so wherever it appears (which n: the ranking's status)."""
    return f" · {UNSTEADY}" if any(c.measured and c.steady is False
                                   for c in series.cells.values()) else ""


def label(key: SeriesKey, varying: set[str], floor: bool) -> str:
    """`rust · handcoded · materialize`: the depth is always named, so that a lazy read is
    never mistaken for a full decode."""
    parts = [key.language, "raw floor" if floor else key.method]
    if key.depth and not floor:
        parts.append(key.depth)
    if key.variant:
        # a raw cell's variant is the method whose file it reads
        parts.append(f"{key.variant} file" if floor else key.variant)
    if key.setting:
        parts.append(key.setting)
    if "dataset" in varying:
        parts.append(key.dataset)
    if "threads" in varying:
        parts.append(f"{key.threads} threads")
    if "page_size" in varying and key.page_size:
        parts.append(f"{byte_size(key.page_size)} pages")
    if "cold" in varying:
        parts.append("cold" if key.cold else "warm")
    if "repeat" in varying and key.repeat:
        parts.append(f"repeat {key.repeat + 1}")
    return " · ".join(parts)


def label_without(s: Series, *said: str) -> str:
    """The series label without the parts a table's row or title already says."""
    return " · ".join(part for part in s.label.split(" · ") if part not in said)


def chosen_n(series: list[Series]) -> tuple[int | None, bool]:
    """The largest n every measured series shares (True), else the largest n measured (False)."""
    sets = [set(s.measured_ns) for s in series if s.measured_ns]
    if not sets:
        return None, False
    shared = set.intersection(*sets)
    return (max(shared), True) if shared else (max(set.union(*sets)), False)


def floor_series(series: list[Series], n: int | None) -> list[Series]:
    """Per language, the floor: the fastest raw read at n of any method's file (the least any
    representation of the data costs to read); a language without one keeps a raw series so
    its status is shown."""
    by_language: dict[str, list[Series]] = defaultdict(list)
    for s in series:
        if s.is_floor:
            by_language[s.key.language].append(s)
    chosen = []
    for language in sorted(by_language, key=lambda lang: canonical(lang, LANGUAGES)):
        measured = [s for s in by_language[language] if _measured_at(s, n)]
        chosen.append(min(measured, key=lambda s: s.cells[n].total.median) if measured
                      else by_language[language][0])
    return chosen


def _setup(k: SeriesKey) -> tuple:
    return (k.language, k.setting, k.dataset, k.threads, k.page_size, k.cold)


def own_floor(s: Series, series: list[Series], n: int | None) -> Cell | None:
    """The raw read of the file this series' method wrote, same language and setup."""
    for other in series:
        if other.is_floor and other.key.variant == s.key.method and \
                _setup(other.key) == _setup(s.key):
            return _measured_at(other, n)
    return None


@dataclass(frozen=True)
class RankRow:
    rank: str                 # "1", "2=", … for measured rows (= tied), "floor", or ""
    series: Series
    cell: Cell | None         # the cell the row shows, None when the series has none to show
    multiple: float | None    # median / best median of the same depth
    status: str               # ok, invalid, failed, unsupported, no samples, not run
    note: str = ""
    over_floor: float | None = None  # median / the raw read of the method's own file
    floor_paired: bool = False  # over_floor from raw reads timed in rounds beside this one


@dataclass(frozen=True)
class Ranking:
    depth: str
    n: int | None
    best_ns: float | None
    rows: list[RankRow]

    @property
    def measured(self) -> list[RankRow]:
        return [r for r in self.rows if r.rank not in ("", "floor")]


NoiseOf = Callable[[Cell], float]  # a cell's run-to-run noise (noise.Profile.of)


def rankings(series: list[Series], n: int | None, noise_of: NoiseOf) -> list[Ranking]:
    """One ranking per access depth: comparisons are made at equal depth, with the floor in
    each. `noise_of`: each cell's run-to-run noise (noise.py), which a step between two ranks
    must clear."""
    floors = floor_series(series, n)
    by_depth: dict[str, list[Series]] = defaultdict(list)
    for s in series:
        if not s.is_floor:
            by_depth[s.key.depth].append(s)
    return [_ranking(depth, by_depth[depth], floors, series, n, noise_of)
            for depth in sorted(by_depth, key=lambda d: canonical(d, DEPTHS))]


def distinct(a: Cell, b: Cell, noise_of: NoiseOf) -> bool:
    """Does this run set the two cells apart (stats.difference, paired on their rounds)?"""
    return stats.difference(a.rounds, b.rounds, noise_of(a), noise_of(b)).distinct


def tied_ranks(cells: list, noise_of: NoiseOf, cell_of=lambda x: x) -> list[tuple[str, list]]:
    """`cells` (or items holding one: `cell_of`) in ranks: each rank the items this run does not
    set apart from the rank's fastest (stats.tied_sets), named `k` alone or `k=` when tied, k
    counting the items ranked above it plus one."""
    sets = stats.tied_sets(cells, lambda x: (cell_of(x).total.median, cell_of(x).cell_id),
                           lambda x, y: distinct(cell_of(x), cell_of(y), noise_of))
    ranked, above = [], 0
    for tied in sets:
        ranked.append((f"{above + 1}" + ("=" if len(tied) > 1 else ""), tied))
        above += len(tied)
    return ranked


def _measured_at(s: Series, n: int | None) -> Cell | None:
    cell = s.cells.get(n)
    return cell if cell is not None and cell.measured else None


def _ranking(depth: str, group: list[Series], floors: list[Series], everything: list[Series],
             n: int | None, noise_of: NoiseOf) -> Ranking:
    ranked = tied_ranks([(s, c) for s in group if (c := _measured_at(s, n))], noise_of,
                        lambda sc: sc[1])
    best = ranked[0][1][0][1].total.median if ranked else None

    def ratio(cell: Cell) -> float | None:
        return cell.total.median / best if best else None

    def over_floor(s: Series, cell: Cell) -> float | None:
        if cell.over_paired_floor is not None:
            return cell.over_paired_floor
        own = own_floor(s, everything, n)
        return cell.total.median / own.total.median if own else None

    rows = [RankRow("floor", s, c, ratio(c), "ok", _problems_elsewhere(s, n))
             for s in floors if (c := _measured_at(s, n))]
    rows += [RankRow(rank, s, c, ratio(c), "ok", _problems_elsewhere(s, n), over_floor(s, c),
                     c.over_paired_floor is not None)
             for rank, tied in ranked for s, c in tied]
    rows += [_unmeasured_row(s, n) for s in floors + group if not _measured_at(s, n)]
    return Ranking(depth, n, best, rows)


def _problems_elsewhere(s: Series, n: int | None) -> str:
    """A ranked series' cells without numbers at other n, so the ranking never hides them."""
    return "; ".join(f"{c.status if c.status != 'ok' else 'no samples'} at n = {c.n:,}"
                     for c in sorted(s.cells.values(), key=lambda c: c.n)
                     if c.n != n and not c.measured)


def _unmeasured_row(s: Series, n: int | None) -> RankRow:
    """Why a series has no number at n: its cell's status there, or at the largest n it has."""
    rank = "floor" if s.is_floor else ""
    cell = s.cells.get(n)
    if cell is not None:
        return RankRow(rank, s, cell, None, "no samples" if cell.status == "ok" else cell.status)
    others = [c for c in s.cells.values() if not c.measured]
    if others:
        cell = max(others, key=lambda c: c.n)
        status = cell.status if cell.status != "ok" else "no samples"
        everywhere = len(others) == len(s.cells) and len({c.status for c in others}) == 1
        return RankRow(rank, s, cell, None, status, "" if everywhere else f"at n = {cell.n:,}")
    return RankRow(rank, s, None, None, "not run", note=f"not run at n = {n:,}")
