"""Interleaved, adaptive measurement: the cells a report compares are measured in rounds.

A comparison set is every cell of one batch (dataset, model, page size) with the same task, n,
setting, threads and cache state: the cells the report sets side by side, across methods,
depths and languages, and the raw floors beside them. Each round takes every cell of the set
that still needs measuring once, in a shuffled order (seeded per set and round, so a run can
be replayed), in the driver process its method keeps for the whole batch. A machine that
drifts over minutes then moves every compared cell alike, and the per-round ratio of two cells
cancels it (stats.py); measured one after the other, two cells minutes apart saw two machines.

A cell's first round runs the plan's warm-ups (and a JIT's time-based ones); later rounds warm
up once (a driver's buffers are per request) or not at all when the plan asks for none, but
those of a fork or a network cell, in new processes, warm up as the first. After
the first round the repetitions per round grow until a round lasts min_sample_ms. Rounds go on
until the median's 95 % interval is within ci_target, or rounds_max, or the set's time cap
counted from the end of the first round (stats.stop_reason), but never before rounds_min;
each cell records which ended it. A cell with forks runs every round in a
fresh process of its own (JMH's forks), `forks` rounds.
"""
from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .. import stats
from ..cell import RAW, Cell
from ..results import CellResult
from ..tasks import TASK_ORDER, TASKS


# A round's outcome for one cell: the task's CellResult for that round's request(s).
Measure = Callable[[Cell, int], CellResult]
Record = Callable[[Cell, CellResult], None]


def comparison_key(cell: Cell) -> tuple:
    """What a set's cells share (within one batch)."""
    return (TASK_ORDER[cell.task], cell.task, cell.n, cell.setting, cell.threads, cell.cold)


def comparison_sets(cells: list[Cell]) -> list[list[Cell]]:
    """A batch's cells cut into comparison sets, in task order (files are written before they
    are read), each in cell order."""
    sets: dict[tuple, list[Cell]] = {}
    for cell in cells:
        sets.setdefault(comparison_key(cell), []).append(cell)
    return [sets[key] for key in sorted(sets)]


def round_order(cells: list[Cell], number: int, rng: random.Random) -> list[Cell]:
    """The cells of one round, shuffled; in the first, the raw floors after the methods whose
    files they read, so that no floor has to make its file itself."""
    if number == 0:
        methods = [c for c in cells if c.method != RAW]
        floors = [c for c in cells if c.method == RAW]
        rng.shuffle(methods)
        rng.shuffle(floors)
        return methods + floors
    order = list(cells)
    rng.shuffle(order)
    return order


def rule_of(cell: Cell) -> stats.StopRule:
    """The cell's stopping rule: with forks, exactly `forks` rounds (each a fresh process, as
    JMH runs its forks); else at least `floor_rounds` rounds beside its floor whatever
    rounds_max says, and rounds_min within rounds_max."""
    if cell.forks:
        return stats.StopRule(cell.ci_target, cell.forks, cell.forks, cell.time_cap_s)
    most = max(cell.rounds_max, cell.floor_rounds)
    return stats.StopRule(cell.ci_target, min(max(cell.rounds_min, cell.floor_rounds), most),
                          most, cell.time_cap_s)


def round_cell(cell: Cell, number: int, repetitions: int) -> Cell:
    """The cell as one round asks for it: the plan's warm-ups in the first round (and in
    every fork, and every round of a network cell), at most one untimed repetition in the
    later ones."""
    if number == 0 or fresh_each_round(cell):
        return replace(cell, repetitions=repetitions)
    return replace(cell, repetitions=repetitions, warmups=min(cell.warmups, 1), warmup_ms=0,
                   warmup_max_ms=0)


def fresh_each_round(cell: Cell) -> bool:
    """Does every round run in new processes, which warm up as the first round's did? A
    fork's process is its round's own, and a network cell starts its nodes for each round."""
    return bool(cell.forks) or TASKS[cell.task].net


@dataclass
class Progress:
    """What one cell of a set has measured so far."""

    cell: Cell
    first: CellResult | None = None  # the first round's result: counters, params, checksums
    samples: list[dict] = field(default_factory=list)
    rounds: int = 0
    repetitions: int = 0  # per round, from the second on
    ended_by: str | None = None
    wall_s: float = 0.0  # the wall time of its rounds: where a run's hours go, per cell

    def add(self, result: CellResult, number: int) -> None:
        """A round's samples, numbered on from the earlier rounds' warm-ups and repetitions
        (the warm-ups' count may differ per round when they run for warmup_ms), each marked
        with its round (and its fork: a fork's process is the round's own)."""
        done = {kind: sum(s["warmup"] == kind for s in self.samples) for kind in (True, False)}
        fork = {"fork": number} if self.cell.forks else {}
        self.samples += [{**s, "rep": s["rep"] + done[s["warmup"]], "round": number, **fork}
                         for s in result.samples]
        self.first = self.first or result
        self.rounds += 1

    def observations(self) -> list[float]:
        return list(stats.observations(self.samples).values())

    def result(self) -> CellResult:
        """The cell's outcome: the first round's, with every round's samples and how the
        measuring ended."""
        width = stats.relative_half_width(self.observations())
        precision = {"rounds": self.rounds, "repetitions_per_round": self.repetitions,
                     "ended_by": self.ended_by, "ci_target": self.cell.ci_target,
                     "ci_half_width": None if width is None else round(width, 4)}
        counters = {**(self.first.counters or {}), "precision": precision,
                    "wall_s": round(self.wall_s, 3)}
        return replace(self.first, samples=self.samples, counters=counters)


def run_set(cells: list[Cell], measure: Measure, record: Record, seed: str,
            clock: Callable[[], float] = time.monotonic) -> None:
    """Measure a comparison set in rounds until each cell ends; record each cell's result
    when it ends (a failed or invalid round ends its cell with that round's outcome)."""
    rng = random.Random(f"rounds:{seed}")
    live = {cell: Progress(cell) for cell in cells}
    started = None  # the end of the first round: its warm-ups are not the cap's
    number = 0
    while live:
        for cell in round_order(list(live), number, rng):
            progress = live[cell]
            asked = progress.repetitions if number else cell.repetitions
            before = clock()
            result = measure(round_cell(cell, number, asked), number)
            progress.wall_s += clock() - before
            if result.status != "ok":
                del live[cell]
                record(cell, _failed_round(result, number, progress.wall_s))
                continue
            progress.add(result, number)
            if not result.samples:  # nothing timed (sizes): one round says all
                progress.ended_by = "untimed"
            elif number == 0:
                progress.repetitions = stats.repetitions_per_round(
                    _repetition_ns(result.samples), cell.min_sample_ms * 1e6, cell.repetitions)
        started = started if started is not None else clock()
        elapsed = clock() - started
        for cell, progress in list(live.items()):
            if progress.ended_by is None:
                progress.ended_by = stats.stop_reason(progress.observations(), rule_of(cell),
                                                      elapsed)
            if progress.ended_by is not None:
                del live[cell]
                record(cell, progress.result())
        number += 1


def _failed_round(result: CellResult, number: int, wall_s: float) -> CellResult:
    counters = {**(result.counters or {}), "wall_s": round(wall_s, 3)}
    if number == 0:
        return replace(result, counters=counters)
    return replace(result, counters=counters,
                   message=f"round {number + 1}: {result.message or ''}")


def _repetition_ns(samples: list[dict]) -> float:
    measured = [s["total_ns"] for s in samples if not s["warmup"]]
    return statistics.median(measured) if measured else 0.0
