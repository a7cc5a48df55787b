"""What the floors share (the `raw` cells beside reads, writes and sorts): the checksum of a
whole file's bytes, and a task timed beside its floor.

`floor_rounds`: each round of a read or a write (rounds.py) is followed in the same process by
as many repetitions of the `raw` floor of the same file, and every measured sample carries the
floor's sample at its place in the round as `floor_ns`. On a VM whose speed moves by tens of
percent over seconds, a task and a floor timed minutes apart are not comparable; these are."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..cell import RAW
from ..drivers.paged import extents
from ..results import CellResult


# A round's request params -> the floor's params and expected checksum for that round (a
# write's floor copies the file the round just wrote, so it is asked after the round).
FloorOf = Callable[[dict], tuple[dict, dict]]


def with_floor(runner, driver, cell, params: dict, expected: dict,
               floor_of: FloorOf) -> CellResult:
    """One round of the cell, then as many repetitions of its floor, paired sample by sample."""
    timed = runner.timed(driver, cell, params, expected)
    if timed.status != "ok":
        return timed
    floor = replace(cell, method=RAW, depth="", variant=cell.method, floor_rounds=0)
    floor_params, floor_expected = floor_of(params)
    raw = runner.timed(driver, floor, floor_params, floor_expected)
    if raw.status != "ok":
        return replace(raw, message="the raw floor of the same file: " + (raw.message or ""),
                       samples=[], params=params)
    return replace(timed, samples=paired(timed.samples, raw.samples),
                   params={**params, "floor_rounds": cell.floor_rounds})


def paired(timed: list[dict], floors: list[dict]) -> list[dict]:
    """A round's samples, each measured one carrying the total of the floor's measured
    sample at the same place in the round as `floor_ns`."""
    floor_ns = iter([s["total_ns"] for s in floors if not s["warmup"]])
    return [s if s["warmup"] else {**s, "floor_ns": next(floor_ns)} for s in timed]


def every_object(runner, base: Path) -> dict:
    """The floor's checksum of every object of a file: each one's bytes, as the raw read
    folds them (cached per file state by the runner)."""
    return runner.floor_checksum(base, all_positions(base))


def all_positions(base: Path) -> range:
    """Every object of the paged file `base`, in write order."""
    return range(len(extents(Path(f"{base}.index"))[1]))
