"""The models' total order (docs/models.md), the Python reference for `sort_dedup` expectations.

A model root compares its key fields first, then every field in canonical order; strings by
UTF-8 bytes, lists lexicographically (a prefix first), absent before present, f64 by IEEE total
order (-0.0 < 0.0), false < true, enums by ordinal. `sort_key` turns a canonical object (a dict
parsed from JSON) into a Python value whose ordinary comparison is that order, so equal keys
mean duplicates.
"""
from __future__ import annotations

import json
import struct
from functools import lru_cache
from pathlib import Path
from typing import Callable

from . import MODEL_ROOTS, STRUCTS, Enum, ListOf, Opt, Prim, Ref, root_struct
from .checksum import object_hash, sequence_checksum


Key = Callable[[object], object]
_bits = struct.Struct("<q")
_double = struct.Struct("<d")


def f64_key(v) -> int:
    """An integer ordered like IEEE totalOrder of the double `v`."""
    (i,) = _bits.unpack(_double.pack(float(v)))
    return i ^ 0x7FFF_FFFF_FFFF_FFFF if i < 0 else i


def _key_of(t) -> Key:
    if isinstance(t, Prim):
        if t.kind == "f64":
            return f64_key
        if t.kind == "str":
            return lambda v: v.encode("utf-8")
        return int  # integers and bool
    if isinstance(t, Opt):
        inner = _key_of(t.inner)
        return lambda v: (0,) if v is None else (1, inner(v))
    if isinstance(t, ListOf):
        inner = _key_of(t.inner)
        return lambda v: tuple(inner(item) for item in v)
    if isinstance(t, Enum):
        ordinals = {s: i for i, s in enumerate(t.symbols)}
        return ordinals.__getitem__
    if isinstance(t, Ref):
        return lambda v: struct_key(t.name)(v)
    raise TypeError(t)


@lru_cache(maxsize=None)
def struct_key(name: str, first: tuple[str, ...] = ()) -> Key:
    """The key of a struct: the fields named in `first`, then every field in order."""
    fields = dict(STRUCTS[name].fields)
    order = [*first, *fields]
    keys = [(f, _key_of(fields[f])) for f in order]
    return lambda v: tuple(key(v.get(f)) for f, key in keys)


def sort_key(model: str) -> Key:
    root = root_struct(model)
    return struct_key(root.name, MODEL_ROOTS[model][1])


def sorted_distinct(model: str, objects: list) -> list:
    """The objects in total order, each distinct object once."""
    key = sort_key(model)
    keyed = sorted(((key(o), i) for i, o in enumerate(objects)))
    out, last = [], None
    for k, i in keyed:
        if k != last:
            out.append(objects[i])
            last = k
    return out


def sorted_distinct_checksum(model: str, path: Path) -> dict:
    """`{"count", "sum"}` of a JSON Lines file's distinct objects in total order, `sum` being
    the sequence checksum: what `sort_dedup` must return."""
    with open(path, "rb") as f:
        objects = [json.loads(line) for line in f if line.strip()]
    distinct = sorted_distinct(model, objects)
    return {"count": len(distinct),
            "sum": f"{sequence_checksum(object_hash(model, o) for o in distinct):016x}"}
