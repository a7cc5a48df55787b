"""The reads (`read_seq`, `read_rand`, `read_par`) and `memory`: objects of the method's file
selected by the seeded start or the shared random id list, their set checksum computed from
the dataset. The `raw` floor reads the same file; its checksum (bytes, not values) is computed
by the harness from the file itself (paged.raw_checksum), an oracle apart from every driver.
With `floor_rounds` a read alternates in rounds with the raw read of its own file."""
from __future__ import annotations

from dataclasses import replace

from ..datasets.manifest import load_manifest
from ..paged import PagedError
from ..plan import RAW
from ..results import CellResult


def run(runner, driver, cell) -> CellResult:
    source = runner.file_for(driver, cell)
    if source.problem is not None:
        return source.problem
    params, chosen = read_params(runner, cell, source.base)
    try:
        expected = expected_checksum(runner, cell, source.base, chosen)
        floor = (runner.floor_checksum(source.base, chosen) if cell.floor_rounds else None)
    except PagedError as exc:
        return unreadable(runner, driver, cell, params, exc)
    if cell.floor_rounds:
        return timed_with_floor(runner, driver, cell, params, expected, floor)
    return runner.timed(driver, cell, params, expected)


def unreadable(runner, driver, cell, params: dict, problem: PagedError) -> CellResult:
    """The harness cannot compute the floor's checksum of a damaged file: the driver's own
    error names the damage; a driver that reads it anyway is not believed."""
    result = runner.timed(driver, cell, params, {"count": cell.n, "sum": "unknown"})
    if result.status == "failed":
        return result
    return CellResult("failed", "corrupt_input", f"the harness cannot read the file for the "
                                                 f"raw floor's checksum ({problem}), yet the "
                                                 f"driver's read answered {result.status}")


def read_params(runner, cell, base) -> tuple[dict, range | list]:
    """Request params of a read cell (read_seq, read_rand, read_par over either selection,
    memory over the first n objects) and the positions it selects."""
    from ..runner import ids_file, read_ids, read_seq_start
    manifest = load_manifest(cell.dataset_dir, cell.model)
    params = {"input": str(base), "n": cell.n, **runner.common_params(cell)}
    mode = cell.settings.get("mode")
    if cell.task == "read_par":
        params.update(threads=cell.threads, mode=mode)
    if cell.task == "memory":
        return params, range(cell.n)
    if cell.task == "read_seq" or mode == "seq":
        start = read_seq_start(cell.seed, cell.model, manifest.count, cell.n)
        params["start"] = start
        return params, range(start, start + cell.n)
    path = ids_file(cell.model, manifest.count, cell.n, cell.seed)
    params["ids"] = str(path)
    return params, read_ids(path)


def expected_checksum(runner, cell, base, chosen) -> dict:
    """The logical set checksum of the selection from the dataset; for `raw`, the checksum of
    the selected objects' bytes in the file."""
    from ..runner import set_checksum_of
    if cell.method == RAW:
        return runner.floor_checksum(base, chosen)
    hashes = runner.dataset_hashes(cell)
    return set_checksum_of(hashes[i] for i in chosen)


def timed_with_floor(runner, driver, cell, params: dict, expected: dict,
                     floor_expected: dict) -> CellResult:
    """The read's repetitions in `floor_rounds` rounds, each followed in the same process
    by as many raw reads of the same file; every measured sample carries the raw sample
    of its place in the round as `floor_ns`. On a VM whose speed moves by tens of percent
    over seconds, a read and a floor timed minutes apart are not comparable; these are.
    Later rounds warm up once (the driver's page buffer is per request)."""
    from ..runner import numbered_on, paired, rounds, warm_up
    floor = replace(cell, method=RAW, depth="", variant=cell.method, floor_rounds=0)
    recorded = {**params, "floor_rounds": cell.floor_rounds}
    samples, first = [], None
    asked = {k: v for k, v in params.items() if k != "warmup_max_ms"}
    for number, repetitions in enumerate(rounds(cell.repetitions, cell.floor_rounds)):
        warm = ({} if number == 0 else {"warmups": 1, "warmup_ms": 0, "warmup_max_ms": 0})
        round_cell = replace(cell, repetitions=repetitions, **warm)
        round_params = {**asked, **warm_up(round_cell), "repetitions": repetitions}
        read = runner.timed(driver, round_cell, round_params, expected)
        if read.status != "ok":
            return replace(read, params=recorded)
        raw = runner.timed(driver, replace(floor, repetitions=repetitions,
                                           warmups=round_cell.warmups,
                                           warmup_ms=round_cell.warmup_ms,
                                           warmup_max_ms=round_cell.warmup_max_ms),
                           round_params, floor_expected)
        if raw.status != "ok":
            what = f"the raw floor of the same file, round {number + 1}: "
            return replace(raw, message=what + (raw.message or ""), samples=[],
                           params=recorded)
        first = first or read
        samples += numbered_on(paired(read.samples, raw.samples), samples)
    return replace(first, samples=samples, params=recorded)


TASKS = {task: run for task in ("read_seq", "read_rand", "read_par", "memory")}
