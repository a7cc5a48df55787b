"""`serbench data`: generate, ingest, replicate, list and re-check datasets."""
from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from ..datasets import build, default
from ..datasets.manifest import (DatasetError, Manifest, checksum_file, data_path, list_datasets,
                                 load_manifest)
from ..ids import IdError, checked
from ..models import TWEET_KIND_SHARES
from ..paths import cache_dir, data_root
from .output import Listing, diagnostics_console, emit, format_option, results_console


console = diagnostics_console()  # `data list` prints to stdout

NAME_HELP = "dataset directory name under the data root (default: derived from the parameters)"


def _checked_name(ctx, param, value: str | None) -> str | None:
    """A name is one directory under the data root: no path components, nothing hidden."""
    try:
        return value if value is None else checked("dataset name", value)
    except IdError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


def _root(ctx: click.Context) -> Path:
    return Path(ctx.obj["data_root"]) if ctx.obj and ctx.obj.get("data_root") else data_root()


def _show(manifests: list[Manifest], directory: Path | None = None,
          out: Console = console) -> None:
    table = Table(title=f"datasets in {directory}" if directory else "datasets")
    for column in ("model", "objects", "distinct", "MB", "mean B/object", "max B", "sum"):
        table.add_column(column, justify="right" if column != "model" else "left")
    for m in manifests:
        table.add_row(m.model, f"{m.count:,}", f"{m.distinct_count:,}", f"{m.bytes / 1e6:.1f}",
                      f"{m.mean_object_bytes:,.0f}", f"{m.max_object_bytes:,}",
                      m.set_checksum["sum"])
    out.print(table)


def _suffix(replicate: int) -> str:
    return f"-r{replicate}" if replicate > 1 else ""


@click.group("data")
@click.option("--root", "data_root_opt", type=click.Path(file_okay=False, path_type=Path),
              help="data root (default: $SERBENCH_HOME/data, i.e. out/data)")
@click.pass_context
def data_group(ctx: click.Context, data_root_opt: Path | None) -> None:
    """Generate or ingest canonical datasets (JSON Lines + manifest)."""
    ctx.ensure_object(dict)
    ctx.obj["data_root"] = data_root_opt


@data_group.command("default")
@click.pass_context
def data_default(ctx: click.Context) -> None:
    """The embedded small default: every model, fixed seed (reuses what is already made)."""
    root = _root(ctx)
    made = default.make_default(root, progress=lambda msg: console.print(f"[cyan]making[/] {msg}"))
    for name in (default.DEFAULT_NAME, default.DUPLICATED_NAME):
        _show([m for d, m in list_datasets(root) if d.name == name], root / name)
    console.print(f"{len(made)} made, the rest reused")


@data_group.command("tpch")
@click.option("--sf", type=float, required=True, help="TPC-H scale factor, e.g. 0.1")
@click.option("--models", default="part,lineitem,customer", show_default=True)
@click.option("--replicate", type=int, default=1, show_default=True,
              help="each object r times, shuffled (external-sort inputs)")
@click.option("--seed", type=int, default=default.SEED, show_default=True,
              help="shuffle seed for --replicate")
@click.option("--name", help=NAME_HELP, callback=_checked_name)
@click.pass_context
def data_tpch(ctx, sf, models, replicate, seed, name):
    """Real TPC-H tables (tpchgen-cli) joined into nested part / lineitem / customer."""
    directory = _root(ctx) / (name or f"tpch-sf{sf:g}{_suffix(replicate)}")
    chosen = tuple(m.strip() for m in models.split(",") if m.strip())
    manifests = build.make_tpch(sf, directory, chosen, replicate, seed,
                                progress=lambda msg: console.print(f"[cyan]{msg}[/]"))
    _show(manifests, directory)


COMMON_OPTIONS = (
    lambda: click.Option(["--seed"], type=int, default=default.SEED, show_default=True),
    lambda: click.Option(["--replicate"], type=int, default=1, show_default=True,
                         help="each object r times, shuffled (external-sort inputs)"),
    lambda: click.Option(["--name"], help=NAME_HELP, callback=_checked_name),
)


def _native_command(family: str, options: list[click.Option], help_text: str) -> click.Command:
    """One generator subcommand per synthetic family, all made by serbench-datagen."""

    @click.pass_context
    def command(ctx, seed, replicate, name, **params):
        label = "-".join(f"{k}{v:g}" if isinstance(v, float) else f"{k}{v}"
                         for k, v in params.items())
        directory = _root(ctx) / (name or f"{family}-{label}-s{seed}{_suffix(replicate)}")
        _show([build.make_native(family, params, seed, directory, replicate)], directory)

    params = options + [make() for make in COMMON_OPTIONS]
    return click.Command(family, callback=command, params=params, help=help_text)


data_group.add_command(_native_command("sparse", [
    click.Option(["--n"], type=int, default=8, show_default=True, help="number of vectors"),
    click.Option(["--dimension"], type=int, default=100_000_000, show_default=True),
    click.Option(["--density"], type=float, default=0.001, show_default=True,
                 help="fraction of positions present, in (0, 1]"),
], "Seeded sparse vectors, positions uniform without replacement."))
data_group.add_command(_native_command("trade", [
    click.Option(["--n"], type=int, default=1000, show_default=True,
                 help="objects; the first is the published reference instance"),
], "Flat trade records with two primitive arrays."))
data_group.add_command(_native_command("org", [
    click.Option(["--n"], type=int, default=1000, show_default=True),
], "Organisations with 40-70 attributes each."))
data_group.add_command(_native_command("arrays", [
    click.Option(["--k"], type=int, default=1000, show_default=True,
                 help="length of both arrays"),
    click.Option(["--n"], type=int, default=100, show_default=True),
], "k strings \"Dummy text\" and k zero ints per object."))


@data_group.command("tweet")
@click.option("--n", type=int, default=10_000, show_default=True, help="tweets to generate")
@click.option("--seed", type=int, default=default.SEED, show_default=True)
@click.option("--replicate", type=int, default=1, show_default=True)
@click.option("--ingest", "source", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="ingest real Twitter API v1.1 JSON instead of generating")
@click.option("--name", help=NAME_HELP, callback=_checked_name)
@click.pass_context
def data_tweet(ctx, n, seed, replicate, source, name):
    """Synthetic tweets in the measured mix of kinds, or ingested real v1.1 statuses."""
    if source is not None:
        directory = _root(ctx) / (name or f"tweet-ingest-{source.stem}")
        manifest = build.make_ingested_tweets(source, directory)
    else:
        directory = _root(ctx) / (name or f"tweet-n{n}-s{seed}{_suffix(replicate)}")
        manifest = build.make_native("tweet", {"n": n}, seed, directory, replicate)
    _show([manifest], directory)
    _compare_tweets(manifest)


@data_group.command("import")
@click.argument("source", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--model", required=True,
              help="the model every line must be an object of (a user's own, from "
                   "`serbench model infer`, or a built-in one)")
@click.option("--name", help="dataset directory name under the data root (default: the "
                             "model's id)", callback=_checked_name)
@click.pass_context
def data_import(ctx, source: Path, model: str, name: str | None) -> None:
    """A JSON Lines file of your own objects as a canonical dataset: every line checked
    against the model (the line, the field and what was expected are named on the first that
    fails), nothing published unless all pass."""
    from ..datasets.imported import import_jsonl

    directory = _root(ctx) / (name or model)
    manifest = import_jsonl(source, model, directory,
                            progress=lambda message: console.print(f"[cyan]{message}[/]"))
    _show([manifest], directory)


def real_sample_manifest() -> Manifest:
    """The real 100-status sample (npm simdjson@0.9.2 twitter.json), ingested once, cached."""
    from ..datasets.samples import fetch_twitter_sample

    directory = cache_dir() / "twitter_sample"
    try:
        return load_manifest(directory, "tweet")
    except DatasetError:
        return build.make_ingested_tweets(fetch_twitter_sample(cache_dir()), directory)


def _compare_tweets(manifest: Manifest) -> None:
    """Mean size and kind mix of this dataset beside the real sample and the target mix."""
    try:
        real = real_sample_manifest()
    except Exception as exc:  # the comparison is informative; the dataset itself is done
        console.print(f"[yellow]real sample unavailable for comparison: {exc}[/]")
        real = None
    table = Table(title="tweets: this dataset vs the real v1.1 sample")
    table.add_column("")
    table.add_column("this dataset", justify="right")
    table.add_column("real sample", justify="right")
    table.add_column("target mix", justify="right")

    def share(m: Manifest | None, kind: str) -> str:
        if m is None or not m.kinds or not m.count:
            return "-"
        return f"{100 * m.kinds.get(kind, 0) / m.count:.1f} %"

    table.add_row("tweets", f"{manifest.count:,}", f"{real.count:,}" if real else "-", "")
    table.add_row("mean JSON bytes", f"{manifest.mean_object_bytes:,.0f}",
                  f"{real.mean_object_bytes:,.0f}" if real else "-", "")
    for kind, target in TWEET_KIND_SHARES.items():
        table.add_row(kind, share(manifest, kind), share(real, kind), f"{100 * target:.1f} %")
    console.print(table)


DATASET_COLUMNS = ("directory", "path", "model", "objects", "distinct", "bytes",
                   "mean_object_bytes", "max_object_bytes", "sum")


def dataset_rows(found: list[tuple[Path, Manifest]]) -> list[dict]:
    return [{"directory": d.name, "path": str(d), "model": m.model, "objects": m.count,
             "distinct": m.distinct_count, "bytes": m.bytes,
             "mean_object_bytes": round(m.mean_object_bytes, 1),
             "max_object_bytes": m.max_object_bytes, "sum": m.set_checksum["sum"]}
            for d, m in found]


@data_group.command("list")
@format_option
@click.pass_context
def data_list(ctx, fmt: str = "table"):
    """Every complete dataset under the data root."""
    root = _root(ctx)
    found = list_datasets(root)
    if not found:
        console.print(f"no datasets under {root}; run `serbench data default`")
    emit(fmt, Listing(DATASET_COLUMNS, dataset_rows(found)), lambda: _list_tables(found))


def _list_tables(found: list[tuple[Path, Manifest]]) -> None:
    by_dir: dict[Path, list[Manifest]] = {}
    for directory, manifest in found:
        by_dir.setdefault(directory, []).append(manifest)
    for directory, manifests in by_dir.items():
        _show(manifests, directory, results_console())


@data_group.command("check")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("model")
def data_check(directory: Path, model: str):
    """Re-validate a dataset file and compare its checksum with the manifest."""
    manifest = load_manifest(directory, model)
    summary = checksum_file(model, data_path(directory, model))
    got = {"count": summary["count"], "sum": summary["sum"]}
    if got != manifest.set_checksum:
        raise click.ClickException(f"{data_path(directory, model)}: checksum {got} differs "
                                   f"from manifest {manifest.set_checksum}")
    console.print(f"[green]ok[/] {model}: {got['count']:,} objects, sum {got['sum']}")
