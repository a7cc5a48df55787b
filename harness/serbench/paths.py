"""Where serbench keeps what it makes: one work directory, `out/` in the checkout by default."""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def home() -> Path:
    """The work directory; SERBENCH_HOME moves data, results and reports elsewhere."""
    return Path(os.environ.get("SERBENCH_HOME", REPO / "out"))


def data_root() -> Path:
    return home() / "data"


def cache_dir() -> Path:
    return home() / "cache"


def file_key(path: Path) -> tuple:
    """A file's identity for what one process computes from its content and reuses (every
    method's cell of a dataset expects the same): a rewritten file has another key."""
    stat = Path(path).stat()
    return (str(path), stat.st_ino, stat.st_mtime_ns, stat.st_size)
