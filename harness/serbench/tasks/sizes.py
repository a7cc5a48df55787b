"""`sizes` (PROTOCOL.md 5.5): computed here, for every language alike, from the method's file
that `scan` already checked."""
from __future__ import annotations

from ..datasets.manifest import load_manifest
from ..results import CellResult
from ..sizes import SizesError, library_bytes, measure
from .spec import NO_DEPTH, TaskSpec, whole_dataset


def run(runner, driver, cell) -> CellResult:
    source = runner.file_for(driver, cell)
    if source.problem is not None:
        return source.problem
    base = source.base
    manifest = load_manifest(cell.dataset_dir, cell.model)
    method = runner.infos[cell.language]["methods"][cell.method]
    params = {"input": str(base)}
    try:
        counters = measure(base, method.get("files", []))
        if "jars" in method:
            counters["library_bytes"] = library_bytes(method["jars"])
    except (SizesError, OSError) as exc:
        return CellResult("failed", "sizes", str(exc), params=params)
    checksum = dict(manifest.set_checksum)
    if counters["objects"] != manifest.count:
        return CellResult("invalid", "checksum_mismatch",
                          f"sizes: the file holds {counters['objects']} objects, the "
                          f"dataset {manifest.count}", counters=counters, params=params)
    return CellResult("ok", expected=checksum, got=checksum, counters=counters,
                      params=params, message="checksum: scan of the file")


SPECS = (TaskSpec("sizes", run, title="Sizes", what="Encoded and compressed sizes; shown in the "
                  "sizes section.", view="sizes", points=whole_dataset, depths=NO_DEPTH,
                  by_harness=True, reads_bytes=False),)
