"""`serbench build | info`: the drivers built, and what each offers."""
from __future__ import annotations

import json
from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from ..drivers.process import LANGUAGES, DriverFailure, DriverProcess, find_drivers
from ..paths import data_root
from .output import Listing, diagnostics_console, emit, format_option, results_console


console = diagnostics_console()  # results go to stdout


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
    from ..drivers.build import build

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
    from ..datasets.manifest import list_datasets
    from ..provenance import git_state, host, toolchains
    from .data import DATASET_COLUMNS, dataset_rows

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


