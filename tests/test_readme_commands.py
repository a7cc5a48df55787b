"""Every `serbench` command line README.md shows: each parses against the CLI as written, and
the ones that only read results run for real on a results database with two complete runs
(those that build, generate or run plans are tested where their work is)."""
from __future__ import annotations

import shlex
from pathlib import Path

import click
import duckdb
import pytest

from serbench.cli import cli
from test_end_to_end import PLAN, cli_ok, home  # noqa: F401  (the fixture)

README = Path(__file__).resolve().parents[1] / "README.md"
PREFIX = ".venv/bin/serbench "


def readme_commands() -> list[list[str]]:
    """The arguments of every `.venv/bin/serbench ...` line, without its trailing comment."""
    lines = [line.strip() for line in README.read_text().splitlines()]
    return [shlex.split(line[len(PREFIX):], comments=True)
            for line in lines if line.startswith(PREFIX)]


def parse(args: list[str]) -> click.Command:
    """Parses `args` as the CLI would (subcommands, options, arguments, choices; a
    placeholder FILE stands for an existing file); returns the command."""
    args = [str(README) if a == "FILE" else a for a in args]
    command, name, context = cli, "serbench", None
    while isinstance(command, click.Group):
        context = click.Context(command, info_name=name, parent=context)
        name, command, args = command.resolve_command(context, args)
    command.make_context(name, list(args), parent=context)
    return command


def test_the_readme_shows_the_commands_a_user_needs():
    shown = {args[0] for args in readme_commands()}
    assert {"data", "info", "verify", "run", "report", "compare", "export"} <= shown


@pytest.mark.parametrize("args", readme_commands(), ids=" ".join)
def test_every_command_line_in_the_readme_parses(args):
    assert parse(args).name in args


def test_the_readme_commands_that_read_results_work_as_shown(home, tmp_path, monkeypatch):
    plan = tmp_path / "p.toml"
    plan.write_text(PLAN)
    first, second = (cli_ok("run", str(plan)).split()[-1] for _ in range(2))
    monkeypatch.chdir(tmp_path)
    cli_ok("export", "--run", second, "--out", "b.parquet")  # as if from another machine
    reading = {"report", "compare", "export", "import", "info", "runs"}
    ran = []
    for args in readme_commands():
        if args[0] not in reading:
            continue
        args = [{"RUN_A": first, "RUN_B": second}.get(a, a) for a in args]
        cli_ok(*args)
        ran.append(args[0])
    assert {"report", "compare", "export", "import"} <= set(ran)
    rows = duckdb.connect().execute(
        "SELECT count(DISTINCT run_id), min(run_id), count(*) FROM 'a.parquet'").fetchone()
    assert rows[:2] == (1, first) and rows[2] > 0
