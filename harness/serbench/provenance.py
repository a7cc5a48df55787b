"""What a run records about where it ran: host, toolchains, git state and the drivers' info.

Every probe tolerates absence (a missing compiler is recorded as missing, not an error), and
every probe has a timeout, so provenance never stops a run.
"""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
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
# machine_state: processes using more than this share of a core over the sampling window
BUSY_SHARE = 0.10
BUSY_WINDOW_S = 0.5


def host() -> dict:
    return {
        "cpu_model": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "memory_bytes": _meminfo("MemTotal:"),
        "kernel": platform.release(),
        "os": _os_name(),
        "machine": platform.machine(),
        "hostname": platform.node(),
    }


def host_name(host: dict | str | None) -> str:
    """A recorded host (its dict, or the JSON text the results database holds) by name."""
    try:
        found = json.loads(host) if isinstance(host, str) else (host or {})
    except ValueError:
        found = {}
    return str(found.get("hostname") or found.get("cpu_model") or "an unnamed host")


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "Model", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _meminfo(key: str) -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith(key):
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


def machine_state(window_s: float = BUSY_WINDOW_S) -> dict:
    """How quiet the machine is, taken before and after a run: load averages, the CPU
    frequency governors, and the other processes that used more than BUSY_SHARE of a core
    over `window_s` seconds (a reader can tell a quiet run from one that shared the CPU)."""
    before = _cpu_ticks()
    time.sleep(window_s)
    after = _cpu_ticks()
    ticks_per_s = os.sysconf("SC_CLK_TCK")
    busy = []
    for pid, (name, ticks) in after.items():
        share = (ticks - before.get(pid, (name, ticks))[1]) / ticks_per_s / window_s
        if share > BUSY_SHARE and pid != os.getpid():
            busy.append({"pid": pid, "name": name, "cpu_share": round(share, 2)})
    busy.sort(key=lambda p: -p["cpu_share"])
    return {"load_average": [round(x, 2) for x in os.getloadavg()],
            "governors": _governors(), "busy_processes": busy[:5],
            "memory_available_bytes": _meminfo("MemAvailable:")}


def _cpu_ticks() -> dict[int, tuple[str, int]]:
    """pid -> (command name, user + system clock ticks) of every readable process."""
    ticks = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue  # gone or unreadable
        name = stat[stat.find("(") + 1:stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2:].split()
        ticks[int(entry.name)] = (name, int(fields[11]) + int(fields[12]))
    return ticks


def _governors() -> list[str] | None:
    """The distinct scaling governors of the CPUs, None where the kernel does not say."""
    found = set()
    for path in Path("/sys/devices/system/cpu").glob("cpu[0-9]*/cpufreq/scaling_governor"):
        try:
            found.add(path.read_text().strip())
        except OSError:
            pass
    return sorted(found) or None
