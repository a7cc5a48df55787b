"""`serbench build`: release builds of the drivers whose projects exist in the checkout.

Each language's own build tool does the work (incrementally); a language whose project is not
there yet is skipped with a note, and a missing toolchain is an error that says what to install.

Two recipes per language: the full build (what `make test` needs: the C++ GoogleTest binary,
the Java test classes) and the drivers-only build (`--drivers-only`, what `serbench demo`
needs: the executables the harness runs, without GoogleTest installed or any test compiled).
Both use the same build directories, so a full build after a drivers-only one compiles only
the tests.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..models import user_models_dir
from ..paths import REPO


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
    # the commands that build only the driver executables (no test code); None: `commands`
    driver_commands: tuple[tuple[str, ...], ...] | None = None

    def commands_for(self, drivers_only: bool) -> tuple[tuple[str, ...], ...]:
        if drivers_only and self.driver_commands is not None:
            return self.driver_commands
        return self.commands


CPP_SOURCE = DRIVERS / "cpp"
CPP_BUILD = CPP_SOURCE / "build"
JAVA_POM = DRIVERS / "java" / "pom.xml"


def _cmake(tests: bool) -> tuple[tuple[str, ...], ...]:
    """Configure and build drivers/cpp/build. SERBENCH_TESTS is always given, since CMake keeps
    an option in its cache: a full build after a drivers-only one turns the tests back on, and
    only the test binary is then compiled (the driver's flags do not depend on the option)."""
    configure = ("cmake", "-S", str(CPP_SOURCE), "-B", str(CPP_BUILD),
                 "-DCMAKE_BUILD_TYPE=Release", f"-DSERBENCH_TESTS={'ON' if tests else 'OFF'}")
    build = ("cmake", "--build", str(CPP_BUILD), "--parallel", str(os.cpu_count() or 1))
    return (configure, build if tests else build + ("--target", "serbench-cpp"))


RECIPES = {
    "rust": Recipe(
        # the workspace's binaries are the driver and the harness's datagen; cargo test
        # builds the tests itself
        DRIVERS / "rust" / "Cargo.toml", ("cargo",), "install Rust with rustup",
        (("cargo", "build", "--release", "--locked", "--manifest-path",
          str(DRIVERS / "rust" / "Cargo.toml")),)),
    "cpp": Recipe(
        DRIVERS / "cpp" / "CMakeLists.txt", ("cmake", "g++"),
        "install cmake and g++ (scripts/setup installs them with the C++ libraries)",
        _cmake(tests=True), driver_commands=_cmake(tests=False)),
    "java": Recipe(
        JAVA_POM, ("mvn", "java"), "install a JDK (17+) and Maven",
        # -DskipTests compiles the tests without running them; maven.test.skip compiles none
        (("mvn", "-q", "-f", str(JAVA_POM), "-DskipTests", "package"),),
        offline_flag="-o",
        driver_commands=(("mvn", "-q", "-f", str(JAVA_POM), "-Dmaven.test.skip=true",
                          "package"),)),
}


def build(languages: tuple[str, ...] = tuple(RECIPES),
          say: Callable[[str], None] = print, drivers_only: bool = False) -> list[str]:
    """Build each language whose project exists; returns the languages built. drivers_only:
    the driver executables alone, no test code (what a benchmark run needs).

    The languages build at the same time, each tool's output lines prefixed with its language:
    a Rust release build spends most of its time in one compiler thread (the driver crate,
    fat LTO), which leaves the other cores idle for C++ and Maven (on two cores the drivers'
    first build took 30 minutes one after another)."""
    present = [language for language in languages if _ready(language, say)]
    # a build watches the models folder for a user's models (Cargo reruns its generators when
    # the folder changes), which it can only do once the folder exists
    user_models_dir().mkdir(parents=True, exist_ok=True)
    for language in present:
        say(f"{language}: building" + (" (driver only)" if drivers_only else ""))
    output = _PrefixedOutput()
    with ThreadPoolExecutor(max_workers=max(1, len(present))) as pool:
        outcomes = {language: pool.submit(_build_one, language, drivers_only, output)
                    for language in present}
    failed = [str(outcome.exception()) for outcome in outcomes.values() if outcome.exception()]
    if failed:
        raise BuildError("; ".join(failed))
    return present


def _ready(language: str, say: Callable[[str], None]) -> bool:
    """The language's project is in the checkout (False: skipped, said) and its tools are
    installed (BuildError before anything starts)."""
    recipe = RECIPES[language]
    if not recipe.project.exists():
        say(f"{language}: skipped, no {recipe.project.relative_to(REPO)} in this checkout")
        return False
    missing = [tool for tool in recipe.tools if shutil.which(tool) is None]
    if missing:
        raise BuildError(f"{language}: {', '.join(missing)} not found; {recipe.install_hint}")
    return True


def _build_one(language: str, drivers_only: bool, output: "_PrefixedOutput") -> None:
    recipe = RECIPES[language]
    for command in recipe.commands_for(drivers_only):
        if recipe.offline_flag and _offline_ok(command, recipe.offline_flag):
            continue
        returncode = output.run(language, command)
        if returncode != 0:
            raise BuildError(f"{language}: `{' '.join(command)}` failed "
                             f"(exit {returncode}); its output is above, lines '{language} |'")
    _mark_current(language)


def compiler_cache_env(environ: dict[str, str], which=shutil.which) -> dict[str, str]:
    """The build tools' environment: cargo wrapped in sccache where it is installed and the
    user set no wrapper (C++'s CMakeLists finds ccache or sccache itself). Never required:
    without one the environment is unchanged."""
    wrapper = None if "RUSTC_WRAPPER" in environ else which("sccache")
    return {**environ, "RUSTC_WRAPPER": wrapper} if wrapper else dict(environ)


class _PrefixedOutput:
    """The build tools' output, line by line on stderr (where the user watches progress), each
    line prefixed with its language so concurrent builds stay readable."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._width = max(map(len, RECIPES), default=0)

    def run(self, language: str, command: tuple[str, ...]) -> int:
        proc = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=compiler_cache_env(os.environ))
        prefix = f"{language:<{self._width}} | ".encode()
        for line in proc.stdout:
            with self._lock:
                sys.stderr.buffer.write(prefix + line)
                sys.stderr.flush()
        return proc.wait()


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


# What each build produces, and the sources it is made from.
ARTIFACTS = {
    "rust": DRIVERS / "rust" / "target" / "release" / "serbench-rust",
    "cpp": DRIVERS / "cpp" / "build" / "serbench-cpp",
    "java": DRIVERS / "java" / "target" / "serbench-java.jar",
}
BUILD_OUTPUTS = ("target", "build", "fuzz")
# what outside a driver's folder its build generates code from (drivers/java/pom.xml, codegen):
# the model definitions and the code that reads them
MODEL_SOURCES = tuple(f"harness/serbench/models/{name}" for name in
                      ("definitions", "definition.py", "__init__.py", "naming.py", "schemas.py"))
GENERATED_FROM = {language: MODEL_SOURCES for language in ("rust", "cpp", "java")}
# the drivers whose builds generate a user's models too (the others, the built-in ones only)
WITH_USER_MODELS = ("rust", "cpp", "java")


def stale_source(language: str) -> Path | None:
    """A source of the driver changed after its last build (the results would belong to older
    code), or None. Build outputs and the fuzz crates do not count."""
    artifact = ARTIFACTS[language]
    if not artifact.exists():
        return None
    built = artifact.stat().st_mtime
    roots = [DRIVERS / language]
    for root in roots:
        for path in _sources(root):
            if path.stat().st_mtime > built:
                return path
    sources = [REPO / name for name in GENERATED_FROM.get(language, ())]
    if language in WITH_USER_MODELS:
        sources.append(user_models_dir())
    for source in sources:
        for path in _sources(source) if source.is_dir() else [source]:
            if path.is_file() and path.stat().st_mtime > built:
                return path
    return None


def needs_build(language: str) -> bool:
    """The driver's executable is missing, or older than one of its sources."""
    return not ARTIFACTS[language].exists() or stale_source(language) is not None


def _sources(root: Path):
    for entry in os.scandir(root):
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in BUILD_OUTPUTS and not entry.name.startswith("."):
                yield from _sources(Path(entry.path))
        elif entry.is_file(follow_symlinks=False):
            yield Path(entry.path)
