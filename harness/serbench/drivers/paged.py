"""The harness's own reader of the paged file format (PROTOCOL.md 4): object extents from an
index, and the `raw` floor's checksum computed from the file itself.

The floor is the denominator of every "x own file's raw" figure, so it is checked against this
reference, written apart from every driver: each selected object's bytes folded like a string
of the logical checksum (their length, then 8-byte little-endian words), the set checksum over
the selection with repeats counted.
"""
from __future__ import annotations

import hashlib
import struct
from pathlib import Path
from typing import Iterable

from ..models.checksum import MASK, SEED, fold_bytes, hex64


HEADER = struct.Struct("<8sIIQ")  # magic, version, page size, object count
HEADER_BYTES = 128
ENTRY = struct.Struct("<QII")  # page, offset in the page, length
MAGIC = b"SERBIDX\n"


class PagedError(RuntimeError):
    pass


def extents(index: Path) -> tuple[int, list[tuple[int, int, int]]]:
    """(page size, [(page, offset, length)] per object in write order)."""
    raw = index.read_bytes()
    if len(raw) < HEADER_BYTES:
        raise PagedError(f"{index}: {len(raw)} bytes, shorter than an index header")
    magic, _, page_size, count = HEADER.unpack_from(raw)
    if magic != MAGIC or len(raw) != HEADER_BYTES + ENTRY.size * count:
        raise PagedError(f"{index}: not a serbench index of {count} entries")
    return page_size, list(ENTRY.iter_unpack(raw[HEADER_BYTES:]))


def file_digest(path: Path) -> bytes:
    """A digest of the file's content (files with equal digests hold the same bytes)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "blake2b").digest()


def raw_checksum(base: Path, chosen: Iterable[int]) -> dict:
    """The raw floor's set checksum {count, sum} of the objects `chosen` (positions in write
    order, repeats counted) of the paged file `base`."""
    page_size, entries = extents(Path(f"{base}.index"))
    count = total = 0
    folded: dict[int, int] = {}  # a random read repeats objects: each is folded once
    with open(f"{base}.pages", "rb") as pages:
        for position in chosen:
            if position not in folded:
                folded[position] = _fold_object(pages, base, page_size, entries, position)
            count, total = count + 1, (total + folded[position]) & MASK
    return {"count": count, "sum": hex64(total)}


def _fold_object(pages, base: Path, page_size: int, entries: list, position: int) -> int:
    if position >= len(entries):
        raise PagedError(f"{base}: object {position} asked for, the file holds {len(entries)}")
    page, offset, length = entries[position]
    pages.seek(page * page_size + offset)
    data = pages.read(length)
    if len(data) != length:
        raise PagedError(f"{base}.pages: object {position} ends past the file's end")
    return fold_bytes(SEED, data)
