"""`serbench verify`: every method round-trips every dataset; the cross-language and network
matrices."""
from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from ..drivers.process import LANGUAGES, find_drivers
from ..paths import data_root
from .output import diagnostics_console
from .run import ProgressBar, option_param, warn_stale


console = diagnostics_console()  # results go to stdout


@click.command("verify")
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path),
              help="dataset directory (default: the default data)")
@click.option("--language", "languages", multiple=True, type=click.Choice(LANGUAGES))
@click.option("--method", "methods", multiple=True, help="only this method (repeatable)")
@click.option("--model", "models", multiple=True, help="only this model (repeatable)")
@click.option("--timeout", "timeout_s", type=float, default=600.0, show_default=True,
              callback=lambda ctx, param, value: option_param("timeout_s", value, "--timeout"),
              help="seconds per driver request")
@click.option("--page-size", type=click.IntRange(min=64), default=262144, show_default=True,
              help="page size of the files exchanged (small: objects span pages)")
@click.option("--network/--no-network", default=True, show_default=True,
              help="the network matrix: every ordered pair of node languages per shared method")
def verify_command(data_dir, languages, methods, models, timeout_s, page_size,
                   network) -> None:
    """Round trips of every method, the cross-language matrix (producer x consumer) and the
    network matrix (sender x receiver)."""
    from ..run.runner import driver_infos
    from ..run.verify import FAILED, NET_STEPS, SKIPPED, verify

    paths = find_drivers()
    if not paths:
        raise click.ClickException("no driver found; run `serbench build`")
    warn_stale(paths)
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



