"""The answer on the report's first screen: a few takeaways, then one row per task, model and
compared group saying who is fastest, by how much over the next implementation this run tells
apart (with that ratio's 95 % interval), how far the slowest is behind, and how sure the row
is (how many of its figures are steady, and whether most sit at their floor, where the disk or
the link decides and the implementations do not).

Every ratio is the ratio of the two medians it names."""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass

from .. import stats
from ..tasks import task_spec
from .blocks import Facts, Row, Table
from .leaders import Entry
from .plots import language_color
from .series import NoiseOf, tied_ranks
from .strip import Mark, Strip, axis
from .tasks import spec_for
from .units import multiple, number, unit_for


# a row is floor-bound when at least this share of its implementations are within noise of
# their floor: then the disk or link sets the time, and speed does not choose between them
FLOOR_BOUND_SHARE = 0.5
# takeaways: a line of its own for this many families (the most rows first), the rest in one
LEAD_LINES = 3
# leaders a takeaway names, the most often first
LEADERS_NAMED = 3


@dataclass(frozen=True)
class Answer:
    """One compared group of one task × model, ranked."""
    task: str
    where: str  # its model, and its host on a cluster
    at: str     # depth, setting and threads, "—" for none
    ranked: list[tuple[str, list[Entry]]]
    noise_of: NoiseOf

    @property
    def entries(self) -> list[Entry]:
        return [e for _, tied in self.ranked for e in tied]

    @property
    def winner(self) -> Entry:
        return self.ranked[0][1][0]

    @property
    def tied(self) -> list[Entry]:
        return self.ranked[0][1]

    @property
    def runner_up(self) -> Entry | None:
        """The fastest implementation this run sets apart from the winner."""
        return self.ranked[1][1][0] if len(self.ranked) > 1 else None

    @property
    def slowest(self) -> Entry:
        return max(self.entries, key=lambda e: e.ns)

    def gap(self) -> tuple[float, float, float] | None:
        """The runner-up's median over the winner's, and the 95 % interval of the two cells'
        ratio as the rankings' test estimates it (their per-round ratios, paired where they
        share rounds, widened by both cells' run-to-run noise): what set them apart, so it
        excludes 1."""
        other = self.runner_up
        if other is None:
            return None
        ratio = other.ns / self.winner.ns
        d = stats.difference(other.cell.rounds, self.winner.cell.rounds,
                             self.noise_of(other.cell), self.noise_of(self.winner.cell))
        if not math.isfinite(d.bound):
            return ratio, math.nan, math.nan
        return ratio, math.exp(d.log_ratio - d.bound), math.exp(d.log_ratio + d.bound)

    @property
    def steady(self) -> int:
        return sum(e.cell.steady is True for e in self.entries)

    @property
    def at_floor(self) -> int:
        return sum(e.at_floor for e in self.entries)

    @property
    def floor_bound(self) -> bool:
        return self.at_floor >= FLOOR_BOUND_SHARE * len(self.entries)

    @property
    def floor_ratio(self) -> float | None:
        floors = [e.floor_ns for e in self.entries if e.floor_ns]
        return min(floors) / self.winner.ns if floors else None


def answers(tasks: dict) -> list[Answer]:
    """Every compared group of every task × model that a task section shows, in the sections'
    order."""
    found = []
    for task, models in tasks.items():
        if not spec_for(task).builders:
            continue  # shown by a section of its own (sizes: the bytes table answers it)
        for tm in models:
            for at, entries in tm.compared.items():
                found.append(Answer(task, tm.where, at,
                                    tied_ranks(entries, tm.noise_of, lambda e: e.cell),
                                    tm.noise_of))
    return found


# -- the table -------------------------------------------------------------------------------

def answer_table(found: list[Answer]) -> Table:
    low, high = axis([r for a in found for r in _ratios(a)])
    rows = [_row(a, low, high) for a in found]
    return Table("The answer: fastest per task, model and setting", [
        "task · model", "at", "fastest", "median", "next distinct (95 % interval)", "slowest",
        "how sure"], rows,
        "fastest: the implementation with the least median time, and how many this run cannot "
        "tell from it (tied, by the rankings' rule; the list is in the task's section). next "
        "distinct: the fastest implementation this run does set apart from it, its median "
        "over the fastest's, and the 95 % interval of their ratio as the rankings' test "
        "estimates it (their per-round ratios, paired where they share rounds, widened by the "
        "task's run-to-run noise; it excludes 1, which is what sets them apart). slowest: its "
        "median over the fastest's. how sure: how many "
        "of the row's figures are steady (the rest are labelled in their sections), and "
        "floor-bound where most implementations are within noise of their floor (the raw "
        "write or read of their own file, or the link's transfer time), so that the disk or "
        "the network decides, not the implementation. The strip: every implementation's "
        "median over the fastest's on one log axis for the whole table, coloured by language "
        "(rust orange, cpp green, java purple), the floor in grey; hover for names.",
        numeric=frozenset({3}), strip_column="every implementation", accent_column=2)


def _ratios(a: Answer) -> list[float]:
    return [e.ns / a.winner.ns for e in a.entries] + ([a.floor_ratio] if a.floor_ratio else [])


def _row(a: Answer, low: float, high: float) -> Row:
    winner, n = a.winner, len(a.entries)
    unit = unit_for(winner.ns)
    fastest = winner.label + (f" (+{len(a.tied) - 1} tied)" if len(a.tied) > 1 else "")
    gap = a.gap()
    if gap is None:
        nxt = "— (all tied)" if n > 1 else "— (one implementation)"
    else:
        ratio, lo, hi = gap
        interval = f" ({lo:.2f}–{hi:.2f})" if math.isfinite(lo) else ""
        nxt = f"{a.runner_up.label} {multiple(ratio)}{interval}"
    slowest = a.slowest
    sure = f"{a.steady}/{n} steady" + (f" · floor-bound: {a.at_floor}/{n} at their floor"
                                       if a.floor_bound else "")
    marks = tuple(Mark(e.ns / winner.ns, e.language,
                       f"{e.label} {number(unit.of(e.ns))} {unit.name} "
                       f"({multiple(e.ns / winner.ns)})") for e in a.entries)
    return Row([f"{a.task} · {a.where}", a.at, fastest,
                f"{number(unit.of(winner.ns))} {unit.name}", nxt,
                f"{slowest.label} {multiple(slowest.ns / winner.ns)}" if n > 1 else "—", sure],
               strip=Strip(marks, a.floor_ratio, low, high),
               accent=language_color(winner.language))


# -- takeaways -------------------------------------------------------------------------------

def family(task: str) -> str:
    """What the takeaways call a task's family: its declared family, else its title."""
    spec = task_spec(task)
    return (spec.family or spec.title.lower()) if spec is not None else task


def takeaways(found: list[Answer], steady_by_language: dict[str, tuple[int, int]]) -> Facts:
    """Three to five lines: who leads where the implementations decide (a line for each of the
    largest families, the rest in one), where the floor decides instead, and how much of each
    language's figures are steady."""
    deciding: dict[str, list[Answer]] = defaultdict(list)
    for a in found:
        if not a.floor_bound and len(a.entries) > 1:
            deciding[family(a.task)].append(a)
    largest = sorted(deciding, key=lambda f: -len(deciding[f]))
    items = [(name, lead_line(deciding[name])) for name in largest[:LEAD_LINES]]
    if rest := largest[LEAD_LINES:]:
        items.append(("elsewhere", "; ".join(f"{name}: {leaders(deciding[name], 1)}"
                                             for name in rest)))
    if bound := floor_line(found):
        items.append(("floor-bound", bound))
    if steady_by_language:
        items.append(("steady", ", ".join(
            f"{language} {steady / timed:.0%} of {timed:,}" for language, (steady, timed)
            in steady_by_language.items() if timed) + " timed cells; the rest are labelled"))
    return Facts(items, wide=True)


def leaders(group: list[Answer], named: int) -> str:
    """The implementations first (alone or tied) in the most rows, with their counts, and how
    many more share a first place somewhere."""
    first = Counter(f"{e.language} · {e.cell.method}" + (f" · {e.cell.variant}"
                                                         if e.cell.variant else "")
                    for a in group for e in a.tied)
    ranked = first.most_common(named)
    text = ", ".join([f"{ranked[0][0]} (first in {ranked[0][1]} of {len(group)})",
                      *(f"{name} ({k})" for name, k in ranked[1:])])
    more = len(first) - len(ranked)
    return text + (f", {more} more tied for first" if more else "")


def lead_line(group: list[Answer]) -> str:
    gaps = [g[0] for a in group if (g := a.gap()) is not None]
    worst = max(group, key=lambda a: a.slowest.ns / a.winner.ns)
    text = leaders(group, LEADERS_NAMED)
    if gaps:
        text += (f"; next distinct {multiple(min(gaps))}"
                 + (f"–{multiple(max(gaps))}" if max(gaps) > min(gaps) else "") + " slower")
    return text + (f"; slowest up to {multiple(worst.slowest.ns / worst.winner.ns)} "
                   f"({worst.slowest.label}, {worst.task} · {worst.where})")


def floor_line(found: list[Answer]) -> str:
    bound: dict[str, list[Answer]] = defaultdict(list)
    for a in found:
        bound[a.task].append(a)
    named = [f"{task} ({k} of {len(rows)} rows)" for task, rows in bound.items()
             if (k := sum(a.floor_bound for a in rows)) * 2 >= len(rows)]
    if not named:
        return ""
    return (f"{', '.join(named)}: most implementations within noise of their floor (their own "
            "file's raw write or read, or the link): the disk or network sets the time here, "
            "not the implementation")
