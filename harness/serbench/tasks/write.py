"""`write`: the dataset encoded into the method's paged file, timed; the file is then read back
with `scan` and must hold the dataset, and becomes the file the method's reads use."""
from __future__ import annotations

from ..datasets.manifest import data_path, load_manifest
from ..results import CellResult


def run(runner, driver, cell) -> CellResult:
    manifest = load_manifest(cell.dataset_dir, cell.model)
    base = runner.file_base(cell, cell.method, cell.variant)
    base.parent.mkdir(parents=True, exist_ok=True)
    params = {"input": str(data_path(cell.dataset_dir, cell.model)), "output": str(base),
              "page_size": cell.page_size, **runner.common_params(cell)}
    result = runner.timed(driver, cell, params, dict(manifest.set_checksum))
    if result.status == "ok":
        objects = result.counters.get("objects")
        if objects != manifest.count:
            result = CellResult("invalid", "checksum_mismatch",
                                f"write: counters.objects = {objects!r}, the dataset has "
                                f"{manifest.count}", expected=result.expected,
                                got=result.got, counters=result.counters, params=params)
        else:
            result = scan_written(runner, driver, cell, base, manifest, result)
    if result.status != "unsupported":  # else reads make their file with encode
        runner.keep_file(cell, base, None if result.status == "ok" else CellResult(
            "failed", "no_input", f"the file of write cell {cell.cell_id} is unusable "
                                  f"({result.status}: {result.message})"))
    return result


def scan_written(runner, driver, cell, base, manifest, result: CellResult) -> CellResult:
    """Read the new file back with `scan`: a write is ok only if its file is right."""
    problem = runner.scan_problem(driver, cell, base, manifest)
    if problem is None:
        return result
    problem.params, problem.expected, problem.got = result.params, result.expected, result.got
    problem.counters = result.counters
    return problem


TASKS = {"write": run}
