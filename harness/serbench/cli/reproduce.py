"""`serbench reproduce [--quick]`: the published figures' cells, from data to report."""
from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import click
from rich.markup import escape

from ..drivers.process import find_drivers
from ..paths import data_root, home
from ..plan import Plan, PlanError, expand, load_embedded, parse_plan
from ..reproduce import (FULL, QUICK, Estimate, Recipe, cell_cost, dataset_sizes, estimate,
                         figure_gaps, recipe)
from ..reproduce.published import FIGURES
from ..results import Results, ResultsError
from .data import data_group
from .output import run_id_option
from .run import (checked_pin, console, duration, resume_with_progress, run_with_progress,
                  with_cluster, write_report)


@click.command("reproduce")
@click.option("--quick", is_flag=True,
              help="the small plan (plan/embedded/reproduce_quick.toml): every figure's cells in "
                   "under 15 minutes on a laptop")
@click.option("--estimate", "estimate_only", is_flag=True,
              help="state the datasets, the figures and the estimate, then stop")
@click.option("--pin", help="CPU list for the drivers (taskset), e.g. 1 or 0-1")
@click.option("--run-id", help="id of the new run (default: time-based)", callback=run_id_option)
@click.option("--cluster", metavar="ADDRESS",
              help="a Dask scheduler whose workers run the cells, as `serbench run --cluster` "
                   "(each batch whole on one worker); the data is made here and sent to the "
                   "workers that lack it")
@click.option("--resume", metavar="RUN_ID", callback=run_id_option,
              help="go on with an interrupted or failed reproduction (as `serbench run "
                   "--resume`), then write its report")
def reproduce_command(quick: bool, estimate_only: bool, pin: str | None,
                      run_id: str | None, cluster: str | None = None,
                      resume: str | None = None) -> None:
    """Run the cells every published figure needs (plan/embedded/reproduce.toml, or
    reproduce_quick.toml with --quick), making the missing datasets first, and write the
    report whose "Published figures beside this run" section gives each figure's verdict or
    the reason it has none. States the expected duration and disk use before it starts."""
    from ..run.runner import driver_infos

    if resume:
        if quick or estimate_only or pin or run_id or cluster:
            raise click.UsageError("--resume takes the run's own plan and options: give none")
        _write_report(resume_with_progress(resume, _resumed_cost(resume)))
        return

    plan = with_cluster(load_embedded(QUICK if quick else FULL), cluster)
    pin = _check_cpus(checked_pin(pin))
    drivers = find_drivers()
    if not drivers:
        raise click.ClickException("no driver found; run `serbench build`")
    root = data_root()
    made = recipes(plan)
    sizes = dataset_sizes(made, root)
    infos = driver_infos(drivers)
    cells = expand(plan, infos, sizes.count, root, strict=False)
    expected = estimate(cells, sizes, made, root)
    _state(plan.name, made, root, cells, tuple(drivers), expected, _max_heap(infos))
    shortfall = _disk_shortfall(expected)
    if estimate_only:
        if shortfall:  # the estimate alone uses no disk: say so, but answer the question asked
            console.print(f"[yellow]warning[/]: {escape(shortfall)}", highlight=False)
        return
    if shortfall:
        raise click.ClickException(shortfall)
    _make_missing(made, root)
    run_id = run_with_progress(plan, pin, run_id, keep_files=False, strict=False,
                               cost=cell_cost(sizes))
    _write_report(run_id)


def recipes(plan: Plan) -> list[Recipe]:
    """The plan's dataset commands, parsed as `serbench data` parses them."""
    made = []
    for dataset, commands in plan.datasets.items():
        for command in commands:
            words = shlex.split(command)
            try:
                ctx = data_group.commands[words[0]].make_context(words[0], words[1:])
            except click.ClickException as exc:
                raise PlanError(f"{plan.source}: datasets.{dataset}: {command!r}: "
                                f"{exc.format_message()}") from None
            made.append(recipe(dataset, words, ctx.params))
    return made


def _resumed_cost(run_id: str):
    """Each cell's estimated seconds from the resumed run's own plan, for the time left;
    None for a run that cannot be read (resuming it then says why)."""
    try:
        with Results(read_only=True) as results:
            run = results.require_run(run_id, allow_incomplete=True)
        plan = parse_plan(run["plan_toml"], f"run {run_id}'s plan", run["plan_name"])
        return cell_cost(dataset_sizes(recipes(plan), data_root()))
    except (ResultsError, PlanError):
        return None


def _check_cpus(pin: str | None) -> str | None:
    """A CPU list naming a CPU this process may not run on would fail every driver."""
    if pin is None:
        return None
    allowed = os.sched_getaffinity(0)
    named = {cpu for part in pin.split(",") for cpu in _cpu_range(part)}
    if not named <= allowed:
        raise click.BadParameter(f"CPU {', '.join(map(str, sorted(named - allowed)))} is not "
                                 f"available here (available: "
                                 f"{', '.join(map(str, sorted(allowed)))})", param_hint="--pin")
    return pin


def _cpu_range(part: str) -> range:
    first, _, last = part.partition("-")
    return range(int(first), int(last or first) + 1)


def _state(name: str, made: list[Recipe], root: Path, cells, languages: tuple[str, ...],
           expected: Estimate, max_heap: int) -> None:
    runnable = [c for c in cells if not c.unsupported]
    console.print(f"[bold]serbench reproduce[/]: plan {name}, {len(runnable)} cells to run "
                  f"({len(cells) - len(runnable)} the drivers here cannot run)")
    missing = [(r, r.missing(root)) for r in made]
    for made_by, models in missing:
        state = f"to make ({', '.join(models)})" if models else "present"
        console.print(f"  data {made_by.dataset}: {escape(made_by.command)}: {state}",
                      highlight=False)
    gaps = figure_gaps(cells, languages)
    console.print(f"figures: {len(FIGURES) - len(gaps)} of {len(FIGURES)} have their cells in "
                  f"this plan on these drivers; the others, in the report with the reason:")
    for key, reason in gaps.items():
        console.print(f"  {key}: {escape(reason)}", highlight=False)
    console.print(_estimate_text(expected, max_heap), highlight=False)


def _max_heap(infos: dict) -> int:
    """The Java driver's maximum heap (its `info`), 0 without a Java driver."""
    return infos.get("java", {}).get("toolchain", {}).get("max_heap_bytes", 0)


def _memory_text(jvms: int, max_heap: int) -> str:
    """The one memory figure the plan decides: Java heaps, bounded by their maximum; the
    native drivers' memory follows their pages and budgets, and is not estimated."""
    if not jvms or not max_heap:
        return ""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return (f"\n  memory: up to {jvms} Java processes at once, each heap up to "
            f"{_gb(max_heap)}: {_gb(jvms * max_heap)} at most for their heaps, beside the "
            f"native drivers' (this machine: {_gb(total)})")


def _estimate_text(e: Estimate, max_heap: int) -> str:
    tasks = ", ".join(f"{task} {duration(s)}" for task, s in
                      sorted(e.seconds_by_task.items(), key=lambda kv: -kv[1]))
    return (f"expected: {duration(e.seconds)} and {_gb(e.disk_bytes)} of disk at most\n"
            f"  time: {tasks}; driver processes {duration(e.start_seconds)}; making data "
            f"{duration(e.data_seconds)}; making the methods' files "
            f"{duration(e.files_seconds)}\n"
            f"  disk: data to make {_gb(e.data_bytes)}, the largest batch's paged files "
            f"{_gb(e.files_bytes)} (deleted after it), results {_gb(e.results_bytes)}"
            f"{_memory_text(e.jvms, max_heap)}\n"
            "  how: every cell's objects x the dataset's JSON bytes per object (every method's "
            "file counted at JSON size), at a per-task rate per warm-up and repetition, plus a "
            "fixed cost per cell and per driver process; rates fitted on a 2-core VM "
            "(harness/serbench/reproduce/__init__.py)")


def _gb(size: float) -> str:
    return f"{size / 1e9:.1f} GB" if size >= 1e8 else f"{size / 1e6:.0f} MB"


def _disk_shortfall(expected: Estimate) -> str | None:
    """Why the run would not fit on the disk under SERBENCH_HOME, or None when it fits."""
    free = shutil.disk_usage(_existing(home())).free
    if expected.disk_bytes <= free:
        return None
    return (f"the run needs about {_gb(expected.disk_bytes)} of disk, {_gb(free)} is free "
            f"under {home()}: free some, or set SERBENCH_HOME to a larger disk")


def _existing(path: Path) -> Path:
    while not path.exists():
        path = path.parent
    return path


def _make_missing(made: list[Recipe], root: Path) -> None:
    """Each missing dataset through `serbench data`, as a user would make it."""
    todo = [r for r in made if r.missing(root)]
    for i, missing in enumerate(todo, 1):
        console.print(f"[cyan]data {i}/{len(todo)}[/] {escape(missing.command)}")
        data_group.main(["--root", str(root), *missing.args], standalone_mode=False)


def _write_report(run_id: str) -> None:
    html, _ = write_report(run_id)
    console.print("the published figures beside this run: the report's section \"Published "
                  "figures beside this run\"")
    click.echo(html)
