"""Datasets on disk: `<dir>/<model>.jsonl` plus `<dir>/<model>.manifest.json`.

A dataset is complete exactly when its manifest exists and agrees with the data file's size:
generators write `<model>.jsonl.tmp`, the native tool checksums it, then the data file and,
last, the manifest are renamed into place. An interrupted run leaves only `.tmp` files, which
no reader accepts.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import __version__
from ..models import MODEL_ROOTS
from .native import run_datagen


FORMAT = "serbench-dataset/1"


class DatasetError(RuntimeError):
    pass


@dataclass
class Manifest:
    model: str
    dataset: str  # generator family: tpch, tweet, tweet_ingest, sparse, trade, org, arrays
    params: dict
    seed: int | None
    replication: int
    count: int
    distinct_count: int
    set_checksum: dict  # {"count": n, "sum": "16 hex digits"}
    bytes: int
    mean_object_bytes: float
    max_object_bytes: int
    file: str
    generator: str
    kinds: dict | None = None
    created_at: str = ""
    serbench_version: str = __version__
    format: str = FORMAT
    extra: dict = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1) + "\n"


def data_path(directory: Path, model: str) -> Path:
    return directory / f"{model}.jsonl"


def manifest_path(directory: Path, model: str) -> Path:
    return directory / f"{model}.manifest.json"


def tmp_path(directory: Path, model: str) -> Path:
    return directory / f"{model}.jsonl.tmp"


def summary_to_manifest(summary: dict, *, dataset: str, params: dict, seed: int | None,
                        replication: int, generator: str, file: str) -> Manifest:
    return Manifest(
        model=summary["model"], dataset=dataset, params=params, seed=seed,
        replication=replication, count=summary["count"], distinct_count=summary["distinct"],
        set_checksum={"count": summary["count"], "sum": summary["sum"]},
        bytes=summary["bytes"], mean_object_bytes=round(summary["mean_object_bytes"], 1),
        max_object_bytes=summary["max_object_bytes"], file=file, generator=generator,
        kinds=summary.get("kinds"),
        created_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    )


def checksum_file(model: str, path: Path) -> dict:
    """Validate and checksum a JSON Lines file natively (errors name line and field)."""
    return run_datagen("checksum", "--model", model, "--in", str(path))


def publish(directory: Path, manifest: Manifest) -> Manifest:
    """Move `<model>.jsonl.tmp` into place, then write the manifest: the commit point."""
    model = manifest.model
    os.replace(tmp_path(directory, model), data_path(directory, model))
    final = manifest_path(directory, model)
    staging = final.with_suffix(".json.tmp")
    staging.write_text(manifest.to_json())
    os.replace(staging, final)
    return manifest


def unpublish(directory: Path, model: str) -> None:
    """Remove a previous version first, so a failed regeneration never leaves the old
    manifest vouching for a new, different data file."""
    for path in (manifest_path(directory, model), data_path(directory, model)):
        path.unlink(missing_ok=True)


def discard_tmp(directory: Path, model: str) -> None:
    tmp_path(directory, model).unlink(missing_ok=True)


def load_manifest(directory: Path, model: str) -> Manifest:
    """The manifest of a complete dataset; a clear error for anything else."""
    if model not in MODEL_ROOTS:
        raise DatasetError(f"unknown model {model!r}; known models: {', '.join(MODEL_ROOTS)}")
    path = manifest_path(directory, model)
    if not path.exists():
        hint = " (an interrupted generation left a .tmp file)" if tmp_path(
            directory, model).exists() else ""
        raise DatasetError(f"{path}: no manifest, dataset for {model} is missing or "
                           f"incomplete{hint}; run `serbench data`")
    try:
        raw = json.loads(path.read_text())
        manifest = Manifest(**raw)
    except (json.JSONDecodeError, TypeError) as exc:
        raise DatasetError(f"{path}: not a serbench manifest: {exc}") from None
    if manifest.format != FORMAT or manifest.model != model:
        raise DatasetError(f"{path}: manifest is {manifest.format} for model {manifest.model}, "
                           f"expected {FORMAT} for {model}")
    data = data_path(directory, model)
    if not data.exists() or data.stat().st_size != manifest.bytes:
        raise DatasetError(f"{data}: size does not match its manifest ({manifest.bytes} bytes); "
                           "the file was changed or truncated, regenerate it")
    return manifest


def measurable(directory: Path, model: str) -> Manifest:
    """The manifest of a dataset that has objects to measure: an empty one is refused by
    name (its write cells would time an empty file, and every read has nothing to read)."""
    manifest = load_manifest(directory, model)
    if manifest.count == 0:
        raise DatasetError(f"{data_path(directory, model)}: holds no {model} objects; nothing "
                           "to verify or measure: make it again with at least one object")
    return manifest


def list_datasets(root: Path) -> list[tuple[Path, Manifest]]:
    found = []
    for path in sorted(root.glob("*/*.manifest.json")):
        model = path.name.removesuffix(".manifest.json")
        try:
            found.append((path.parent, load_manifest(path.parent, model)))
        except DatasetError:
            continue
    return found
