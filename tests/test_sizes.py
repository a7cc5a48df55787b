"""sizes.py: compressed sizes, computed once per file content."""
from __future__ import annotations

import gzip

from serbench.tasks import sizes


def test_compressed_sizes_are_computed_once_per_content(tmp_path, monkeypatch):
    monkeypatch.setattr(sizes, "_COMPRESSED", {})
    one, same, other = tmp_path / "a.pages", tmp_path / "b.pages", tmp_path / "c.pages"
    one.write_bytes(b"tweet " * 5000)
    same.write_bytes(b"tweet " * 5000)  # another language's byte-identical file
    other.write_bytes(b"tweet " * 4999 + b"retweet")
    calls = []
    real = sizes.gzip_size
    monkeypatch.setattr(sizes, "gzip_size", lambda path: calls.append(path) or real(path))
    first = sizes.compressed_sizes(one)
    assert sizes.compressed_sizes(same) == first and calls == [one]
    assert first["gzip_bytes"] == len(gzip.compress(one.read_bytes(), compresslevel=6))
    assert sizes.compressed_sizes(other) != first and calls == [one, other]
