"""`serbench report`: render one run as report.html, report.md and tables.md."""
from __future__ import annotations

from pathlib import Path

import click

from ..paths import report_files
from ..report.data import ReportError, latest_complete_run
from ..report.render import render_run
from ..results import db_path
from .output import run_id_option


@click.command("report")
@click.option("--run", "run_id", help="run id (default: the latest complete run)",
              callback=run_id_option)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="output directory (default: $SERBENCH_HOME/reports/<run id>)")
@click.option("--allow-incomplete", is_flag=True,
              help="report a run that is running, failed or interrupted")
@click.option("--baseline", help="another run to compare this one with, in a section of its "
                                 "own (ratios with 95 % intervals and verdicts)")
@click.option("--across-hosts", is_flag=True,
              help="on a cluster run, rank and compare cells of different hosts together "
                   "(default: a ranking per host)")
def report_command(run_id: str | None, out: Path | None, allow_incomplete: bool,
                   baseline: str | None, across_hosts: bool = False) -> None:
    """Self-contained HTML report with plots, a Markdown summary, and tables.md (Markdown
    tables to paste into a design doc), of one run."""
    try:
        run_id = run_id or latest_complete_run(db_path())
        html, markdown = render_run(db_path(), run_id, out or report_files(run_id),
                                    allow_incomplete, baseline, across_hosts)
    except ReportError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(html)
    click.echo(markdown)
    click.echo(markdown.with_name("tables.md"))
