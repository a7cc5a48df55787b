"""How far a cell's figure moves from one run (and its processes) to the next on a machine:
the noise a ranking must clear before it calls two cells apart (stats.difference).

Rounds average a cell's own noise away within its process; what they cannot average away is
what differs between processes and runs: where the heap and the pages landed, what the JIT
chose, which neighbour shared the host. It is measured by running a plan twice
(`serbench selfcheck`): per task, the spread of the cells' log ratios between the two runs
after the run-wide shift, less what the cells' own rounds explain, over sqrt(2) (each run
contributes one process's luck). A run records the profile of its host when one was measured
there (`params.noise`), else DEFAULT, and the report ranks with what the run recorded.
"""
from __future__ import annotations

import json
import math
import socket
from dataclasses import dataclass, field
from pathlib import Path

from .. import stats
from ..tasks import TASKS
from ..paths import home
from ..stats import between_run_sigma


# Where a host has measured no noise of its own: each task's declared figures (TaskSpec.noise,
# measured on the 2-core development VM), per task and per `task/language`, log scale.
DEFAULT_SIGMA: dict[str, float] = {
    f"{spec.id}/{language}" if language else spec.id: sigma
    for spec in TASKS.values() for language, sigma in spec.noise}
DEFAULT_SOURCE = "the development VM's, not this host's (run `serbench selfcheck`)"
# A task without its own figure: the largest of the others (the cautious side).
FALLBACK_SIGMA = 0.05
# The least noise a profile may claim: 0.5 %, under the smallest task figure measured on the
# development VM (micro, 0.6 %). An estimate below it (0 where the cells' own rounds explain
# all of two runs' spread) says that two runs could not see the noise, not that there is
# none; ranking with it would call apart cells that the next run may reverse.
MIN_SIGMA = 0.005


@dataclass(frozen=True)
class Profile:
    """Per task (and `task/language`), one run's noise on a log scale: each figure at least
    MIN_SIGMA (raised to it when made), so that no profile, measured, stored or imported
    with a run, ever claims a zero."""

    sigma: dict[str, float]
    source: str  # who measured it, where and when, in a phrase the report can show
    detail: dict = field(default_factory=dict)  # the self-check's figures, kept as measured

    def __post_init__(self):
        object.__setattr__(self, "sigma", floored(self.sigma))

    def of(self, task: str, language: str | None = None) -> float:
        """A cell's noise: its task's in its language when measured (`task/language`), else
        its task's, else the largest measured."""
        for key in (f"{task}/{language}", task):
            if key in self.sigma:
                return self.sigma[key]
        return max(self.sigma.values(), default=FALLBACK_SIGMA)

    def as_json(self) -> dict:
        return {"sigma": self.sigma, "source": self.source, "detail": self.detail}

    def describe(self) -> str:
        """One short line for a report's summary: the range over tasks and where it comes
        from (each task's own figure is in its rankings' caption)."""
        if not self.sigma:
            return (f"not measured on this host (run `serbench selfcheck`); ranks use "
                    f"{FALLBACK_SIGMA:.0%} for every task")
        tasks = {task: sigma for task, sigma in self.sigma.items() if "/" not in task}
        low, high = min(tasks, key=tasks.get), max(tasks, key=tasks.get)
        if tasks[low] == tasks[high]:
            return f"{tasks[low]:.1%} for every task ({self.source})"
        return (f"{tasks[low]:.1%} ({low}) to {tasks[high]:.1%} ({high}), by task "
                f"({self.source})")


def floored(sigma: dict) -> dict[str, float]:
    """The figures that are finite numbers, each at least MIN_SIGMA (a stored profile is a
    file from anywhere: anything else is left out, and its task falls back)."""
    return {str(key): max(float(value), MIN_SIGMA) for key, value in sigma.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value >= 0}


def pair_problem(run_a: dict, run_b: dict, shared_cells: int) -> str | None:
    """Why two runs (rows of the runs table) cannot measure this machine's run-to-run noise,
    or None: their differences must be the machine's alone (one plan, one build, one host)
    and over enough cells that are ok in both."""
    if run_a["run_id"] == run_b["run_id"]:
        return (f"run {run_a['run_id']} twice: a run compared with itself shows no noise; give "
                "two runs of one plan (`serbench runs` lists them)")
    if run_a["plan_toml"] != run_b["plan_toml"]:
        return (f"runs of different plans ({run_a['plan_name']} and {run_b['plan_name']}, or "
                "the same name with other settings): their differences are the plans'; give "
                "two runs of one plan")
    if (run_a["git_commit"], run_a["drivers"]) != (run_b["git_commit"], run_b["drivers"]):
        return ("runs of different builds (another commit or other drivers): their "
                "differences are the code's; give two runs of one build")
    if run_a["host"] != run_b["host"]:
        return ("runs on different hosts: their differences are the machines'; give two runs "
                "made on this one")
    if shared_cells < stats.MIN_TASK_CELLS:
        return (f"{shared_cells} cells are ok in both runs; noise needs at least "
                f"{stats.MIN_TASK_CELLS}: give runs of a larger plan")
    return None


DEFAULT = Profile(DEFAULT_SIGMA, DEFAULT_SOURCE)


def from_json(value: dict | None) -> Profile:
    """A run's recorded profile; DEFAULT for a run that recorded none."""
    if not isinstance(value, dict) or not isinstance(value.get("sigma"), dict):
        return DEFAULT
    profile = Profile(value["sigma"], str(value.get("source")), value.get("detail") or {})
    return profile if profile.sigma else DEFAULT


def profile_path() -> Path:
    return home() / "noise.json"


def measured_here() -> Profile:
    """This host's profile from its last self-check, else DEFAULT."""
    try:
        profiles = json.loads(profile_path().read_text())
    except (OSError, ValueError):
        return DEFAULT
    return from_json(profiles.get(socket.gethostname())) if isinstance(profiles, dict) \
        else DEFAULT


def save(profile: Profile) -> Path:
    """Keep `profile` as this host's (other hosts' profiles are kept too)."""
    path = profile_path()
    try:
        profiles = json.loads(path.read_text())
    except (OSError, ValueError):
        profiles = {}
    if not isinstance(profiles, dict):
        profiles = {}
    profiles[socket.gethostname()] = profile.as_json()
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_suffix(".tmp")
    staging.write_text(json.dumps(profiles, indent=2, sort_keys=True))
    staging.replace(path)
    return path


def sigma_from_residuals(residuals: list[float], within_var: list[float]) -> float:
    """One run's process-and-run noise from two runs' shift-corrected log ratios: their
    spread beyond the cells' own rounds, shared out over the two runs."""
    return between_run_sigma(residuals, within_var) / math.sqrt(2)
