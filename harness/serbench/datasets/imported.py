"""`serbench data import FILE --model NAME`: a user's JSON Lines as a canonical dataset of
their model (or of a built-in one).

Every line is read as strict JSON (UTF-8, no NaN or Infinity, no key twice), nested at most
64 levels, and checked against the model by the checksum's own walk, which names the field
and what was expected and found; the first line that fails stops the import, naming the line.
What is written is each object's canonical text (its fields in canonical order, a null
optional left out, an integral f64 written as a number with a fraction), staged and published
with its manifest only when every line passed (manifest.py): a failed import leaves no
dataset, and no older one under the same name.

One pass, in the Python reference: memory is the object being read and 8 bytes per object
for the distinct count.
"""
from __future__ import annotations

import json
from array import array
from collections.abc import Callable
from pathlib import Path

from ..models import DEFINITIONS, STRUCTS, ListOf, Opt, Prim, Ref, Struct, UnknownModel, resolve
from ..models.checksum import MASK, DataError, hex64, object_hash
from ..models.jsonl import LineError, read_line
from .build import Publishing, finish, staged
from .manifest import Manifest


# a progress line every this many objects
PROGRESS_EVERY = 100_000


class ImportRefused(ValueError):
    """A line that is not an object of the model; the message names the file and line."""


def import_jsonl(source: Path, model: str, directory: Path,
                 progress: Callable[[str], None] = lambda message: None) -> Manifest:
    """The objects of `source` as the dataset of `model` in `directory`."""
    if model not in DEFINITIONS:
        raise UnknownModel(model)
    root = STRUCTS[DEFINITIONS[model].root]
    made = not directory.exists()
    try:
        with staged(directory, model) as tmp:
            summary = _write(source, model, root, tmp, progress)
            info = Publishing("import", {"source": source.name}, None, "serbench data import")
            return finish(directory, model, info, summary=summary)
    except BaseException:
        if made and directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()  # nothing of a failed import is left, not even its folder
        raise


def _write(source: Path, model: str, root: Struct, out: Path,
           progress: Callable[[str], None]) -> dict:
    hashes = array("Q")
    total = size = largest = 0
    with open(source, "rb") as f, open(out, "w", encoding="utf-8", newline="\n") as w:
        for number, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            value = _parse(source, number, raw)
            try:
                h = object_hash(model, value)
            except DataError as exc:
                raise ImportRefused(f"{source}: line {number}: {exc}") from None
            line = json.dumps(canonical(value, root), ensure_ascii=False, separators=(",", ":"))
            w.write(line + "\n")
            hashes.append(h)
            total = (total + h) & MASK
            length = len(line.encode("utf-8"))
            size += length + 1
            largest = max(largest, length)
            if len(hashes) % PROGRESS_EVERY == 0:
                progress(f"{len(hashes):,} objects checked")
    if not hashes:
        raise ImportRefused(f"{source}: no objects; a dataset holds at least one")
    return {"model": model, "count": len(hashes), "distinct": _distinct(hashes),
            "sum": hex64(total), "bytes": size, "mean_object_bytes": (size - len(hashes))
            / len(hashes), "max_object_bytes": largest}


def _distinct(hashes: array) -> int:
    ordered = sorted(hashes)
    return sum(1 for i, h in enumerate(ordered) if i == 0 or h != ordered[i - 1])


def _parse(source: Path, number: int, raw: bytes):
    try:
        return read_line(raw)
    except LineError as exc:
        raise ImportRefused(f"{source}: line {number}: {exc}") from None


def canonical(value, kind):
    """A checked value's canonical form: struct fields in canonical order, null optionals left
    out, f64 as a float."""
    kind = resolve(kind) if isinstance(kind, Ref) else kind
    if isinstance(kind, Struct):
        out = {}
        for name, field_kind in kind.fields:
            item = value.get(name)
            if item is not None:
                out[name] = canonical(item, field_kind)
        return out
    if isinstance(kind, Opt):
        return canonical(value, kind.inner)
    if isinstance(kind, ListOf):
        return [canonical(item, kind.inner) for item in value]
    if isinstance(kind, Prim) and kind.kind == "f64":
        return float(value)
    return value
