"""The report's comparison with a baseline run (`serbench report --baseline RUN`): the same
cells side by side, each ratio with its 95 % interval and verdict, a geometric mean per task,
and what could not be compared (compare.py computes all of it)."""
from __future__ import annotations

from collections import Counter

from ..compare import Comparison, label
from .blocks import Facts, Row, Section, Table
from .units import multiple


def baseline_section(comparison: Comparison) -> Section:
    verdicts = Counter(row.verdict for row in comparison.rows)
    facts = [("baseline", comparison.run_a),
             ("verdicts at 95 %", f"{verdicts['slower']:,} slower, {verdicts['faster']:,} "
                                  f"faster, {verdicts['no difference']:,} no difference, of "
                                  f"{len(comparison.rows):,} cells compared"),
             ("not compared", f"{comparison.only_a:,} only in the baseline, "
                              f"{comparison.only_b:,} only in this run, "
                              f"{len(comparison.not_ok):,} not ok in at least one")]
    if comparison.hosts:
        facts.append(("hosts differ", f"{comparison.hosts[0]} (baseline) and "
                                      f"{comparison.hosts[1]} (this run): each ratio also "
                                      "compares the machines"))
    means = Table("Geometric mean of this run / baseline, per task",
                  ["task", "this run / baseline"],
                  [Row([task, multiple(mean)]) for task, mean in comparison.task_means().items()],
                  "Over the cells measured the same way in both runs.",
                  numeric=frozenset({1}))
    changed = [r for r in comparison.rows if r.verdict != "no difference" or r.protocol]
    cells = Table("Cells that changed (or were measured differently)",
                  ["cell", "baseline ms", "this run ms", "this run / baseline", "95 % CI",
                   "verdict", "measured differently"],
                  [Row([label(r.identity), f"{r.median_a / 1e6:.3f}", f"{r.median_b / 1e6:.3f}",
                        f"{r.ratio:.3f}", "{:.3f}–{:.3f}".format(*r.interval), r.verdict,
                        ", ".join(r.protocol) or "—"]) for r in changed],
                  "Median total time of the measured repetitions; the interval is a seeded "
                  "percentile bootstrap of the ratio of medians. A cell whose interval "
                  "contains 1 (no difference) is left out of this table.",
                  numeric=frozenset({1, 2, 3, 4}))
    return Section("baseline", f"Against baseline run {comparison.run_a}",
                   "The cells of this run matched with the same cells of the baseline run.",
                   blocks=[Facts(facts), means, cells])
