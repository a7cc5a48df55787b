"""The reads (`read_seq`, `read_rand`, `read_par`; `memory` reads as they do): objects of the
method's file selected by the seeded start or the shared random id list, their set checksum computed from
the dataset. The `raw` floor reads the same file; its checksum (bytes, not values) is computed
by the harness from the file itself (paged.raw_checksum), an oracle apart from every driver.
With `floor_rounds` each round of a read is followed by the raw read of its own file."""
from __future__ import annotations

from ..cell import RAW
from ..datasets.expectations import ids_file, read_ids, read_seq_start, set_checksum_of
from ..datasets.manifest import load_manifest
from ..drivers.paged import PagedError
from ..results import CellResult
from .floors import with_floor
from .spec import BESIDE, TaskSpec


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
    manifest = load_manifest(cell.dataset_dir, cell.model)
    params = {"input": str(base), "n": cell.n, **runner.common_params(cell)}
    mode = cell.settings.get("mode")
    if cell.threads > 1 or mode:  # read_par
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
    if cell.method == RAW:
        return runner.floor_checksum(base, chosen)
    hashes = runner.dataset_hashes(cell)
    return set_checksum_of(hashes[i] for i in chosen)


def par_points(params, model: str, ns: tuple[int, ...], count: int) -> list:
    """Per n, each mode (over a range or over the random id list) at each thread count."""
    return [(n, f"mode={mode}", t) for n in ns for mode in params.modes for t in params.threads]


def thread_times(sample: dict, cell) -> str | None:
    times = sample.get("thread_ns")
    if isinstance(times, list) and len(times) == cell.threads \
            and all(type(t) is int and t >= 0 for t in times):
        return None
    return f"thread_ns is {times!r}, not {cell.threads} times in ns"


def random_work(cell, object_bytes: float, dataset_bytes: float) -> tuple[float, float]:
    """Cold, a page read per object, at most the whole file."""
    disk = min(cell.n * cell.page_size, dataset_bytes) if cell.cold else 0.0
    return cell.n * object_bytes, disk


READ = dict(run=run, floor=BESIDE, pairs_floor=True, forks_param="read_forks", evicts=True,
            family="reads")
SPECS = (
    TaskSpec("read_seq", title="Sequential read", what="n consecutive objects from a seeded "
             "start: load the index, read each page once, decode, visit every field.",
             noise=(("", 0.0182), ("cpp", 0.0126), ("java", 0.0), ("rust", 0.0305)), starred=True,
             **READ),
    TaskSpec("read_rand", title="Random read", what="n objects from one seeded random list "
             "shared by every method and language: look up, read the page unless it is the "
             "current one, decode, visit every field.", work=random_work,
             noise=(("", 0.0239), ("cpp", 0.0132), ("java", 0.0308), ("rust", 0.0108)), starred=True,
             **READ),
    TaskSpec("read_par", title="Parallel read", what="T threads, each with its own file "
             "handle, read disjoint slices of a range (mode seq) or of the random id list (mode "
             "rand).", view="par", points=par_points, threaded=True,
             counters=("objects", "threads", "pages_read"), check_sample=thread_times,
             noise=(("", 0.0187), ("cpp", 0.0090), ("java", 0.0205), ("rust", 0.0240)), **READ),
)
