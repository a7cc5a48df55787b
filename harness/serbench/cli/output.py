"""What `info`, `data list`, `runs` and `compare` print: their result on standard output, as
tables for people (the default) or, with `--format json|csv|md`, for scripts, under the same
snake_case column names in every format. Progress and diagnostics go to standard error.

In CSV and Markdown a list is joined by `;` and a mapping is `key=value` joined by `;`; JSON
keeps both as they are. Times are ISO 8601 (UTC), sizes in bytes, durations in ns. JSON is
strict (RFC 8259, which has no Infinity or NaN): a number that is not finite is written
`null`, which for a bound means it is open (`band_high` of a cell whose band has no upper
limit) and elsewhere that there is no figure. Nothing to list is `[]` (or a table of no rows).
"""
from __future__ import annotations

import csv
import io
import json
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import click
from rich.console import Console

from ..ids import IdError, checked


FORMATS = ("table", "json", "csv", "md")

# a file or a pipe gets whole rows, not the 80 columns Rich assumes without a terminal
FILE_WIDTH = 250


def results_console() -> Console:
    """Where the table form goes: stdout (progress and diagnostics have consoles of their
    own, on stderr)."""
    return Console() if sys.stdout.isatty() else Console(width=FILE_WIDTH)


def diagnostics_console() -> Console:
    """Where progress and diagnostics go: stderr, in whole lines when it is a log."""
    return Console(stderr=True) if sys.stderr.isatty() else Console(stderr=True,
                                                                     width=FILE_WIDTH)


def format_option(command: Callable) -> Callable:
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table",
                        show_default=True,
                        help="table: for people; json, csv, md: for scripts, with stable "
                             "column names")(command)


def run_id_option(ctx, param, value: str | None) -> str | None:
    """A run id on the command line, checked where it enters (ids.py)."""
    try:
        return value if value is None else checked("run id", value)
    except IdError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


@dataclass(frozen=True)
class Listing:
    """Rows of named columns: a command's result as scripts read it."""
    columns: tuple[str, ...]
    rows: list[dict]


def emit(fmt: str, listing: Listing, human: Callable[[], None], document=None,
         notes: list[str] = ()) -> None:
    """The result on stdout in `fmt`: `human()` prints the table form; JSON prints `document`
    (default: the rows); `notes` (a summary) follow the Markdown table and go to stderr
    beside CSV, which holds one table only."""
    if fmt == "table":
        human()
    elif fmt == "json":
        click.echo(strict_json(listing.rows if document is None else document))
    elif fmt == "csv":
        click.echo(to_csv(listing), nl=False)
        for note in notes:
            click.echo(note, err=True)
    else:
        click.echo(to_markdown(listing) + "".join(f"\n{note}\n" for note in notes))


def to_csv(listing: Listing) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(listing.columns)
    writer.writerows([cell_text(row.get(c)) for c in listing.columns] for row in listing.rows)
    return out.getvalue()


def to_markdown(listing: Listing) -> str:
    def line(values) -> str:
        return "| " + " | ".join(v.replace("|", "\\|").replace("\n", " ") for v in values) + " |"
    lines = [line(listing.columns), line("---" for _ in listing.columns)]
    lines += [line(cell_text(row.get(c)) for c in listing.columns) for row in listing.rows]
    return "\n".join(lines) + "\n"


def cell_text(value) -> str:
    """One value as CSV and Markdown write it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return ";".join(f"{k}={cell_text(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ";".join(cell_text(v) for v in value)
    return str(value)


def strict_json(value) -> str:
    """`value` as strict JSON: non-finite numbers as null, times as ISO 8601."""
    return json.dumps(_finite(value), indent=2, default=_json_value, allow_nan=False)


def _finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def _json_value(value):
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")
