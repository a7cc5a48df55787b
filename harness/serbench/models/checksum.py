"""The logical checksum: the Python reference of the brief's definition.

A value is visited depth-first in canonical field order and turned into unsigned 64-bit words,
folded with FNV-1a-64 style steps. The walk also validates the value against its model, so a
missing field, a wrong type or an out-of-range integer is reported with its field path.
Drivers in every language implement the same walk; the golden vectors in `vectors/` pin them.
"""
from __future__ import annotations

import math
import struct
import sys
from functools import lru_cache
from typing import Callable, Iterable

from . import INT_RANGES, STRUCTS, Enum, ListOf, Opt, Prim, Ref, Struct, root_struct


SEED = 0xCBF29CE484222325
PRIME = 0x100000001B3
MASK = 0xFFFFFFFFFFFFFFFF

_pack_d = struct.Struct("<d").pack
_unpack_q = struct.Struct("<Q").unpack


class DataError(ValueError):
    """A value that does not fit its model; `path` names the field (e.g. orders[2].clerk)."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


def step(h: int, w: int) -> int:
    return ((h ^ w) * PRIME) & MASK


def str_words(s: str) -> list[int]:
    data = s.encode("utf-8")
    words = [len(data)]
    for i in range(0, len(data), 8):
        words.append(int.from_bytes(data[i : i + 8], "little"))
    return words


def f64_word(v: float) -> int:
    return _unpack_q(_pack_d(v))[0]


# A folder takes (hash, value, path) and returns the new hash; one is compiled per type.
Folder = Callable[[int, object, str], int]


def _int_folder(kind: str) -> Folder:
    lo, hi = INT_RANGES[kind]

    def fold(h, v, path):
        if type(v) is not int:
            raise DataError(path, f"expected {kind}, got {describe(v)}")
        if not lo <= v <= hi:
            raise DataError(path, f"{v} out of range for {kind}")
        return ((h ^ (v & MASK)) * PRIME) & MASK

    return fold


def _f64_fold(h, v, path):
    if type(v) is int:  # JSON writers may print an integral double without a fraction
        v = float(v)
    elif type(v) is not float:
        raise DataError(path, f"expected f64, got {describe(v)}")
    if not math.isfinite(v):
        raise DataError(path, "f64 must be finite")
    return ((h ^ _unpack_q(_pack_d(v))[0]) * PRIME) & MASK


def _bool_fold(h, v, path):
    if type(v) is not bool:
        raise DataError(path, f"expected bool, got {describe(v)}")
    return ((h ^ int(v)) * PRIME) & MASK


def _str_fold(h, v, path):
    if type(v) is not str:
        raise DataError(path, f"expected str, got {describe(v)}")
    try:
        data = v.encode("utf-8")
    except UnicodeEncodeError:
        raise DataError(path, "string is not valid UTF-8 (lone surrogate)") from None
    return fold_bytes(h, data)


def fold_bytes(h: int, data: bytes) -> int:
    """Bytes folded as a string is: their length, then 8-byte little-endian words, the last
    zero-padded."""
    n = len(data)
    h = ((h ^ n) * PRIME) & MASK
    whole = n - n % 8
    if sys.byteorder == "little":  # the words as ints without a slice each: twice as fast
        for word in memoryview(data)[:whole].cast("Q"):
            h = ((h ^ word) * PRIME) & MASK
    else:
        for i in range(0, whole, 8):
            h = ((h ^ int.from_bytes(data[i : i + 8], "little")) * PRIME) & MASK
    if whole < n:
        h = ((h ^ int.from_bytes(data[whole:], "little")) * PRIME) & MASK
    return h


def describe(v: object) -> str:
    if v is None:
        return "null"
    return {bool: "bool", int: "integer", float: "number", str: "string", list: "list",
            dict: "object"}.get(type(v), type(v).__name__)


def _opt_folder(inner: Folder) -> Folder:
    def fold(h, v, path):
        if v is None:
            return ((h ^ 0) * PRIME) & MASK
        return inner(((h ^ 1) * PRIME) & MASK, v, path)

    return fold


def _list_folder(inner: Folder) -> Folder:
    def fold(h, v, path):
        if type(v) is not list:
            raise DataError(path, f"expected list, got {describe(v)}")
        h = ((h ^ len(v)) * PRIME) & MASK
        for i, item in enumerate(v):
            h = inner(h, item, f"{path}[{i}]")
        return h

    return fold


def _enum_folder(symbols: tuple[str, ...]) -> Folder:
    ordinals = {s: i for i, s in enumerate(symbols)}

    def fold(h, v, path):
        if type(v) is not str or v not in ordinals:
            raise DataError(path, f"expected one of {'/'.join(symbols)}, got {v!r}")
        return ((h ^ ordinals[v]) * PRIME) & MASK

    return fold


@lru_cache(maxsize=None)
def struct_folder(name: str) -> Folder:
    s: Struct = STRUCTS[name]
    # resolved lazily on first use, which lets recursive structs refer to themselves
    compiled: list[tuple[str, Folder, bool]] = []
    known = frozenset(f for f, _ in s.fields)

    def fold(h, v, path):
        if not compiled:
            compiled.extend((f, _folder(t), isinstance(t, Opt)) for f, t in s.fields)
        if type(v) is not dict:
            raise DataError(path, f"expected {name} object, got {describe(v)}")
        prefix = f"{path}." if path else ""
        if not v.keys() <= known:
            extra = sorted(v.keys() - known)[0]
            raise DataError(f"{prefix}{extra}", f"unknown field of {name}")
        for fname, folder, optional in compiled:
            if fname in v:
                item = v[fname]
            elif optional:
                item = None
            else:
                raise DataError(f"{prefix}{fname}", "missing required field")
            h = folder(h, item, prefix + fname)
        return h

    return fold


def _folder(t) -> Folder:
    if isinstance(t, Prim):
        if t.kind in INT_RANGES:
            return _int_folder(t.kind)
        return {"f64": _f64_fold, "bool": _bool_fold, "str": _str_fold}[t.kind]
    if isinstance(t, Opt):
        return _opt_folder(_folder(t.inner))
    if isinstance(t, ListOf):
        return _list_folder(_folder(t.inner))
    if isinstance(t, Enum):
        return _enum_folder(t.symbols)
    if isinstance(t, Ref):
        return struct_folder(t.name)
    raise TypeError(t)


def object_hash(model: str, obj: object) -> int:
    """Hash of one canonical object (a dict parsed from JSON); validates while it walks."""
    return struct_folder(root_struct(model).name)(SEED, obj, "")


def set_checksum(hashes: Iterable[int]) -> tuple[int, int]:
    """(count, wrapping sum): independent of order, so parallel and random reads check."""
    count = total = 0
    for h in hashes:
        count += 1
        total = (total + h) & MASK
    return count, total


def sequence_checksum(hashes: Iterable[int]) -> int:
    """Order-sensitive fold of object hashes, for sorted outputs."""
    h = SEED
    for x in hashes:
        h = ((h ^ x) * PRIME) & MASK
    return h


def hex64(v: int) -> str:
    """u64 values leave Python as 16 hex digits, so no JSON reader loses precision."""
    return f"{v:016x}"
