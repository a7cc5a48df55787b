"""Where serbench keeps what it makes: one work directory, `out/` in the checkout by default."""
from __future__ import annotations

import os
from pathlib import Path

from .ids import checked, under

REPO = Path(__file__).resolve().parents[2]


def home() -> Path:
    """The work directory; SERBENCH_HOME moves data, results and reports elsewhere."""
    return Path(os.environ.get("SERBENCH_HOME", REPO / "out"))


def data_root() -> Path:
    return home() / "data"


def cache_dir() -> Path:
    return home() / "cache"


def run_files(run_id: str) -> Path:
    """A run's files (the drivers' paged files, its process records): refused (IdError) for
    an id that would lead out of runs/, since a reaper removes it (runs/ itself may be a link
    the user made to a larger disk)."""
    return under(home() / "runs", checked("run id", run_id))


def report_files(run_id: str) -> Path:
    """Where a run's report is written unless the user names a directory."""
    return under(home() / "reports", checked("run id", run_id))


def file_key(path: Path) -> tuple:
    """A file's identity for what one process computes from its content and reuses (every
    method's cell of a dataset expects the same): a rewritten file has another key."""
    stat = Path(path).stat()
    return (str(path), stat.st_ino, stat.st_mtime_ns, stat.st_size)
