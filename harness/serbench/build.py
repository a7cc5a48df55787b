"""`serbench build`: release builds of the drivers whose projects exist in the checkout.

Each language's own build tool does the work (incrementally); a language whose project is not
there yet is skipped with a note, and a missing toolchain is an error that says what to install.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .paths import REPO

DRIVERS = REPO / "drivers"


class BuildError(RuntimeError):
    pass


@dataclass(frozen=True)
class Recipe:
    project: Path  # the file that marks the project as present
    tools: tuple[str, ...]
    install_hint: str
    commands: tuple[tuple[str, ...], ...]
    # the tool's offline flag: each command is tried offline first (no network round trips
    # once the tool's cache is populated) and run again online when that fails
    offline_flag: str | None = None


RECIPES = {
    "rust": Recipe(
        DRIVERS / "rust" / "Cargo.toml", ("cargo",), "install Rust with rustup",
        (("cargo", "build", "--release", "--locked", "--manifest-path",
          str(DRIVERS / "rust" / "Cargo.toml")),)),
    "cpp": Recipe(
        DRIVERS / "cpp" / "CMakeLists.txt", ("cmake", "g++"),
        "install cmake and g++ (scripts/setup installs them with the C++ libraries)",
        (("cmake", "-S", str(DRIVERS / "cpp"), "-B", str(DRIVERS / "cpp" / "build"),
          "-DCMAKE_BUILD_TYPE=Release"),
         ("cmake", "--build", str(DRIVERS / "cpp" / "build"), "--parallel",
          str(os.cpu_count() or 1)))),
    "java": Recipe(
        DRIVERS / "java" / "pom.xml", ("mvn", "java"), "install a JDK (17+) and Maven",
        (("mvn", "-q", "-f", str(DRIVERS / "java" / "pom.xml"), "-DskipTests", "package"),),
        offline_flag="-o"),
}


def build(languages: tuple[str, ...] = tuple(RECIPES),
          say: Callable[[str], None] = print) -> list[str]:
    """Build each language whose project exists; returns the languages built."""
    built = []
    for language in languages:
        recipe = RECIPES[language]
        if not recipe.project.exists():
            say(f"{language}: skipped, no {recipe.project.relative_to(REPO)} in this checkout")
            continue
        missing = [tool for tool in recipe.tools if shutil.which(tool) is None]
        if missing:
            raise BuildError(f"{language}: {', '.join(missing)} not found; {recipe.install_hint}")
        say(f"{language}: building")
        for command in recipe.commands:
            if recipe.offline_flag and _offline_ok(command, recipe.offline_flag):
                continue
            # the build tools' own output goes to stderr, where the user watches progress
            proc = subprocess.run(command, cwd=REPO, stdout=sys.stderr, stderr=sys.stderr)
            if proc.returncode != 0:
                raise BuildError(f"{language}: `{' '.join(command)}` failed "
                                 f"(exit {proc.returncode}); its output is above")
        _mark_current(language)
        built.append(language)
    return built


def _mark_current(language: str) -> None:
    """After a successful build the driver is current, even when its build tool found nothing
    to relink (a change to a test's build flags): its time is moved past the newest source,
    so `serbench run` does not warn about a build that just happened."""
    artifact = ARTIFACTS.get(language)
    if artifact is not None and artifact.exists() and stale_source(language) is not None:
        artifact.touch()


def _offline_ok(command: tuple[str, ...], flag: str) -> bool:
    """Runs the command offline, quietly; its output is shown by the online retry if it fails."""
    offline = command[:1] + (flag,) + command[1:]
    return subprocess.run(offline, cwd=REPO, capture_output=True).returncode == 0


# What each build produces, and the sources it is made from (besides schemas/).
ARTIFACTS = {
    "rust": DRIVERS / "rust" / "target" / "release" / "serbench-rust",
    "cpp": DRIVERS / "cpp" / "build" / "serbench-cpp",
    "java": DRIVERS / "java" / "target" / "serbench-java.jar",
}
BUILD_OUTPUTS = ("target", "build", "fuzz")


def stale_source(language: str) -> Path | None:
    """A source of the driver changed after its last build (the results would belong to older
    code), or None. Build outputs and the fuzz crates do not count."""
    artifact = ARTIFACTS[language]
    if not artifact.exists():
        return None
    built = artifact.stat().st_mtime
    roots = [DRIVERS / language, REPO / "schemas"]
    for root in roots:
        for path in _sources(root):
            if path.stat().st_mtime > built:
                return path
    return None


def _sources(root: Path):
    for entry in os.scandir(root):
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in BUILD_OUTPUTS and not entry.name.startswith("."):
                yield from _sources(Path(entry.path))
        elif entry.is_file(follow_symlinks=False):
            yield Path(entry.path)
