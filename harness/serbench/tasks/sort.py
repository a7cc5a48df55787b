"""`sort_dedup`: external sort of the method's file; the output must be the dataset's distinct
objects in total order (count and sequence checksum).

The sort floor (`raw`, variant = the method, PROTOCOL.md 5.2.1): the method's file through
the same two phases at the same budget moving bytes only; its output must hold exactly the
input's objects (the raw checksum of every object's bytes, computed by the harness from the
input and again from the output)."""
from __future__ import annotations

import shutil
from pathlib import Path

from ..cell import RAW
from ..datasets.expectations import RunError, mismatch
from ..datasets.manifest import data_path, load_manifest
from ..drivers.paged import PagedError, raw_checksum
from ..models.order import sorted_distinct_checksum
from ..results import CellResult
from .floors import all_positions, every_object
from .spec import BY_DRIVER, MATERIALIZE, TaskSpec


def run(runner, driver, cell) -> CellResult:
    source = runner.file_for(driver, cell)
    if source.problem is not None:
        return source.problem
    manifest = load_manifest(cell.dataset_dir, cell.model)
    output = runner.run_dir / "sort" / str(cell.cell_id)
    shutil.rmtree(output, ignore_errors=True)
    output.mkdir(parents=True)
    params = {"input": str(source.base), "output": str(output),
              "budget_bytes": cell.settings["budget_bytes"], "page_size": cell.page_size,
              **runner.common_params(cell)}
    try:
        if cell.method == RAW:
            result = floor(runner, driver, cell, params, source.base, output)
        else:
            result = runner.timed(driver, cell, params,
                                  sorted_expectation(runner, cell, manifest))
    finally:
        shutil.rmtree(output, ignore_errors=True)
    objects = (result.counters or {}).get("input_objects")
    if result.status == "ok" and objects != manifest.count:
        result = CellResult("invalid", "checksum_mismatch",
                            f"sort_dedup: counters.input_objects = {objects!r}, the input "
                            f"holds {manifest.count}", expected=result.expected,
                            got=result.got, counters=result.counters, params=params)
    return result


def floor(runner, driver, cell, params: dict, source: Path, output: Path) -> CellResult:
    """The sort floor: ok only if `sorted` holds exactly the input's objects' bytes."""
    try:
        expected = every_object(runner, source)
    except PagedError as exc:
        return CellResult("failed", "no_input", f"the file to sort: {exc}", params=params)
    result = runner.timed(driver, cell, params, expected)
    if result.status != "ok":
        return result
    try:
        held = raw_checksum(output / "sorted", all_positions(output / "sorted"))
        problem = mismatch(f"{output / 'sorted'} (the floor's output)", held, expected)
    except (PagedError, OSError) as exc:
        problem = f"the floor's output: {exc}"
    if problem is None:
        return result
    return CellResult("invalid", "checksum_mismatch", f"sort floor: {problem}",
                      expected=result.expected, got=result.got, counters=result.counters,
                      params=result.params)


def sorted_expectation(runner, cell, manifest) -> dict:
    key = (cell.dataset_dir, cell.model, "sorted")
    if key not in runner.expectations:
        expected = sorted_distinct_checksum(cell.model, data_path(cell.dataset_dir, cell.model))
        if expected["count"] != manifest.distinct_count:
            raise RunError(f"{data_path(cell.dataset_dir, cell.model)}: "
                           f"{expected['count']} distinct objects, the manifest says "
                           f"{manifest.distinct_count}; the dataset is damaged")
        runner.expectations[key] = expected
    return runner.expectations[key]


def points(params, model: str, ns: tuple[int, ...], count: int) -> list:
    """The whole dataset at each memory budget."""
    return [(count, f"budget_bytes={b}", 1) for b in params.budget_bytes]


def budget_problem(params) -> str | None:
    """A merge holds a page of each of two runs and of its output (PROTOCOL.md 5.2); a
    smaller budget would not be kept, only degrade into many tiny runs and passes."""
    least = 3 * params.page_size
    if min(params.budget_bytes) >= least:
        return None
    return (f"budget_bytes: {min(params.budget_bytes)} is below three pages of page_size "
            f"{params.page_size} (a merge reads a page of two runs and writes one): give at "
            f"least {least} or a smaller page_size")


# passes over the input: read and decode it, write runs, merge (the reproduction's estimate)
SORT_PASSES = 3


def work(cell, object_bytes: float, dataset_bytes: float) -> tuple[float, float]:
    return SORT_PASSES * cell.n * object_bytes, SORT_PASSES * cell.n * object_bytes


SPECS = (TaskSpec("sort_dedup", run, title="External sort with duplicate removal",
                  what="Sorted runs under a memory budget, written as paged files of the "
                  "method, then a heap merge reading a page at a time per run that drops "
                  "every duplicate.", view="sort", points=points, depths=MATERIALIZE,
                  floor=BY_DRIVER, evicts=True, check_params=budget_problem,
                  counters=("input_objects", "output_objects", "runs", "merge_passes",
                            "budget_bytes", "peak_rss_bytes", "rss_start_bytes"),
                  sample_keys=("phase1_ns", "phase2_ns"), work=work,
                  noise=(("", 0.0265), ("cpp", 0.0169), ("java", 0.0151), ("rust", 0.0122))),)
