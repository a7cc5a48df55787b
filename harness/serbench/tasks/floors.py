"""What the floors share (the `raw` cells beside reads, writes and sorts): the checksum of a
whole file's bytes, and a task timed in rounds with its floor.

`floor_rounds`: each round of the method's
repetitions is followed in the same process by as many repetitions of the `raw` floor of the
same file, and every measured sample carries the floor's sample at its place in the round as
`floor_ns`. On a VM whose speed moves by tens of percent over seconds, a task and a floor
timed minutes apart are not comparable; these are."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..paged import extents
from ..plan import RAW
from ..results import CellResult

# A round's request params -> the floor's params and expected checksum for that round (a
# write's floor copies the file the round just wrote, so it is asked after each round).
FloorOf = Callable[[dict], tuple[dict, dict]]


def in_rounds(runner, driver, cell, params: dict, expected: dict,
              floor_of: FloorOf) -> CellResult:
    """The cell's repetitions in `floor_rounds` rounds, each followed by its floor. Later
    rounds warm up once (a driver's buffers are per request)."""
    from ..runner import numbered_on, paired, rounds, warm_up
    floor = replace(cell, method=RAW, depth="", variant=cell.method, floor_rounds=0)
    recorded = {**params, "floor_rounds": cell.floor_rounds}
    samples, first = [], None
    asked = {k: v for k, v in params.items() if k != "warmup_max_ms"}
    for number, repetitions in enumerate(rounds(cell.repetitions, cell.floor_rounds)):
        warm = ({} if number == 0 else {"warmups": 1, "warmup_ms": 0, "warmup_max_ms": 0})
        round_cell = replace(cell, repetitions=repetitions, **warm)
        round_params = {**asked, **warm_up(round_cell), "repetitions": repetitions}
        timed = runner.timed(driver, round_cell, round_params, expected)
        if timed.status != "ok":
            return replace(timed, params=recorded)
        floor_params, floor_expected = floor_of(round_params)
        raw = runner.timed(driver, replace(floor, repetitions=repetitions,
                                           warmups=round_cell.warmups,
                                           warmup_ms=round_cell.warmup_ms,
                                           warmup_max_ms=round_cell.warmup_max_ms),
                           floor_params, floor_expected)
        if raw.status != "ok":
            what = f"the raw floor of the same file, round {number + 1}: "
            return replace(raw, message=what + (raw.message or ""), samples=[],
                           params=recorded)
        first = first or timed
        samples += numbered_on(paired(timed.samples, raw.samples), samples)
    return replace(first, samples=samples, params=recorded)


def every_object(runner, base: Path) -> dict:
    """The floor's checksum of every object of a file: each one's bytes, as the raw read
    folds them (cached per file state by the runner)."""
    return runner.floor_checksum(base, all_positions(base))


def all_positions(base: Path) -> range:
    """Every object of the paged file `base`, in write order."""
    return range(len(extents(Path(f"{base}.index"))[1]))
