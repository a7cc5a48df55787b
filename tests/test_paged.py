"""The harness's reader of paged files and the raw floor's reference checksum, against a file
laid out by hand and hashes worked out from the definition (not from the code under test)."""
import struct

import pytest

from serbench.drivers.paged import PagedError, extents, raw_checksum

SEED, PRIME, MASK = 0xCBF29CE484222325, 0x100000001B3, (1 << 64) - 1
PAGE = 64


def by_hand(*words: int) -> int:
    h = SEED
    for w in words:
        h = ((h ^ w) * PRIME) & MASK
    return h


def paged_file(tmp_path, objects: list[tuple[int, int, bytes]], pages: int):
    """Objects placed at (page, offset); an index with a 128-byte header of magic, version,
    page size and count (the fields this reader uses), then the entries."""
    data = bytearray(pages * PAGE)
    for page, offset, body in objects:
        data[page * PAGE + offset:page * PAGE + offset + len(body)] = body
    base = tmp_path / "file"
    (tmp_path / "file.pages").write_bytes(bytes(data))
    header = struct.pack("<8sIIQ", b"SERBIDX\n", 1, PAGE, len(objects)).ljust(128, b"\0")
    entries = b"".join(struct.pack("<QII", page, offset, len(body))
                       for page, offset, body in objects)
    (tmp_path / "file.index").write_bytes(header + entries)
    return base


def test_each_object_is_folded_as_its_length_then_its_padded_words(tmp_path):
    spill = bytes(range(100))  # longer than a page: it starts a page and runs into the next
    base = paged_file(tmp_path, [(0, 0, b"abc"), (0, 3, b"12345678x"), (1, 0, spill)], 3)
    assert extents(tmp_path / "file.index") == (PAGE, [(0, 0, 3), (0, 3, 9), (1, 0, 100)])
    abc = by_hand(3, 0x636261)
    digits = by_hand(9, int.from_bytes(b"12345678", "little"), ord("x"))
    spill_words = [int.from_bytes(spill[i:i + 8], "little") for i in range(0, 100, 8)]
    assert spill_words[-1] == 0x63626160  # the last 4 bytes, zero-padded
    long_one = by_hand(100, *spill_words)
    assert raw_checksum(base, [0]) == {"count": 1, "sum": f"{abc:016x}"}
    # a selection with a repeat counts it twice; the order does not matter
    total = (abc + 2 * digits + long_one) & MASK
    assert raw_checksum(base, [1, 2, 0, 1]) == {"count": 4, "sum": f"{total:016x}"}


def test_a_position_past_the_file_or_a_truncated_file_is_an_error(tmp_path):
    base = paged_file(tmp_path, [(0, 0, b"abc"), (1, 0, b"defg")], 2)
    with pytest.raises(PagedError, match="object 2 asked for, the file holds 2"):
        raw_checksum(base, [2])
    (tmp_path / "file.pages").write_bytes(b"\0" * (PAGE + 2))
    with pytest.raises(PagedError, match="object 1 ends past the file's end"):
        raw_checksum(base, [0, 1])
    (tmp_path / "file.index").write_bytes(b"SERBIDX\n")
    with pytest.raises(PagedError, match="shorter than an index header"):
        raw_checksum(base, [0])
