"""`serbench run | verify | compare | export | runs | build | info | demo`."""
from __future__ import annotations

import json
import signal
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import click
from rich.markup import escape
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)
from rich.table import Table

from .compare import IDENTITY, other_hosts_line, shift_line
from .driver import LANGUAGES, DriverFailure, DriverProcess, find_drivers
from .paths import data_root, report_files
from .network.dask_placement import ClusterError
from .cell import Cell, describe
from .params import BY_NAME, ParamError, check
from .plan import Plan, PlanError, load_embedded, load_plan
from .listing import (Listing, diagnostics_console, emit, format_option, results_console,
                      run_id_option)
from .reproduce import time_left
from .results import CELL_STATUSES, CellResult, Results, db_path

console = diagnostics_console()  # results go to stdout


def _plan(argument: str | None):
    """A plan file, or the name of an embedded plan (default, full)."""
    if argument is None:
        return load_plan(None)
    path = Path(argument)
    return load_plan(path) if path.exists() or path.suffix == ".toml" else load_embedded(argument)


def _warn_stale(paths: dict[str, Path]) -> None:
    """Results of a driver older than its sources would be labelled with code they did not
    run: say so before measuring."""
    from .build import stale_source
    from .driver import BUILD_PATHS

    for language, path in paths.items():
        source = stale_source(language) if path == BUILD_PATHS[language] else None
        if source is not None:
            console.print(f"[yellow]warning[/]: the {language} driver is older than "
                          f"{escape(str(source))}; run `serbench build` to measure the current "
                          "code")


def _pin(value: str | None) -> str | None:
    return _option_param("pin_cpus", value, "--pin")


def _option_param(name: str, value, option: str):
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
def run(plan: str | None, pin: str | None, run_id: str | None, keep_files: bool,
        cluster: str | None = None, resume: str | None = None) -> str:
    """Run a plan (a TOML file or an embedded plan name; default: the embedded default plan on
    the default data) and store every sample in the results database."""
    if resume:
        if plan or pin or run_id or keep_files or cluster:
            raise click.UsageError("--resume takes the run's own plan and options: give none")
        return resume_with_progress(resume)
    return run_with_progress(_with_cluster(_plan(plan), cluster), _pin(pin), run_id, keep_files)


def _with_cluster(chosen: Plan, address: str | None) -> Plan:
    if address is None:
        return chosen
    address = _option_param("cluster", address, "--cluster")
    return replace(chosen, params=replace(chosen.params, cluster=address))


def run_with_progress(chosen: Plan, pin: str | None, run_id: str | None, keep_files: bool,
                      strict: bool = True, cost=None) -> str:
    """`run_plan` with the progress bar (and the time left, given each cell's estimated
    seconds), then the run's summary; the run's id."""
    from .runner import run_plan
    return _with_progress(lambda results, bar: run_plan(
        chosen, results, run_id=run_id, pin=pin, keep_files=keep_files, listener=bar,
        strict=strict), cost)


def resume_with_progress(run_id: str, cost=None) -> str:
    """`resume_plan` with the progress bar, then the run's summary."""
    from .runner import resume_plan
    return _with_progress(lambda results, bar: resume_plan(results, run_id, listener=bar), cost)


def _with_progress(measure, cost=None) -> str:
    _warn_stale(find_drivers())
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


@click.command("verify")
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path),
              help="dataset directory (default: the default data)")
@click.option("--language", "languages", multiple=True, type=click.Choice(LANGUAGES))
@click.option("--method", "methods", multiple=True, help="only this method (repeatable)")
@click.option("--model", "models", multiple=True, help="only this model (repeatable)")
@click.option("--timeout", "timeout_s", type=float, default=600.0, show_default=True,
              callback=lambda ctx, param, value: _option_param("timeout_s", value, "--timeout"),
              help="seconds per driver request")
@click.option("--page-size", type=click.IntRange(min=64), default=262144, show_default=True,
              help="page size of the files exchanged (small: objects span pages)")
@click.option("--network/--no-network", default=True, show_default=True,
              help="the network matrix: every ordered pair of node languages per shared method")
def verify_command(data_dir, languages, methods, models, timeout_s, page_size,
                   network) -> None:
    """Round trips of every method, the cross-language matrix (producer x consumer) and the
    network matrix (sender x receiver)."""
    from .runner import driver_infos
    from .verify import FAILED, NET_STEPS, SKIPPED, verify

    paths = find_drivers()
    if not paths:
        raise click.ClickException("no driver found; run `serbench build`")
    _warn_stale(paths)
    infos = driver_infos(paths)
    with console.status("verifying") as status:
        checks = verify(paths, infos, data_dir or data_root() / "default", timeout_s=timeout_s,
                        languages=languages, methods=methods, models=models,
                        page_size=page_size, network=network,
                        on_check=_VerifyProgress(status).done)
    _verify_tables([c for c in checks if c.step not in NET_STEPS], sorted(infos))
    _network_table([c for c in checks if c.step in NET_STEPS])
    failures = [c for c in checks if c.status == FAILED]
    for c in failures:
        variant = f" variant {c.variant}" if c.variant else ""
        by = f"sent by {c.producer}" if c.step in NET_STEPS else f"file by {c.producer}"
        console.print(f"[red]failed[/] {c.language} {c.method or '-'} {c.model} {c.step} "
                      f"{c.depth}{variant} ({by}): {escape(c.message)}")
    skipped = Counter((c.step, c.message) for c in checks if c.status == SKIPPED)
    for (step, why), count in sorted(skipped.items()):
        console.print(f"[yellow]skipped[/] {count} {step} checks: {escape(why)}")
    if failures:
        raise click.ClickException(f"{len(failures)} of {len(checks)} checks failed")
    console.print(f"[green]all {len(checks) - skipped.total()} checks passed[/] (unsupported "
                  "ones are not failures)" + (f"; {skipped.total()} skipped" if skipped else ""))


class _VerifyProgress:
    """The last check done, in the spinner; without a terminal (a log, CI) a plain line at
    most every ProgressBar.LOG_EVERY_S, so a long verification (SF 1: an hour) shows it moves."""

    def __init__(self, status):
        self.status, self.count = status, 0
        self.started = self.logged = time.monotonic()

    def done(self, check) -> None:
        self.count += 1
        what = f"{check.language} {check.method or 'load'} {check.model} {check.step} {check.depth}"
        self.status.update(what)
        now = time.monotonic()
        if not console.is_terminal and now - self.logged >= ProgressBar.LOG_EVERY_S:
            self.logged = now
            console.print(f"{self.count} checks, {now - self.started:.0f} s: {escape(what)}",
                          highlight=False)


def _mark(statuses: list[str]) -> str:
    if not statuses:
        return ""
    if "failed" in statuses:
        return "[red]FAIL[/]"
    if all(s == "unsupported" for s in statuses):
        return "[dim]unsupported[/]"
    if "skipped" in statuses:
        return "[yellow]skipped[/]" if "ok" not in statuses else "[green]ok[/], [yellow]skipped[/]"
    return "[green]ok[/]"


def _verify_tables(checks, languages: list[str]) -> None:
    loads = Table(title="load (each driver's own JSON loading)")
    loads.add_column("model")
    for language in languages:
        loads.add_column(language)
    for model in sorted({c.model for c in checks if c.step == "load"}):
        loads.add_row(model, *(_mark([c.status for c in checks if c.step == "load" and
                                      c.model == model and c.language == lang])
                               for lang in languages))
    console.print(loads)
    matrix = Table(title="methods: round trip (every variant), encode, and the producer's "
                         "file read by each consumer: scan, and the raw floor")
    for column in ("method", "model", "producer", "roundtrip", "encode"):
        matrix.add_column(column)
    for consumer in languages:
        matrix.add_column(f"scan, floor by {consumer}")
    rows = sorted({(c.method, c.model, c.producer) for c in checks if c.step != "load"})
    for method, model, producer in rows:
        mine = [c for c in checks if (c.method, c.model, c.producer) == (method, model, producer)]
        cells = [_mark([c.status for c in mine if c.step == step]) for step in ("roundtrip",
                                                                               "encode")]
        scans = [_mark([c.status for c in mine if c.step in ("scan", "floor")
                        and c.language == consumer]) for consumer in languages]
        matrix.add_row(method, model, producer, *cells, *scans)
    console.print(matrix)


def _network_table(checks) -> None:
    """Sender x receiver per shared method: a fetch with decode and a sort-merge tree."""
    if not checks:
        return
    receivers = sorted({c.language for c in checks})
    table = Table(title="network: the sender's nodes to the receiver's (fetch with decode, "
                        "sort-merge tree)")
    for column in ("method", "model", "sender"):
        table.add_column(column)
    for receiver in receivers:
        table.add_column(f"fetch, sort-merge to {receiver}")
    for method, model, sender in sorted({(c.method, c.model, c.producer) for c in checks}):
        mine = [c for c in checks if (c.method, c.model, c.producer) == (method, model, sender)]
        table.add_row(method, model, sender, *(_mark([c.status for c in mine
                                                       if c.language == receiver])
                                                for receiver in receivers))
    console.print(table)


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
    from .compare import compare_runs

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
    from .compare import label

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
    from .transfer import export_runs

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
    from .transfer import import_runs

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


@click.command("build")
@click.option("--language", "languages", multiple=True, type=click.Choice(LANGUAGES),
              help="only this language (repeatable; default: every driver project present)")
@click.option("--drivers-only", is_flag=True,
              help="only the driver executables a run needs: C++ without its GoogleTest suite "
                   "(SERBENCH_TESTS=OFF, target serbench-cpp), Java without compiling its "
                   "tests; what `serbench demo` builds (default: the tests too, as "
                   "`make test` needs)")
def build_command(languages: tuple[str, ...], drivers_only: bool = False) -> None:
    """Release builds of the drivers (cargo, cmake, maven), with their test binaries unless
    --drivers-only."""
    from .build import build

    built = build(languages or LANGUAGES, say=lambda m: console.print(f"[cyan]build[/] {m}"),
                  drivers_only=drivers_only)
    found = find_drivers()
    for language in built:
        where = found.get(language)
        console.print(f"{language}: " + (f"driver at {where}" if where else
                                         "built, but no driver executable yet"))


CAPABILITY_COLUMNS = ("language", "driver_version", "path", "method", "depths", "variants",
                      "models", "libraries")


@click.command("info")
@format_option
def info_command(fmt: str = "table") -> None:
    """Drivers found and their capabilities, datasets present, and this machine's provenance.
    CSV and Markdown hold the capabilities (a row per language and method); JSON holds
    everything: drivers (each one's full `info`), datasets, host, toolchains, git."""
    from .cli_data import DATASET_COLUMNS, dataset_rows
    from .datasets.manifest import list_datasets
    from .provenance import git_state, host, toolchains

    drivers = _driver_infos()
    datasets = dataset_rows(list_datasets(data_root()))
    facts = {"host": host(), "toolchains": toolchains(), "git": git_state()}
    rows = [_capability(language, path, info, method, spec)
            for language, (path, info) in drivers.items()
            for method, spec in info["methods"].items()]
    document = {"drivers": {language: {"path": str(path), **info}
                            for language, (path, info) in drivers.items()},
                "datasets": datasets, **facts}
    emit(fmt, Listing(CAPABILITY_COLUMNS, rows),
         lambda: _info_tables(drivers, Listing(DATASET_COLUMNS, datasets), facts), document)


def _driver_infos() -> dict[str, tuple[Path, dict]]:
    """Each driver found that answers `info`; the others named on stderr."""
    found = find_drivers()
    if not found:
        console.print("no driver found; run `serbench build` (or set SERBENCH_DRIVER_<LANG>)")
    infos = {}
    for language, path in found.items():
        try:
            infos[language] = (path, DriverProcess(language, path).info())
        except DriverFailure as exc:
            console.print(f"[red]{language}[/] driver at {path} is broken: {escape(str(exc))}")
    return infos


def _capability(language: str, path: Path, info: dict, method: str, spec: dict) -> dict:
    return {"language": language, "driver_version": info.get("driver_version"),
            "path": str(path), "method": method, "depths": spec["depths"],
            "variants": spec["variants"], "models": spec["models"],
            "libraries": spec.get("libraries") or {}}


def _info_tables(drivers: dict[str, tuple[Path, dict]], datasets: Listing, facts: dict) -> None:
    for language, (path, info) in drivers.items():
        _capabilities(language, path, info)
    table = Table(title=f"datasets under {data_root()}")
    for column in ("directory", "model", "objects", "MB"):
        table.add_column(column)
    for d in datasets.rows:
        table.add_row(d["directory"], d["model"], f"{d['objects']:,}", f"{d['bytes'] / 1e6:.1f}")
    out = results_console()
    out.print(table)
    out.print_json(json.dumps(facts))


def _capabilities(language: str, path: Path, info: dict) -> None:
    table = Table(title=f"{language} driver {info.get('driver_version', '?')} at {path}; "
                        f"tasks: {', '.join(info['tasks'])}")
    for column in ("method", "depths", "variants", "models"):
        table.add_column(column)
    for method, spec in info["methods"].items():
        models = spec["models"]
        table.add_row(method, ", ".join(spec["depths"]) or "-",
                      ", ".join(spec["variants"]) or "-",
                      "all" if set(models) >= set(info["models"]) else ", ".join(models))
    out = results_console()
    out.print(table)
    libraries = info.get("libraries") or {}
    if libraries:
        out.print("  libraries: " + ", ".join(f"{k} {v}" for k, v in libraries.items()))


@click.command("demo")
@click.pass_context
def demo_command(ctx: click.Context) -> None:
    """Everything at once: default data, driver builds (drivers only, no tests), the default
    plan, the report. A driver newer than all its sources is not built again (`make demo`'s
    setup has just built it; even a build with nothing to do costs Maven half a minute)."""
    from .build import needs_build
    from .cli_data import data_default

    ctx.invoke(data_default)
    languages = tuple(language for language in LANGUAGES if needs_build(language))
    if languages:
        ctx.invoke(build_command, languages=languages, drivers_only=True)
    else:
        console.print("[cyan]build[/] every driver is newer than its sources: not rebuilt")
    run_id = ctx.invoke(run, plan=None, pin=None, run_id=None, keep_files=False)
    _report(run_id)


def _report(run_id: str) -> None:
    try:
        from .report import render_run
    except ImportError:
        console.print("the report module is not available yet; results stay in the database")
        return
    html, markdown = render_run(db_path(), run_id, report_files(run_id))
    console.print(f"report: {html}\nsummary: {markdown}")
