"""`serbench compare | export | import | runs`: the results database read, compared and moved."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from ..cell import IDENTITY
from ..compare import other_hosts_line, shift_line
from ..results import Results, db_path
from .output import Listing, diagnostics_console, emit, format_option, results_console


console = diagnostics_console()  # results go to stdout


COMPARE_COLUMNS = (*IDENTITY, "status_a", "status_b", "median_a_ns", "median_b_ns", "ratio",
                   "ci_low", "ci_high", "band_low", "band_high", "verdict",
                   "measured_differently")


@click.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@click.option("--allow-incomplete", is_flag=True, help="accept runs that did not complete")
@click.option("--limit", type=int, default=0, help="show only the first N rows (0 = all)")
@click.option("--across-hosts", is_flag=True,
              help="also compare a cell that ran on different cluster hosts in the two runs")
@format_option
def compare_command(run_a: str, run_b: str, allow_incomplete: bool, limit: int,
                    across_hosts: bool = False, fmt: str = "table") -> None:
    """Median total time per cell of two runs, ranked by the ratio B / A. Cells not ok in
    both runs follow, without numbers; cells that ran on different cluster hosts are counted
    apart, unless --across-hosts."""
    from ..compare import compare_runs

    with Results(read_only=True) as results:
        comparison = compare_runs(results, run_a, run_b, allow_incomplete, across_hosts)
    ranked = comparison.rows[:limit] if limit > 0 else comparison.rows
    rows = [_compared(row) for row in ranked] + [
        {**identity, "status_a": a, "status_b": b} for identity, a, b in comparison.not_ok]
    notes = _compare_summary(comparison)
    emit(fmt, Listing(COMPARE_COLUMNS, rows), lambda: _compare_table(comparison, ranked, notes),
         document={"run_a": run_a, "run_b": run_b, "cells": rows,
                   "summary": _compare_document(comparison)}, notes=notes)


def _compared(row) -> dict:
    low, high = row.interval
    return {**row.identity, "status_a": "ok", "status_b": "ok", "median_a_ns": row.median_a,
            "median_b_ns": row.median_b, "ratio": round(row.ratio, 6),
            "ci_low": round(low, 6), "ci_high": round(high, 6),
            "band_low": round(row.band[0], 6), "band_high": round(row.band[1], 6),
            "verdict": row.verdict, "measured_differently": row.protocol}


def _compare_document(comparison) -> dict:
    verdicts = Counter(row.verdict for row in comparison.rows)
    return {"compared": len(comparison.rows), "geometric_mean": comparison.geometric_mean,
            "measured_differently": sum(bool(row.protocol) for row in comparison.rows),
            "slower": verdicts["slower"], "faster": verdicts["faster"],
            "no_difference": verdicts["no difference"], "only_a": comparison.only_a,
            "only_b": comparison.only_b, "not_ok": len(comparison.not_ok),
            "other_hosts": len(comparison.other_hosts),
            "geometric_mean_by_task": comparison.task_means(),
            "shift": _shift_document(comparison.shift),
            "shift_by_task": {task: _shift_document(shift)
                              for task, shift in comparison.task_shifts.items()},
            "between_run_sigma_by_task": {task: round(sigma, 6)
                                          for task, sigma in comparison.sigma.items()},
            "methods_apart": [{"language": m.language, "method": m.method,
                               "variant": m.variant,
                               "ratio": round(m.ratio, 6), "cells": m.cells,
                               "score": round(m.score, 2)} for m in comparison.methods],
            "hosts": list(comparison.hosts) if comparison.hosts else None}


def _shift_document(shift) -> dict | None:
    if shift is None:
        return None
    return {"ratio": round(shift.ratio, 6), "low": round(shift.low, 6),
            "high": round(shift.high, 6), "cells": shift.cells,
            "established": shift.established}


def _compare_summary(comparison) -> list[str]:
    """The counts, means and warnings under the table, as lines of plain text."""
    mean = comparison.geometric_mean
    differing = sum(bool(row.protocol) for row in comparison.rows)
    verdicts = Counter(row.verdict for row in comparison.rows)
    lines = [f"{len(comparison.rows)} cells compared"
             + (f", geometric mean B / A = {mean:.3f}" if mean else "")
             + (f" (over the {len(comparison.rows) - differing} measured the same way; "
                f"{differing} measured differently)" if differing else "")
             + f"; beyond the run-to-run noise: {verdicts['slower']} slower, "
               f"{verdicts['faster']} faster, {verdicts['no difference']} no difference"
             + f"; {comparison.only_a} only in A, {comparison.only_b} only in B, "
               f"{len(comparison.not_ok)} not ok in at least one run"]
    lines.append(shift_line(comparison.shift))
    if comparison.sigma:
        lines.append("run-to-run noise by task (cells' spread beyond their rounds): "
                     + ", ".join(f"{task} {sigma:.1%}" for task, sigma in
                                 comparison.sigma.items()))
    lines += [f"{m.name}: {m.ratio - 1:+.1%} over its {m.cells} cells beyond "
              f"the run's shift, apart from the other methods (z = {m.score:+.1f})"
              for m in comparison.methods]
    if comparison.other_hosts:
        lines.append(other_hosts_line(comparison))
    if comparison.hosts:
        lines.append(f"the runs are from different hosts ({comparison.hosts[0]} and "
                     f"{comparison.hosts[1]}): each ratio also compares the machines")
    return lines


def _compare_table(comparison, ranked, notes: list[str]) -> None:
    from ..compare import label

    table = Table(title=f"B = {comparison.run_b} vs A = {comparison.run_a} (median total time, "
                        "measured samples)")
    for column in ("cell", "dataset", "page", "A ms", "B ms", "B / A", "95 % CI", "verdict",
                   "measured differently"):
        table.add_column(column, justify="left" if column in (
            "cell", "dataset", "verdict", "measured differently") else "right")
    for row in ranked:
        verdict = row.verdict
        style = {"slower": "red", "faster": "green"}.get(verdict, "")
        low, high = row.interval
        table.add_row(escape(label(row.identity)), row.identity["dataset"],
                      str(row.identity["page_size"]), f"{row.median_a / 1e6:.3f}",
                      f"{row.median_b / 1e6:.3f}", f"{row.ratio:.3f}", f"{low:.3f}–{high:.3f}",
                      f"[{style}]{verdict}[/]" if style else verdict,
                      escape(", ".join(row.protocol)))
    out = results_console()
    out.print(table)
    for line in notes:
        out.print(escape(line), highlight=False)
    for identity, status_a, status_b in comparison.not_ok:
        out.print(f"  {escape(label(identity))}: A {status_a}, B {status_b}", highlight=False)


@click.command("export")
@click.option("--run", "run_ids", multiple=True,
              help="this run (repeatable; default: every complete run)")
@click.option("--format", "fmt", type=click.Choice(["parquet", "csv"]), default="parquet",
              show_default=True, help="parquet: `serbench import` reads it; csv: for "
                                      "spreadsheets and scripts")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="the samples table; the cells and runs tables go beside it (a.csv, "
                   "a.cells.csv, a.runs.csv)")
@click.option("--allow-incomplete", is_flag=True, help="include runs that did not complete")
def export_command(run_ids: tuple[str, ...], fmt: str, out: Path,
                   allow_incomplete: bool) -> None:
    """Write runs as three tables: OUT, a row per sample with its run and cell ids and its
    cell's identity; OUT with `.cells` before its suffix, a row per cell with its status,
    checksums, counters and parameters (a cell without samples appears only there); OUT with
    `.runs` before its suffix, a row per run with its provenance. `serbench import` merges a
    Parquet triple into another results database."""
    from ..results.transfer import export_runs

    with Results(read_only=True) as results:
        exported = export_runs(results, out, fmt, run_ids, allow_incomplete)
    console.print(f"{exported.rows:,} samples written to {out}, {exported.cells:,} cells to "
                  f"{exported.cells_file}, {exported.runs:,} runs to {exported.runs_file}")


@click.command("import")
@click.argument("files", nargs=-1, required=True,
                type=click.Path(dir_okay=False, path_type=Path))
def import_command(files: tuple[Path, ...]) -> None:
    """Merge the runs of `serbench export` Parquet files (from this or another machine) into
    this results database, provenance kept; FILE is the samples table, its cells and runs
    tables are read from beside it (a.parquet, a.cells.parquet, a.runs.parquet). A run
    already here is skipped, another run with the same id is stored as <id>.<k>."""
    from ..results.transfer import import_runs

    with Results() as results:
        for path in files:
            for run in import_runs(results, path):
                what = {"imported": "imported", "present": "already here, skipped",
                        "renamed": f"imported as {run.stored_as} (the id was taken)"}
                console.print(f"{path.name}: run {run.run_id} from {run.host}: "
                              f"{what[run.action]}")


RUN_COLUMNS = ("run_id", "status", "started_at", "finished_at", "plan", "cells", "ok")


@click.command("runs")
@format_option
def runs_command(fmt: str = "table") -> None:
    """The runs in the results database, oldest first (times in UTC)."""
    runs = []
    if db_path().exists():  # no database yet: no runs, an empty listing
        with Results(read_only=True) as results:
            runs = [{"run_id": r["run_id"], "status": r["status"],
                     "started_at": r["started_at"], "finished_at": r["finished_at"],
                     "plan": r["plan_name"], "cells": r["cells"], "ok": r["ok"]}
                    for r in results.runs()]
    emit(fmt, Listing(RUN_COLUMNS, runs), lambda: _runs_table(runs))


def _runs_table(runs: list[dict]) -> None:
    table = Table(title=str(db_path()))
    for column in ("run", "status", "started (UTC)", "plan", "cells", "ok"):
        table.add_column(column)
    for r in runs:
        style = "green" if r["status"] == "complete" else "yellow"
        table.add_row(r["run_id"], f"[{style}]{r['status']}[/]",
                      f"{r['started_at']:%Y-%m-%d %H:%M:%S}", r["plan"] or "",
                      str(r["cells"]), str(r["ok"]))
    results_console().print(table)


