"""The reads (`read_seq`, `read_rand`, `read_par`) and `memory`: objects of the method's file
selected by the seeded start or the shared random id list, their set checksum computed from
the dataset. The `raw` floor reads the same file; its checksum (bytes, not values) is computed
by the harness from the file itself (paged.raw_checksum), an oracle apart from every driver.
With `floor_rounds` each round of a read is followed by the raw read of its own file."""
from __future__ import annotations

from ..datasets.manifest import load_manifest
from ..paged import PagedError
from ..plan import RAW
from ..results import CellResult
from .floors import with_floor


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
        return with_floor(runner, driver, cell, params, expected, lambda p: (p, floor))
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


TASKS = {task: run for task in ("read_seq", "read_rand", "read_par", "memory")}
