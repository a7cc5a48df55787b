"""Do two runs of one plan tell the same story? What `serbench selfcheck` reports, from the two
runs' reports as a reader sees them:

- leaders: per per-language entry (task, model, depth and setting, language), the set of
  implementations named fastest; two runs agree on an entry when their sets overlap;
- flagged: the share of cells `serbench compare` calls faster or slower;
- reversals: of the pairs one run's rankings call apart (different ranks), the share the other
  run calls apart the other way round;
- the machine's run-to-run noise per task (noise.py), and the smallest difference a ranking
  and a comparison can then tell, per task.
"""
from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass

from .. import stats
from ..compare import Comparison
from ..compare.noise import sigma_from_residuals
from .series import tied_ranks
from .tasks import TaskModel


def leaders(tasks: dict[str, list[TaskModel]]) -> dict[tuple, frozenset[str]]:
    """(task, model, where, language) -> the names of the language's fastest tied set, as
    each task section's per-language table names them."""
    found = {}
    for task, models in tasks.items():
        for tm in models:
            for where, entries in tm.compared.items():
                for language in {e.language for e in entries}:
                    mine = [e for e in entries if e.language == language]
                    ranked = tied_ranks(mine, tm.noise_of, lambda e: e.cell)
                    found[(task, tm.model, where, language)] = frozenset(
                        e.name for e in ranked[0][1])
    return found


def ranks(tasks: dict[str, list[TaskModel]]) -> dict[tuple, dict[str, int]]:
    """(task, model, depth, n) -> implementation label -> its rank (tied rows share one)."""
    found = {}
    for models in tasks.values():
        for tm in models:
            for ranking in tm.rankings():
                key = (tm.task, tm.model, ranking.depth, ranking.n)
                found[key] = {row.series.label: int(row.rank.rstrip("="))
                              for row in ranking.measured}
    return found


@dataclass(frozen=True)
class Agreement:
    entries: int             # first-table entries both runs have
    leaders_agree: int       # of them, where the two runs' leader sets overlap
    leader_set_sizes: list[int]  # the size of each leader set, both runs
    pairs_apart: int         # pairs run A's rankings call apart, both runs have
    pairs_reversed: int      # of them, called apart the other way round by run B
    cells: int               # cells compared
    cells_flagged: int       # called faster or slower by compare

    @property
    def leaders_share(self) -> float:
        return self.leaders_agree / self.entries if self.entries else math.nan

    @property
    def reversed_share(self) -> float:
        return self.pairs_reversed / self.pairs_apart if self.pairs_apart else math.nan

    @property
    def flagged_share(self) -> float:
        return self.cells_flagged / self.cells if self.cells else math.nan

    @property
    def median_leader_set(self) -> float:
        return statistics.median(self.leader_set_sizes) if self.leader_set_sizes else math.nan


def agreement(tasks_a: dict[str, list[TaskModel]], tasks_b: dict[str, list[TaskModel]],
              comparison: Comparison) -> Agreement:
    leaders_a, leaders_b = leaders(tasks_a), leaders(tasks_b)
    shared = leaders_a.keys() & leaders_b.keys()
    agree = sum(bool(leaders_a[k] & leaders_b[k]) for k in shared)
    sizes = [len(leaders_a[k]) for k in shared] + [len(leaders_b[k]) for k in shared]
    apart = reversed_ = 0
    ranks_a, ranks_b = ranks(tasks_a), ranks(tasks_b)
    for key in ranks_a.keys() & ranks_b.keys():
        a, b = ranks_a[key], ranks_b[key]
        labels = sorted(a.keys() & b.keys())
        for i, x in enumerate(labels):
            for y in labels[i + 1:]:
                if a[x] != a[y]:
                    apart += 1
                    reversed_ += b[x] != b[y] and (a[x] < a[y]) != (b[x] < b[y])
    flagged = sum(row.verdict != "no difference" for row in comparison.rows)
    return Agreement(len(shared), agree, sizes, apart, reversed_, len(comparison.rows), flagged)


def task_noise(comparison: Comparison) -> dict[str, float]:
    """Per task, and per task in each language with enough cells (`task/language`), one run's
    process-and-run noise (log scale): the spread of the cells' shift-corrected log ratios
    beyond their rounds, shared out over the two runs (noise.sigma_from_residuals)."""
    found = {task: sigma / math.sqrt(2) for task, sigma in comparison.sigma.items()}
    groups: dict[str, list] = defaultdict(list)
    for row in comparison.comparable:
        groups[f"{row.identity['task']}/{row.identity['language']}"].append(row)
    for key, rows in groups.items():
        judged = [r for r in rows if r.residual is not None]  # after its set's shift
        if len(judged) < stats.MIN_TASK_CELLS:
            continue
        found[key] = sigma_from_residuals(
            [r.residual for r in judged],
            [stats.cell_within_var(r.rounds_a, r.rounds_b) for r in judged])
    return found


def smallest_differences(comparison: Comparison, noise: dict[str, float]) -> dict[str, dict]:
    """Per task, the smallest difference (a ratio - 1) that a ranking within one run and that
    `serbench compare` between two runs can call, for the task's median cell."""
    found = {}
    for task in comparison.sigma:
        rows = [r for r in comparison.comparable if r.identity["task"] == task]
        noise_of = lambda row: noise.get(f"{task}/{row.identity['language']}", noise[task])
        within = statistics.median(stats.cell_within_var(r.rounds_a, r.rounds_a) / 2
                                   for r in rows)
        rounds = statistics.median(len(r.rounds_a) for r in rows)
        between = statistics.median(2 * noise_of(r) ** 2 for r in rows)
        rank_bound = stats.t_quantile(max(1, int(rounds) - 1)) * math.sqrt(2 * within + between)
        compare_bound = stats.CELL_Z * math.sqrt(
            statistics.median(stats.cell_within_var(r.rounds_a, r.rounds_b) for r in rows)
            + comparison.sigma[task] ** 2)
        found[task] = {"ranking": math.expm1(rank_bound), "compare": math.expm1(compare_bound),
                       "cells": len(rows)}
    return found
