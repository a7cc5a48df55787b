"""The native hot loops of the harness: the `serbench-datagen` program of the Rust workspace.

Generating a million tweets or checksumming gigabytes of JSON Lines is out of Python's reach
in the time the brief allows, so those loops run in Rust; Python keeps the orchestration.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from ..paths import REPO


RUST_WORKSPACE = REPO / "drivers" / "rust"


class NativeError(RuntimeError):
    pass


def cargo_build(package: str) -> None:
    cargo = shutil.which("cargo")
    if cargo is None:
        raise NativeError("cargo not found: install Rust (rustup) or run scripts/setup")
    cmd = [cargo, "build", "--release", "--locked", "--quiet", "-p", package,
           "--manifest-path", str(RUST_WORKSPACE / "Cargo.toml")]
    # cargo reports progress on stderr, which the child inherits (fd 2, not sys.stderr, which
    # may be a stand-in without a file descriptor under a test runner)
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise NativeError(f"building {package} failed (exit {proc.returncode}): {' '.join(cmd)}")


@lru_cache(maxsize=None)
def datagen_path(build: bool = True) -> Path:
    """SERBENCH_DATAGEN overrides; otherwise the release build, built on first use."""
    override = os.environ.get("SERBENCH_DATAGEN")
    if override:
        return Path(override)
    path = RUST_WORKSPACE / "target" / "release" / "serbench-datagen"
    if build:
        cargo_build("serbench-datagen")  # incremental, and once per process
    if not path.exists():
        raise NativeError(f"{path} missing; run `serbench build`")
    return path


def run_datagen(*args: str) -> dict:
    """Run one datagen subcommand; its stdout is one JSON summary line.

    Exit status 2 means bad input or parameters, and stderr already names the file, line and
    field, so it is passed on as the error message unchanged.
    """
    proc = subprocess.run([str(datagen_path()), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        message = proc.stderr.strip() or f"serbench-datagen exited with {proc.returncode}"
        raise NativeError(message)
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        raise NativeError(f"serbench-datagen printed no JSON summary: {proc.stdout[:200]!r}")
