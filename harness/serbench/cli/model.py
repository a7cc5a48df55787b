"""`serbench model infer | list`: a user's own models, proposed from their data and listed."""
from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from ..models import BUILTIN, DEFINITIONS, STRUCTS, USER_PROBLEMS, ModelError, user_models_dir
from ..models.definition import MODEL_ID
from ..models.infer import infer
from .output import Listing, diagnostics_console, emit, format_option, results_console


console = diagnostics_console()


@click.group("model")
def model_group() -> None:
    """Your own models: one definition file each, in your models folder ($SERBENCH_MODELS,
    else $SERBENCH_HOME/models)."""


@model_group.command("infer")
@click.argument("source", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--name", required=True, help="the model's id (snake_case)")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="where to write the definition (default: <models folder>/<name>.toml)")
@click.option("--force", is_flag=True, help="replace a definition file that exists")
def infer_command(source: Path, name: str, out: Path | None, force: bool) -> None:
    """Propose a definition from JSON Lines: types widened across every object, fields that
    are absent or null in some made optional, objects and arrays nested as structs and lists,
    a key suggested. Review it, then `serbench data import SOURCE --model NAME`."""
    if not MODEL_ID.fullmatch(name):
        raise click.BadParameter(f"{name!r}: a model id is snake_case (a-z, 0-9, _), starting "
                                 "with a letter, at most 48 characters", param_hint="--name")
    if name in DEFINITIONS and out is None:
        raise click.BadParameter(f"{name!r} is already a model ({DEFINITIONS[name].file})",
                                 param_hint="--name")
    target = out or user_models_dir() / f"{name}.toml"
    if target.exists() and not force:
        raise click.ClickException(f"{target} exists; review it, or pass --force to replace it")
    text = infer(source, name, taken=set(STRUCTS))
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_suffix(".toml.tmp")
    staging.write_text(text)
    staging.replace(target)
    console.print(f"proposed {name} from {escape(str(source))}: review {escape(str(target))}, "
                  f"then `serbench data import {escape(str(source))} --model {name}`")
    click.echo(str(target))


MODEL_COLUMNS = ("model", "root", "key", "structs", "origin", "file")


@model_group.command("list")
@format_option
def list_command(fmt: str = "table") -> None:
    """Every model serbench knows: the built-in ones and yours, with what defines each."""
    rows = [{"model": m, "root": d.root, "key": list(d.key), "structs": list(d.structs),
             "origin": "built-in" if m in BUILTIN else "yours", "file": d.file}
            for m, d in DEFINITIONS.items()]
    emit(fmt, Listing(MODEL_COLUMNS, rows), lambda: _table(rows))
    for problem in USER_PROBLEMS:
        console.print(f"[red]not read[/]: {escape(problem)}")
    if USER_PROBLEMS:
        raise ModelError(USER_PROBLEMS[0])


def _table(rows: list[dict]) -> None:
    table = Table(title=f"models (yours from {user_models_dir()})")
    for column in ("model", "root", "key", "structs", "origin"):
        table.add_column(column)
    for row in rows:
        table.add_row(row["model"], row["root"], ", ".join(row["key"]) or "—",
                      str(len(row["structs"])), row["origin"])
    results_console().print(table)
