"""What a run records about where it ran: host, toolchains, git state and the drivers' info.

Every probe tolerates absence (a missing compiler is recorded as missing, not an error), and
every probe has a timeout, so provenance never stops a run.
"""
from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .paths import REPO

# the first non-empty output line of each command carries the version
TOOLCHAINS = {
    "rustc": ["rustc", "--version"],
    "cargo": ["cargo", "--version"],
    "g++": ["g++", "--version"],
    "cmake": ["cmake", "--version"],
    "java": ["java", "-version"],
    "mvn": ["mvn", "-v"],
}
PROBE_TIMEOUT_S = 20.0


def host() -> dict:
    return {
        "cpu_model": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "memory_bytes": _mem_total(),
        "kernel": platform.release(),
        "os": _os_name(),
        "machine": platform.machine(),
        "hostname": platform.node(),
    }


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "Model", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _mem_total() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return f"{platform.system()} {platform.release()}"


def toolchains() -> dict:
    """Version line of each toolchain, None when it is not installed."""
    found = {"python": sys.version.split()[0]}
    for name, cmd in TOOLCHAINS.items():
        found[name] = _version_line(cmd)
    return found


def _version_line(cmd: list[str]) -> str | None:
    if shutil.which(cmd[0]) is None:
        return None
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return None
    # java prints its version on stderr; maven prefixes lines with escape codes
    for line in (proc.stdout + proc.stderr).splitlines():
        line = re.sub(r"\x1b\[[0-9;]*m", "", line).strip()
        if line:
            return line
    return None


def git_state(repo: Path = REPO) -> dict:
    """Commit and whether the working tree differs from it (untracked files count)."""

    def git(*args: str) -> str | None:
        try:
            proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True,
                                  text=True, timeout=PROBE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return proc.stdout.strip() if proc.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain")
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def collect(drivers: dict[str, dict]) -> dict:
    """Everything a run stores besides its plan: `drivers` maps language -> path and info
    (library versions, toolchain and profile come from there, as actually linked)."""
    return {"host": host(), "toolchains": toolchains(), "git": git_state(), "drivers": drivers}
