"""A cell: one measured unit (task x model x method x language x depth at one n and setting),
and the ids every layer shares. The bottom of the harness: plans make cells, tasks measure
them, results store them; this module imports none of those.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from pathlib import Path

from .params import DEFAULTS


LANGUAGES = ("rust", "cpp", "java")
DEPTHS = ("materialize", "access", "key")
RAW = "raw"  # the method-independent floor: the bytes of another method's file, not decoded
# what tells a cell apart (Cell.identity, in this order): what compare matches across runs and
# every export repeats
IDENTITY = ("language", "task", "model", "method", "depth", "variant", "setting", "dataset", "n",
            "threads", "page_size", "cold")


@dataclass(frozen=True, kw_only=True)
class Cell:
    """One measured unit; `identity` is what compare matches across runs."""

    language: str
    task: str
    model: str
    method: str
    depth: str  # "" for write and raw, which decode nothing
    variant: str  # for raw: the method whose file is read
    setting: str  # the task's own setting (read_par mode, budget, micro buffer and k), or ""
    dataset: str  # label: the directory name
    dataset_dir: Path
    n: int
    threads: int = 1
    page_size: int
    cold: bool
    warmups: int
    repetitions: int
    seed: int
    timeout_s: float
    pin_cpus: str = ""
    unsupported: str | None = None  # why the capability matrix excludes it
    iterations: int = 1  # micro: passes per repetition
    forks: int = 0  # fresh processes of its own the cell runs in (0: the group's)
    # the plan's parameters a cell carries, their defaults the plan's (params.py)
    warmup_ms: int = DEFAULTS["warmup_ms"]
    floor_rounds: int = 0  # reads, writes: each round followed by the floor of the same file
    warmup_max_ms: int = DEFAULTS["warmup_max_ms"]
    prewarm_max_ms: int = DEFAULTS["prewarm_max_ms"]  # its process's warm-up (run/prewarm.py)
    net_page_bytes: int = 0  # network tasks: the network page
    # network tasks: the largest frame between data nodes (no part of the identity: a memory
    # guard, it changes no measured work)
    net_frame_bytes: int = DEFAULTS["net_frame_bytes"]
    network: str = ""  # network tasks: the nodes' links
    # rounds (rounds.py): how many, and when a cell has been measured enough
    rounds_min: int = DEFAULTS["rounds_min"]
    rounds_max: int = DEFAULTS["rounds_max"]
    ci_target: float = DEFAULTS["ci_target"]
    time_cap_s: float = DEFAULTS["time_cap_s"]
    min_sample_ms: float = DEFAULTS["min_sample_ms"]
    cell_id: int = 0

    @property
    def identity(self) -> tuple:
        return tuple(getattr(self, name) for name in IDENTITY)

    @property
    def settings(self) -> dict:
        return setting_values(self.setting)

    @property
    def roles(self) -> dict[str, tuple[str, ...]]:
        """The network roles whose nodes run another language than the cell's, each with the
        languages its nodes take in turn."""
        return parse_roles(self.settings.get("roles", ""))

    @property
    def group_key(self) -> tuple:
        """Cells sharing one fresh driver process."""
        return (self.dataset_dir, self.model, self.page_size, self.language, self.method)

    def plan_params(self) -> dict:
        params = {"warmups": self.warmups, "warmup_ms": self.warmup_ms,
                  "warmup_max_ms": self.warmup_max_ms, "prewarm_max_ms": self.prewarm_max_ms,
                  "repetitions": self.repetitions, "floor_rounds": self.floor_rounds,
                  "rounds_min": self.rounds_min, "rounds_max": self.rounds_max,
                  "ci_target": self.ci_target, "time_cap_s": self.time_cap_s,
                  "min_sample_ms": self.min_sample_ms,
                  "seed": self.seed,
                  "timeout_s": self.timeout_s, "pin_cpus": self.pin_cpus}
        if self.network:
            params.update(net_page_bytes=self.net_page_bytes,
                          net_frame_bytes=self.net_frame_bytes, network=self.network)
        return params


def describe(cell: Cell) -> str:
    """`rust/bincode/part/read_seq/materialize n=200`, with the setting and threads above 1."""
    parts = [cell.language, cell.method + (f"[{cell.variant}]" if cell.variant else ""),
             cell.model, cell.task]
    if cell.depth:
        parts.append(cell.depth)
    extra = f" {cell.setting}" if cell.setting else ""
    extra += f" threads={cell.threads}" if cell.threads > 1 else ""
    return "/".join(parts) + f" n={cell.n:,}{extra}"


def setting_values(setting: str) -> dict:
    """`"buffer=fresh k=100"` as `{"buffer": "fresh", "k": 100}` (numbers as int)."""
    values = {}
    for item in setting.split():
        key, value = item.split("=", 1)
        values[key] = int(value) if value.isdigit() else value
    return values


def format_roles(roles: dict[str, tuple[str, ...]]) -> str:
    """`{"server": ("java", "cpp"), "client": ("rust",)}` as a setting's value,
    `server:java+cpp,client:rust`: roles comma-separated, a role's languages in the order its
    nodes take them, joined by `+`."""
    return ",".join(f"{role}:{'+'.join(languages)}" for role, languages in roles.items())


def parse_roles(value: str) -> dict[str, tuple[str, ...]]:
    return {role: tuple(languages.split("+")) for role, languages in
            (item.split(":", 1) for item in value.split(","))} if value else {}


def batches(cells: list[Cell]) -> list[list[Cell]]:
    """The runner's batches: runs of consecutive cells of one dataset × model × page size."""
    return [list(batch) for _, batch in groupby(cells, key=lambda c: c.group_key[:3])]


def tree_size(depth: int) -> int:
    """The nodes of a full binary tree of `depth` levels (the network trees)."""
    return 2 ** depth - 1
