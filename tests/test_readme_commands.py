"""Every `serbench` command line README.md shows: each parses against the CLI as written, and
the ones that only read results run for real on a results database with two complete runs
(those that build, generate or run plans are tested where their work is). Every other command
the READMEs show names what exists: its Makefile target, the repository's programs, scripts,
projects and test classes."""
from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import click
import duckdb
import pytest

from serbench.cli import cli
from test_end_to_end import PLAN, cli_ok, home  # noqa: F401  (the fixture)

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PREFIX = ".venv/bin/serbench "
READMES = [README, *sorted(REPO.glob("drivers/**/README.md"))]


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


def commands(path: Path) -> list[list[str]]:
    """The commands a README shows: the lines of its `sh` blocks (continuations joined,
    comments dropped, `a && b` split) and its inline code spans that run a repository script
    or `make`."""
    text = path.read_text()
    lines = [line for block in re.findall(r"```sh\n(.*?)```", text, re.S)
             for line in block.replace("\\\n", " ").splitlines()]
    lines += re.findall(r"`((?:make |scripts/|\.venv/bin/python )[^`]*)`", text)
    split = [shlex.split(part, comments=True) for line in lines for part in line.split("&&")]
    return [args for args in split if args]


def inputs(args: list[str]) -> list[str]:
    """What a command runs or reads from the repository: its program, a script given to
    Python, a project given to `-S` (cmake) or `-f` (mvn); not what it writes (`-B`)."""
    named = [args[0]]
    if args[0].endswith("/python") and len(args) > 1:
        named.append(args[1])
    named += [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-S", "-f")]
    return [n for n in named if "/" in n and not n.startswith(".venv/")]


def test_every_repository_file_a_readme_command_runs_exists():
    for path in READMES:
        for args in commands(path):
            for name in inputs(args):
                assert (REPO / name).exists(), f"{path.relative_to(REPO)}: {name}"
                if name == args[0]:
                    assert os.access(REPO / name, os.X_OK), f"{name} is not executable"


def test_every_make_target_and_java_test_class_a_readme_names_exists():
    targets = set(re.findall(r"^([\w-]+):", (REPO / "Makefile").read_text(), re.M))
    tests = {p.stem for p in (REPO / "drivers" / "java" / "src" / "test").rglob("*.java")}
    shown = [args for path in READMES for args in commands(path)]
    made = {args[1] for args in shown if args[0] == "make"}
    assert "test" in made and made <= targets
    for args in shown:
        for arg in args:
            if arg.startswith("-Dtest="):
                assert arg.removeprefix("-Dtest=") in tests, arg
