"""The report's comparison with a baseline run (`serbench report --baseline RUN`): the
run-wide shift, the same cells side by side, each ratio with the band run-to-run noise explains
and its verdict, the methods that moved, a geometric mean per task, and what could not be
compared (compare.py computes all of it)."""
from __future__ import annotations

from collections import Counter

from ..compare import Comparison, label, other_hosts_line, shift_line
from .blocks import Facts, Row, Section, Table
from .units import multiple


def baseline_section(comparison: Comparison) -> Section:
    verdicts = Counter(row.verdict for row in comparison.rows)
    facts = [("baseline", comparison.run_a),
             ("run-wide shift", shift_line(comparison.shift)),
             ("verdicts", f"{verdicts['slower']:,} slower, {verdicts['faster']:,} faster, "
                          f"{verdicts['no difference']:,} no difference, of "
                          f"{len(comparison.rows):,} cells compared, beyond the run-to-run "
                          "noise")]
    facts += [(m.name, f"{m.ratio - 1:+.1%} over its {m.cells} cells "
                                           "beyond the run's shift, apart from the other "
                                           f"methods (z = {m.score:+.1f})")
              for m in comparison.methods]
    facts.append(("not compared", f"{comparison.only_a:,} only in the baseline, "
                                  f"{comparison.only_b:,} only in this run, "
                                  f"{len(comparison.not_ok):,} not ok in at least one"))
    if comparison.other_hosts:
        facts.append(("other hosts", other_hosts_line(comparison)))
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
                  ["cell", "baseline ms", "this run ms", "this run / baseline",
                   "noise band", "verdict", "measured differently"],
                  [Row([label(r.identity), f"{r.median_a / 1e6:.3f}", f"{r.median_b / 1e6:.3f}",
                        f"{r.ratio:.3f}", "{:.3f}–{:.3f}".format(*r.band), r.verdict,
                        ", ".join(r.protocol) or "—"]) for r in changed],
                  "Median total time of the measured repetitions. Noise band: the ratios the "
                  "run-wide shift of the cell's task and run-to-run noise explain (the cell's "
                  "own rounds in both runs, and its task's spread between the runs, at 99 %); "
                  "a cell inside it (no difference) is left out of this table.",
                  numeric=frozenset({1, 2, 3, 4}))
    return Section("baseline", f"Against baseline run {comparison.run_a}",
                   "The cells of this run matched with the same cells of the baseline run.",
                   blocks=[Facts(facts), means, cells])
