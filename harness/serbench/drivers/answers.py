"""A driver's answer, checked before it counts (PROTOCOL.md 5): its checksum, samples, counters
and labels well formed, or the cell is failed as a driver defect; errors and unsupported
answers turned into outcomes. Shared by the run loop and the tasks."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..cell import Cell
from ..drivers.process import DriverFailure
from ..results import CellResult


if TYPE_CHECKING:
    from ..tasks.spec import TaskSpec

HEX_SUM = re.compile(r"[0-9a-f]{16}")  # u64 sums travel as 16 lowercase hex digits

class BadAnswer(Exception):
    """A well-formed response whose result breaks the protocol (a driver defect)."""


def checksum_of(result: dict) -> dict:
    checksum = result.get("checksum")
    if not (isinstance(checksum, dict) and type(checksum.get("count")) is int
            and isinstance(checksum.get("sum"), str) and HEX_SUM.fullmatch(checksum["sum"])):
        raise BadAnswer(f"result has no valid checksum {{count, sum: 16 lowercase hex}}: "
                        f"{checksum!r}")
    return {"count": checksum["count"], "sum": checksum["sum"]}


def checked_samples(result: dict, warmups: int, repetitions: int,
                    open_ended: bool = False) -> list[dict]:
    """The samples, `warmups` warm-ups (or more when they are `open_ended`: they go on for
    warmup_ms, or while a JIT compiles up to warmup_max_ms) and `repetitions` measured ones."""
    samples = result.get("samples")
    if not isinstance(samples, list):
        raise BadAnswer("result has no samples list")
    for s in samples:
        if not (isinstance(s, dict) and type(s.get("rep")) is int
                and isinstance(s.get("warmup"), bool)
                and all(type(s.get(k)) is int and s[k] >= 0
                        for k in ("total_ns", "cpu_ns", "io_ns"))):
            raise BadAnswer(f"malformed sample {s!r}")
    got = (sum(s["warmup"] for s in samples), sum(not s["warmup"] for s in samples))
    enough = got[0] >= warmups if open_ended else got[0] == warmups
    if not (enough and got[1] == repetitions):
        at_least = "at least " if open_ended else ""
        raise BadAnswer(f"{got[0]} warm-ups and {got[1]} repetitions returned, "
                        f"{at_least}{warmups} and {repetitions} asked")
    return samples


def cached_after_eviction(samples: list[dict]) -> float | None:
    """The largest share of a cold cell's files still in the page cache right after a
    measured repetition's eviction (PROTOCOL.md 5: `cached_fraction`), None if no sample has
    it. An eviction can succeed and drop nothing (tmpfs, mapped or dirty pages): this is what
    shows whether a cold read was cold."""
    figures = [s["cached_fraction"] for s in samples
               if not s["warmup"] and "cached_fraction" in s]
    for figure in figures:
        if not (type(figure) in (int, float) and 0 <= figure <= 1):
            raise BadAnswer(f"malformed cached_fraction {figure!r}: a share from 0 to 1")
    return max(figures, default=None)


def checked_jit_warmup(summary) -> dict:
    """The summed JIT-only warm-ups of a JIT driver (PROTOCOL.md section 5)."""
    keys = ("repetitions", "total_ns", "jit_ms")
    if not (isinstance(summary, dict) and set(summary) == set(keys)
            and all(type(summary[k]) is int and summary[k] >= 0 for k in keys)):
        raise BadAnswer(f"malformed jit_warmup {summary!r}: {', '.join(keys)} as integers >= 0")
    return summary


# what each task's result must carry beyond samples and checksum (PROTOCOL.md section 5)
def checked_task_fields(spec: "TaskSpec", cell: Cell, counters: dict, samples: list[dict]) -> None:
    """The task's own counters and sample times are there and are numbers."""
    for key in spec.counters:
        value = counters.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise BadAnswer(f"{cell.task}: counters.{key} is {value!r}, not a number >= 0")
    for s in samples:
        for key in spec.sample_keys:
            if type(s.get(key)) is not int or s[key] < 0:
                raise BadAnswer(f"{cell.task}: sample {s.get('rep')} has no {key} (ns)")
        problem = spec.check_sample(s, cell) if spec.check_sample else None
        if problem:
            raise BadAnswer(f"{cell.task}: sample {s.get('rep')} {problem}")


def warm_up(cell: Cell) -> dict:
    """A request's warm-up parameters; warmup_max_ms only when set (a driver without a JIT
    ignores it, and requests stay as they were without it)."""
    warm = {"warmups": cell.warmups, "warmup_ms": cell.warmup_ms}
    return {**warm, "warmup_max_ms": cell.warmup_max_ms} if cell.warmup_max_ms else warm


def failed(exc: DriverFailure, what: str = "") -> CellResult:
    return CellResult("failed", exc.kind, f"{what}{exc.message}", exc.stderr_tail or None)


def from_response(response: dict, what: str = "") -> CellResult | None:
    """The outcome of an unsupported or error answer; None for ok."""
    if response["status"] == "unsupported":
        return CellResult("unsupported", message=response.get("message") or "unsupported")
    if response["status"] == "error":
        error = response["error"]
        kind = str(error.get("kind", "internal"))
        status = "invalid" if kind == "checksum_mismatch" else "failed"
        return CellResult(status, kind, f"{what}{error.get('message', '')}")
    return None
