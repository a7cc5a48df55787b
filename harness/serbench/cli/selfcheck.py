"""`serbench selfcheck [PLAN]`: how much this machine's numbers move between two identical runs,
and what that lets a run claim.

The plan runs twice, back to back, on the same build; the two runs are compared and read as a
reader would read their reports (agreement.py). Printed, per task: the run-to-run noise of one
run (noise.py), the smallest difference a ranking within a run and `serbench compare` between
runs can then tell; and the agreement of the two reports: first-table leaders, cells compare
flags, ranked pairs reversed. The noise becomes this host's profile (noise.json under
SERBENCH_HOME), which every later run records and ranks with; `--no-save` keeps the old one.
"""
from __future__ import annotations

import click

from ..compare import compare_runs, noise, shift_line
from ..paths import home
from ..report.agreement import agreement, smallest_differences, task_noise
from ..report.data import load_run
from ..report.render import run_tasks
from ..results import Results
from .output import Listing, emit, format_option, results_console
from .run import checked_pin, chosen_plan, run_with_progress


COLUMNS = ("task", "noise", "noise_by_language", "cells", "smallest_ranked_difference",
           "smallest_compared_difference")


@click.command("selfcheck")
@click.argument("plan", required=False)
@click.option("--pin", help="CPU list for the drivers (taskset), as for `serbench run`")
@click.option("--save/--no-save", default=True, show_default=True,
              help="keep the measured noise as this host's profile for later runs")
@click.option("--runs", nargs=2, metavar="RUN_A RUN_B",
              help="judge these two runs of one plan instead of running it twice")
@click.option("--allow-incomplete", is_flag=True,
              help="with --runs: accept runs that did not complete (their ok cells count)")
@format_option
def selfcheck_command(plan: str | None, pin: str | None, save: bool,
                      runs: tuple[str, str] | None, allow_incomplete: bool = False,
                      fmt: str = "table") -> None:
    """Run PLAN (default: the embedded default plan) twice and report this machine's
    run-to-run noise per task, the smallest difference each task can then tell, and whether
    the two runs' reports agree."""
    chosen = chosen_plan(plan)
    if runs:
        if plan is not None:
            raise click.UsageError("give a plan to run, or --runs of two runs made, not both")
        runs = list(runs)
    else:
        runs = [run_with_progress(chosen, checked_pin(pin), None, False) for _ in range(2)]
    db = home() / "results.duckdb"
    with Results(read_only=True) as results:
        comparison = compare_runs(results, *runs, allow_incomplete=allow_incomplete)
        problem = noise.pair_problem(results.run(runs[0]), results.run(runs[1]),
                                     len(comparison.comparable))
    if problem:
        raise click.UsageError(f"selfcheck cannot measure noise from {problem}")
    reports = [run_tasks(load_run(db, run_id, allow_incomplete)) for run_id in runs]
    agreed = agreement(*reports, comparison)
    measured = {task: round(value, 5) for task, value in task_noise(comparison).items()}
    figures = agreement_figures(agreed)
    profile = noise.Profile(measured, f"serbench selfcheck: runs {runs[0]} and {runs[1]}",
                            {"agreement": figures})
    sigma = profile.sigma  # what later runs rank with: no figure below noise.MIN_SIGMA
    smallest = smallest_differences(comparison, sigma)
    rows = [{"task": task, "noise": sigma[task], "cells": smallest[task]["cells"],
             "noise_by_language": {key.split("/")[1]: value for key, value in sigma.items()
                                   if key.startswith(f"{task}/")},
             "smallest_ranked_difference": round(smallest[task]["ranking"], 4),
             "smallest_compared_difference": round(smallest[task]["compare"], 4)}
            for task in smallest]
    saved = str(noise.save(profile)) if save and sigma else None
    notes = [shift_line(comparison.shift), *agreement_lines(agreed)]
    raised = sorted(key for key, value in measured.items() if value < noise.MIN_SIGMA)
    if raised:
        notes.append(f"below {noise.MIN_SIGMA:.1%}, the least a profile claims, and raised to "
                     f"it: {', '.join(raised)} (the two runs could not see their noise)")
    if saved:
        notes.append(f"this host's noise profile saved to {saved}: later runs rank with it")
    emit(fmt, Listing(COLUMNS, rows), lambda: _table(rows, notes),
         document={"runs": runs, "tasks": rows, "agreement": figures,
                   "shift": comparison.shift and comparison.shift.ratio, "saved": saved},
         notes=notes)


def agreement_figures(agreed) -> dict:
    return {"entries": agreed.entries, "leaders_agree": agreed.leaders_agree,
            "median_leader_set": agreed.median_leader_set, "pairs_apart": agreed.pairs_apart,
            "pairs_reversed": agreed.pairs_reversed, "cells": agreed.cells,
            "cells_flagged": agreed.cells_flagged}


def agreement_lines(agreed) -> list[str]:
    return [f"leaders per language: the same, or overlapping tied sets, in "
            f"{agreed.leaders_agree} of {agreed.entries} entries ({agreed.leaders_share:.1%}); "
            f"median leader set {agreed.median_leader_set:g}",
            f"compare: {agreed.cells_flagged} of {agreed.cells} cells flagged "
            f"({agreed.flagged_share:.1%})",
            f"rankings: {agreed.pairs_reversed} of the {agreed.pairs_apart} pairs the first "
            f"run ranks apart come out reversed in the second ({agreed.reversed_share:.2%})"]


def _table(rows: list[dict], notes: list[str]) -> None:
    from rich.table import Table
    table = Table(title="Run-to-run noise of this machine, per task")
    for column in ("task", "noise (one run)", "by language", "cells",
                   "smallest ranked difference", "smallest compared difference"):
        table.add_column(column, justify="left" if column in ("task", "by language") else "right")
    for row in rows:
        by_language = ", ".join(f"{lang} {value:.1%}"
                                for lang, value in row["noise_by_language"].items())
        table.add_row(row["task"], f"{row['noise']:.1%}", by_language, str(row["cells"]),
                      f"{row['smallest_ranked_difference']:.1%}",
                      f"{row['smallest_compared_difference']:.1%}")
    out = results_console()
    out.print(table)
    for note in notes:
        out.print(note, highlight=False)
