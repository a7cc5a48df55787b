"""`sort_dedup`: external sort of the method's file; the output must be the dataset's distinct
objects in total order (count and sequence checksum)."""
from __future__ import annotations

import shutil

from ..datasets.manifest import data_path, load_manifest
from ..order import sorted_distinct_checksum
from ..results import CellResult


def run(runner, driver, cell) -> CellResult:
    source = runner.file_for(driver, cell)
    if source.problem is not None:
        return source.problem
    manifest = load_manifest(cell.dataset_dir, cell.model)
    expected = sorted_expectation(runner, cell, manifest)
    output = runner.run_dir / "sort" / str(cell.cell_id)
    shutil.rmtree(output, ignore_errors=True)
    output.mkdir(parents=True)
    params = {"input": str(source.base), "output": str(output),
              "budget_bytes": cell.settings["budget_bytes"], "page_size": cell.page_size,
              **runner.common_params(cell)}
    try:
        result = runner.timed(driver, cell, params, expected)
    finally:
        shutil.rmtree(output, ignore_errors=True)
    objects = (result.counters or {}).get("input_objects")
    if result.status == "ok" and objects != manifest.count:
        result = CellResult("invalid", "checksum_mismatch",
                            f"sort_dedup: counters.input_objects = {objects!r}, the input "
                            f"holds {manifest.count}", expected=result.expected,
                            got=result.got, counters=result.counters, params=params)
    return result


def sorted_expectation(runner, cell, manifest) -> dict:
    from ..runner import RunError
    key = (cell.dataset_dir, cell.model, "sorted")
    if key not in runner.expectations:
        expected = sorted_distinct_checksum(cell.model, data_path(cell.dataset_dir, cell.model))
        if expected["count"] != manifest.distinct_count:
            raise RunError(f"{data_path(cell.dataset_dir, cell.model)}: "
                           f"{expected['count']} distinct objects, the manifest says "
                           f"{manifest.distinct_count}; the dataset is damaged")
        runner.expectations[key] = expected
    return runner.expectations[key]


TASKS = {"sort_dedup": run}
