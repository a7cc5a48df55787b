"""A JIT's process warmed before its first measured cell, by running the cells it will measure.

A JVM compiles what it runs, when it has run it often enough. The group's process (one per
method x model, runner.py) measured its first cells while compiling them: on a default run,
131 of 136 Java write cells were unsteady (each the first thing its JVM timed: the methods'
writes compiled for 40-220 % of their measured time), and 59 of the 164 reads and sorts that
came after them (36 %) still compiled a path of their own while measured.

So before its first measured round, such a process runs each of its group's cells once (one
per code path: cells that differ only in n, or a floor's in the file it reads, run the same
code), unmeasured, pass after pass: every path a measured cell will take, its task's own and its
method's encode, page, index and decode code at each depth, is run by construction, with the
group's own model and data. The passes end when the JIT is quiet by the rule a driver's own
warm-up follows (steady.still_compiling: its last QUIET_WINDOW_NS of repetitions, over as
many passes as that takes, compiled no more than judge() lets a measured cell), or when the
group's `prewarm_max_ms` has passed. A JIT compiles in bursts (a pass with no compile is
followed by one of 100 ms as methods cross the next tier's threshold), so one short quiet
pass is no sign. A measured cell whose JIT still compiled keeps
its `unsteady` label (steady.judge): warming decides nothing about the verdict.

Not warmed so: a process that reports no JIT; the cells that run in fresh processes of their
own (forks; the network tasks' nodes, each round's new) and the ones the harness measures
itself (sizes).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable

from .. import steady
from ..cell import RAW, Cell
from ..results import CellResult
from ..tasks import TASKS


@dataclass(frozen=True)
class Prewarm:
    """How a process's warm-up went: what its cells' counters record as `prewarm`."""

    passes: int
    ms: float
    quiet: bool  # its last pass compiled no more than a measured cell may
    note: str  # what the last pass compiled, or why the warm-up ended early

    def counters(self) -> dict:
        return {"passes": self.passes, "ms": round(self.ms, 1), "quiet": self.quiet,
                **({"note": self.note} if self.note else {})}


def warmable(cell: Cell) -> bool:
    """Is the cell run in its group's process by the driver (so warming it there counts)?"""
    spec = TASKS[cell.task]
    return not (spec.by_harness or spec.net or cell.forks)


def budget_ms(cells: list[Cell]) -> int:
    """The group's warm-up budget: the largest its cells' plan groups give."""
    return max((c.prewarm_max_ms for c in cells if warmable(c)), default=0)


def code_path(cell: Cell) -> tuple:
    """What decides the code a cell runs: its task, depth, variant, setting and threads, not
    its n; a floor's variant only names the method whose file it reads, with the same code."""
    return (cell.task, cell.depth, "" if cell.method == RAW else cell.variant, cell.setting,
            cell.threads)


def unmeasured(cell: Cell) -> Cell:
    """The cell as one pass runs it: one repetition, no warm-ups of its own."""
    return replace(cell, warmups=0, warmup_ms=0, warmup_max_ms=0, repetitions=1)


def prewarm(cells: list[Cell], run_once: Callable[[Cell], CellResult],
            clock: Callable[[], float] = time.monotonic) -> Prewarm | None:
    """Passes over the group's warmable cells, each run once by `run_once`, until the JIT is
    quiet or the budget is spent; None when there is nothing to warm."""
    paths: dict[tuple, Cell] = {}
    for c in filter(warmable, cells):
        paths.setdefault(code_path(c), c)
    todo = [unmeasured(c) for c in paths.values()]
    budget_s = budget_ms(cells) / 1000
    if not todo or budget_s <= 0:
        return None
    began, passes, samples = clock(), 0, []
    while True:
        this_pass = []
        for cell in todo:
            result = run_once(cell)
            if result.status != "ok":  # its measured rounds will say why, in full
                return Prewarm(passes, (clock() - began) * 1000, False,
                               f"ended by {cell.task}: {result.status}")
            this_pass += result.samples
        passes += 1
        samples += this_pass
        busy = steady.still_compiling(samples)
        spent_s = clock() - began
        if not busy or spent_s >= budget_s:
            return Prewarm(passes, spent_s * 1000, not busy, _why(busy, this_pass))


def _why(busy: bool, this_pass: list[dict]) -> str:
    if not busy:
        return ""
    return steady.compiling(this_pass) or (
        f"still compiling in its last {steady.QUIET_WINDOW_NS / 1e6:.0f} ms of repetitions")
