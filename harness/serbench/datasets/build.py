"""Making datasets: each family's generator, then checksum, then publish (see manifest.py)."""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from ..models import DATASET_OF_MODEL
from .manifest import (Manifest, checksum_file, data_path, discard_tmp, publish,
                       summary_to_manifest, tmp_path, unpublish)
from .native import run_datagen


Progress = Callable[[str], None]

# Synthetic families made by serbench-datagen: parameter name -> (type, validity check, rule).
# At least one object: an empty dataset has nothing to verify or measure (manifest.measurable).
OBJECTS = (int, lambda v: v >= 1, "n >= 1")
NATIVE_PARAMS = {
    "tweet": {"n": OBJECTS},
    "sparse": {"n": OBJECTS,
               "dimension": (int, lambda v: v >= 1, "dimension >= 1"),
               "density": (float, lambda v: 0 < v <= 1, "density in (0, 1]")},
    "trade": {"n": OBJECTS},
    "org": {"n": OBJECTS},
    "arrays": {"k": (int, lambda v: v >= 0, "k >= 0"), "n": OBJECTS},
}


class ParameterError(ValueError):
    pass


def check_params(family: str, params: dict) -> dict:
    """Refuse impossible parameters before any work starts, naming the parameter."""
    spec = NATIVE_PARAMS[family]
    missing = [name for name in spec if name not in params]
    if missing:
        raise ParameterError(f"{family}: missing parameter(s) {', '.join(missing)}")
    clean = {}
    for name, (kind, ok, rule) in spec.items():
        value = params[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ParameterError(f"{family}: {name} must be a number, got {value!r}")
        if kind is int and value != int(value):
            raise ParameterError(f"{family}: {name} must be an integer, got {value!r}")
        value = kind(value)
        if not (math.isfinite(value) and ok(value)):
            raise ParameterError(f"{family}: bad {name}={value!r}, need {rule}")
        clean[name] = value
    return clean


def check_replication(r: int) -> None:
    if isinstance(r, bool) or not isinstance(r, int) or r < 1:
        raise ParameterError(f"replication must be an integer >= 1, got {r!r}")


@dataclass
class Publishing:
    """What the caller knows about a dataset besides the native summary."""

    dataset: str
    params: dict
    seed: int | None
    generator: str


@contextmanager
def staged(directory: Path, model: str) -> Iterator[Path]:
    """Old version gone first, `.tmp` removed on any failure: nothing stale looks complete."""
    directory.mkdir(parents=True, exist_ok=True)
    unpublish(directory, model)
    try:
        yield tmp_path(directory, model)
    except BaseException:
        discard_tmp(directory, model)
        raise


def finish(directory: Path, model: str, info: Publishing, replication: int = 1,
           summary: dict | None = None) -> Manifest:
    """Checksum the staged file (unless its generator just did) and publish it."""
    if summary is None:
        summary = checksum_file(model, tmp_path(directory, model))
    manifest = summary_to_manifest(
        summary, dataset=info.dataset, params=info.params, seed=info.seed,
        replication=replication, generator=info.generator, file=data_path(directory,
                                                                          model).name)
    return publish(directory, manifest)


def replicate_staged(directory: Path, model: str, r: int, seed: int) -> None:
    """Replace the staged file by r shuffled copies of each line (sort inputs)."""
    staged_file = tmp_path(directory, model)
    base = staged_file.with_suffix(".base")
    staged_file.rename(base)
    try:
        run_datagen("replicate", "--model", model, "--r", str(r), "--seed", str(seed),
                    "--in", str(base), "--out", str(staged_file))
    finally:
        base.unlink(missing_ok=True)


def make_native(family: str, params: dict, seed: int, directory: Path,
                replication: int = 1) -> Manifest:
    params = check_params(family, params)
    check_replication(replication)
    model = family  # each native family makes the model of the same name
    args = [arg for name, value in params.items() for arg in (f"--{name}", str(value))]
    if family != "arrays":
        args += ["--seed", str(seed)]
    with staged(directory, model) as tmp:
        summary = run_datagen(family, *args, "--out", str(tmp))
        if replication > 1:
            replicate_staged(directory, model, replication, seed)
            summary = None
        info = Publishing(family, params, seed if family != "arrays" else None,
                          "serbench-datagen")
        return finish(directory, model, info, replication, summary)


def make_tpch(sf: float, directory: Path, models=("part", "lineitem", "customer"),
              replication: int = 1, seed: int = 0,
              progress: Progress | None = None) -> list[Manifest]:
    from .tpch import check_scale_factor, generate_tpch

    try:
        check_scale_factor(sf)
    except ValueError as exc:
        raise ParameterError(f"tpch: {exc}") from None
    check_replication(replication)
    for model in models:
        if DATASET_OF_MODEL.get(model) != "tpch":
            raise ParameterError(f"tpch makes part, lineitem and customer, not {model!r}")
        unpublish(directory, model)
    directory.mkdir(parents=True, exist_ok=True)
    try:
        generate_tpch(sf, directory, models, progress=progress)
        info = Publishing("tpch", {"sf": sf}, None, tpch_generator_label())
        manifests = []
        for model in models:
            if replication > 1:
                replicate_staged(directory, model, replication, seed)
            manifests.append(finish(directory, model, info, replication))
        return manifests
    except BaseException:
        for model in models:
            discard_tmp(directory, model)
        raise


def tpch_generator_label() -> str:
    from importlib.metadata import version

    return f"tpchgen-cli {version('tpchgen-cli')} + duckdb {version('duckdb')}"


def make_ingested_tweets(source: Path, directory: Path) -> Manifest:
    from .tweet_ingest import ingest_tweets

    with staged(directory, "tweet") as tmp:
        ingest_tweets(source, tmp)
        info = Publishing("tweet_ingest", {"source": source.name}, None, "serbench ingest")
        return finish(directory, "tweet", info)


def derive_replicated(src: Path, model: str, r: int, seed: int, directory: Path) -> Manifest:
    """A duplicate-bearing copy of a published dataset, for the external sort."""
    from .manifest import load_manifest

    check_replication(r)
    base = load_manifest(src, model)
    with staged(directory, model) as tmp:
        run_datagen("replicate", "--model", model, "--r", str(r), "--seed", str(seed),
                    "--in", str(data_path(src, model)), "--out", str(tmp))
        info = Publishing(base.dataset, base.params, seed, base.generator)
        return finish(directory, model, info, r * base.replication)
