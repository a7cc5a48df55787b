"""`serbench run` and `serbench demo`: a plan measured with a progress bar and the time left."""
from __future__ import annotations

import signal
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import click
from rich.markup import escape
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)

from ..cell import Cell, describe
from ..drivers.process import LANGUAGES, find_drivers
from ..network.dask_placement import ClusterError
from ..params import BY_NAME, ParamError, check
from ..paths import report_files
from ..plan import Plan, PlanError, load_embedded, load_plan
from ..report.render import render_run
from ..reproduce import time_left
from ..results import CELL_STATUSES, CellResult, Results, db_path
from .drivers import build_command
from .output import diagnostics_console, run_id_option


console = diagnostics_console()  # results go to stdout


def chosen_plan(argument: str | None):
    """A plan file, or the name of an embedded plan (default, full)."""
    if argument is None:
        return load_plan(None)
    path = Path(argument)
    return load_plan(path) if path.exists() or path.suffix == ".toml" else load_embedded(argument)


def warn_stale(paths: dict[str, Path]) -> None:
    """Results of a driver older than its sources would be labelled with code they did not
    run: say so before measuring."""
    from ..drivers.build import stale_source
    from ..drivers.process import BUILD_PATHS

    for language, path in paths.items():
        source = stale_source(language) if path == BUILD_PATHS[language] else None
        if source is not None:
            console.print(f"[yellow]warning[/]: the {language} driver is older than "
                          f"{escape(str(source))}; run `serbench build` to measure the current "
                          "code")


def checked_pin(value: str | None) -> str | None:
    return option_param("pin_cpus", value, "--pin")


def option_param(name: str, value, option: str):
    """A command-line option that sets a plan parameter, checked as the plan's would be."""
    if value is None:
        return None
    try:
        return check(BY_NAME[name], value)
    except ParamError as exc:
        raise click.BadParameter(str(exc), param_hint=option) from None


class ProgressBar:
    """The runner's listener: the current cell, cells done / total, ETA; problems printed.
    Without a terminal (a log, CI) the bar is not drawn: a plain line every LOG_EVERY_S."""

    LOG_EVERY_S = 15.0

    def __init__(self, cost=None):
        self.started = self.logged = self.last_event = time.monotonic()
        # with a cell's estimated seconds (`cost`), the time left: the estimate of the cells
        # left at the pace of those done, not their count (a run's cells differ 10^4-fold)
        self.cost = cost
        self.estimate_left = self.estimate_done = 0.0
        # wall time per task: the time from one cell's start to the next event is its task's
        # (rounds interleave cells, so a cell's time is spread over its comparison set's)
        self.spent: Counter = Counter()
        self.current: Cell | None = None
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                                 console=console, transient=False)
        self.bar = None
        self.total = 0
        self.counts: Counter = Counter()

    def ready(self, cells: list[Cell]) -> None:
        self.progress.start()
        self.total = len(cells)
        try:
            self.estimate_left = sum(map(self.cost, cells)) if self.cost else 0.0
        except (KeyError, PlanError):  # a cell the estimate cannot cost: no time left shown
            self.cost = None
        self.bar = self.progress.add_task("starting", total=self.total)

    def start(self, cell: Cell) -> None:
        self._charge(cell)
        self.progress.update(self.bar, description=escape(describe(cell)) + self._left())
        self._log_line(cell)

    def _charge(self, cell: Cell | None) -> None:
        now = time.monotonic()
        if self.current is not None:
            self.spent[self.current.task] += now - self.last_event
        self.current, self.last_event = cell, now

    def done(self, cell: Cell, result: CellResult) -> None:
        self.counts[result.status] += 1
        if self.cost:
            cost = self.cost(cell)
            self.estimate_left, self.estimate_done = (self.estimate_left - cost,
                                                      self.estimate_done + cost)
        if result.status in ("invalid", "failed"):
            first_line = (result.message or "").partition("\n")[0]
            self.progress.console.print(f"[red]{result.status}[/] {escape(describe(cell))}: "
                                        f"{result.error_kind}: {escape(first_line)}")
        self.progress.advance(self.bar)
        self._log_line(cell)

    def _log_line(self, cell: Cell) -> None:
        now = time.monotonic()
        if console.is_terminal or now - self.logged < self.LOG_EVERY_S:
            return
        self.logged = now
        done = sum(self.counts.values())
        # one line per update however long (a log is read with grep, not at 80 columns)
        console.print(f"{done}/{self.total} cells, {now - self.started:.0f} s: "
                      f"{escape(describe(cell))}{self._left()}", highlight=False, soft_wrap=True)

    def _left(self) -> str:
        seconds = time_left(max(self.estimate_left, 0.0), self.estimate_done,
                            time.monotonic() - self.started)
        return "" if seconds is None else f"; about {duration(seconds)} left at this pace"

    def stop(self) -> None:
        self._charge(None)
        self.progress.stop()

    def time_by_task(self) -> str:
        """`write 1:20, read_seq 0:45, ...`, the costliest first."""
        return ", ".join(f"{task} {_minutes(s)}" for task, s in self.spent.most_common())


def duration(seconds: float) -> str:
    """`1 h 05 min` from an hour, `4:07` (minutes:seconds) below."""
    if seconds >= 3600:
        minutes = round(seconds / 60)
        return f"{minutes // 60} h {minutes % 60:02d} min"
    total = round(seconds)
    return f"{total // 60}:{total % 60:02d}"


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


@click.command("run")
@click.argument("plan", required=False)
@click.option("--pin", help="CPU list for the drivers (taskset), e.g. 2 or 2-3; overrides the plan")
@click.option("--run-id", help="id of the new run (default: time-based)", callback=run_id_option)
@click.option("--keep-files", is_flag=True, help="keep the paged files the run wrote")
@click.option("--cluster", metavar="ADDRESS",
              help="a Dask scheduler (tcp://HOST:PORT or tls://...) whose workers run every "
                   "cell: each batch of single-machine cells on one worker, the network cells' "
                   "nodes one per worker; overrides the plan's cluster key")
@click.option("--resume", metavar="RUN_ID", callback=run_id_option,
              help="go on with an interrupted or failed run (its plan, pin and drivers): what it "
                   "measured is kept, comparison sets it left unfinished are measured again")
def run_command(plan: str | None, pin: str | None, run_id: str | None, keep_files: bool,
                cluster: str | None = None, resume: str | None = None) -> str:
    """Run a plan (a TOML file or an embedded plan name; default: the embedded default plan on
    the default data) and store every sample in the results database."""
    if resume:
        if plan or pin or run_id or keep_files or cluster:
            raise click.UsageError("--resume takes the run's own plan and options: give none")
        return resume_with_progress(resume)
    return run_with_progress(with_cluster(chosen_plan(plan), cluster), checked_pin(pin), run_id,
                             keep_files)


def with_cluster(chosen: Plan, address: str | None) -> Plan:
    if address is None:
        return chosen
    address = option_param("cluster", address, "--cluster")
    return replace(chosen, params=replace(chosen.params, cluster=address))


def run_with_progress(chosen: Plan, pin: str | None, run_id: str | None, keep_files: bool,
                      strict: bool = True, cost=None) -> str:
    """`run_plan` with the progress bar (and the time left, given each cell's estimated
    seconds), then the run's summary; the run's id."""
    from ..run.runner import run_plan
    return _with_progress(lambda results, bar: run_plan(
        chosen, results, run_id=run_id, pin=pin, keep_files=keep_files, listener=bar,
        strict=strict), cost)


def resume_with_progress(run_id: str, cost=None) -> str:
    """`resume_plan` with the progress bar, then the run's summary."""
    from ..run.runner import resume_plan
    return _with_progress(lambda results, bar: resume_plan(results, run_id, listener=bar), cost)


def _with_progress(measure, cost=None) -> str:
    warn_stale(find_drivers())
    signal.signal(signal.SIGTERM, _interrupt)
    bar = ProgressBar(cost)
    with Results() as results:
        try:
            run_id = measure(results, bar)
        except ClusterError as exc:
            raise click.ClickException(str(exc)) from None
        finally:
            bar.stop()
    summary = ", ".join(f"{bar.counts[s]} {s}" for s in CELL_STATUSES if bar.counts[s])
    console.print(f"run [bold]{run_id}[/] complete in {_minutes(time.monotonic() - bar.started)}: "
                  f"{summary or 'no cells'}; results in {db_path()}")
    if bar.spent:
        console.print(f"time by task: {bar.time_by_task()}", highlight=False)
    click.echo(run_id)
    return run_id


def _interrupt(signum, frame) -> None:
    """SIGTERM ends a run like Ctrl-C: drivers stopped, the run marked interrupted."""
    raise KeyboardInterrupt


@click.command("demo")
@click.pass_context
def demo_command(ctx: click.Context) -> None:
    """Everything at once: default data, driver builds (drivers only, no tests), the default
    plan, the report. A driver newer than all its sources is not built again (`make demo`'s
    setup has just built it; even a build with nothing to do costs Maven half a minute)."""
    from ..drivers.build import needs_build
    from .data import data_default

    ctx.invoke(data_default)
    languages = tuple(language for language in LANGUAGES if needs_build(language))
    if languages:
        ctx.invoke(build_command, languages=languages, drivers_only=True)
    else:
        console.print("[cyan]build[/] every driver is newer than its sources: not rebuilt")
    run_id = ctx.invoke(run_command, plan=None, pin=None, run_id=None, keep_files=False)
    write_report(run_id)


def write_report(run_id: str) -> tuple[Path, Path]:
    """The run's report where `serbench report` writes it; its two paths said, and returned."""
    html, markdown = render_run(db_path(), run_id, report_files(run_id))
    console.print(f"report: {html}\nsummary: {markdown}")
    return html, markdown
