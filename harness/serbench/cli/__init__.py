"""The `serbench` command: one subcommand per stage of a benchmark."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from ..datasets.build import ParameterError
from ..datasets.expectations import RunError
from ..datasets.imported import ImportRefused
from ..datasets.manifest import DatasetError
from ..datasets.native import NativeError
from ..datasets.samples import SampleError
from ..datasets.tpch import TpchError
from ..datasets.tweet_ingest import IngestError
from ..drivers.build import BuildError
from ..ids import IdError
from ..models import ModelError, UnknownModel
from ..models.checksum import DataError
from ..models.infer import InferError
from ..plan import PlanError
from ..report import ReportError
from ..results import Results, ResultsError, db_path
from .data import data_group
from .drivers import build_command, info_command
from .model import model_group
from .report import report_command
from .reproduce import reproduce_command
from .results import compare_command, export_command, import_command, runs_command
from .run import demo_command, run_command
from .selfcheck import selfcheck_command
from .verify import verify_command


# errors that carry a complete message for the user: no traceback, exit status 2
USER_ERRORS = (DataError, ParameterError, DatasetError, NativeError, UnknownModel, PlanError,
               ResultsError, RunError, BuildError, ReportError, TpchError, IngestError,
               SampleError, IdError, ModelError, InferError, ImportRefused)


@click.group()
@click.version_option(package_name="serbench")
def cli() -> None:
    """serbench: what complex-object implementations cost a data system on real tasks."""
    _reap_orphaned_runs()


def _reap_orphaned_runs() -> None:
    """Runs a killed serbench left `running` become `interrupted` at the next command."""
    if not db_path().exists():
        return
    try:
        with Results() as results:
            reaped = results.reap_orphans()
    except ResultsError:
        return  # another serbench holds the database: its run is alive
    for run_id in reaped:
        click.echo(f"note: run {run_id} was left running by a serbench process that no longer "
                   "exists; marked interrupted, its leftover files removed", err=True)


@cli.command("vectors")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="directory (default: vectors/ in the checkout)")
def vectors(out: Path | None) -> None:
    """Write the golden vectors (canonical objects + expected hashes) for every model."""
    from ..models.golden import write_vectors
    from ..paths import REPO

    for path in write_vectors(out or REPO / "vectors"):
        click.echo(path)


cli.add_command(data_group)
cli.add_command(model_group)
for command in (run_command, verify_command, compare_command, export_command, import_command,
                runs_command, build_command, info_command, demo_command, report_command,
                reproduce_command, selfcheck_command):
    cli.add_command(command)


def main() -> None:
    try:
        cli(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except USER_ERRORS as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
