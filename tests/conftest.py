"""What the test modules share: the one skip policy (README, Testing) and the real drivers it
guards. A missing prerequisite is a skip with its reason on a developer's machine and a
failure under CI=true, where `make test` has set everything up and a skip would hide a break."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

# the harness reads a user's models when it is imported: the tests see the built-in ones only
# (a test that needs a user's model runs serbench in a process of its own, pointed at them)
os.environ["SERBENCH_MODELS"] = str(Path(__file__).parent / "no-user-models")

from serbench.drivers.process import BUILD_PATHS, LANGUAGES  # noqa: E402


def require(condition: bool, reason: str) -> None:
    """Skips the test saying `reason` when `condition` is false; fails it under CI=true."""
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"missing prerequisite under CI=true: {reason}")
    pytest.skip(reason)


def built_driver(language: str) -> Path:
    """The language's release driver, required built (Java: its launcher and its jar)."""
    path = BUILD_PATHS[language]
    needs = [path, path.parent / "target" / "serbench-java.jar"] if language == "java" else [path]
    require(all(p.is_file() for p in needs) and os.access(path, os.X_OK),
            f"{path} is not built; run `serbench build`")
    return path


def built_drivers() -> dict[str, Path]:
    """Every language's release driver, each required built."""
    return {language: built_driver(language) for language in LANGUAGES}
