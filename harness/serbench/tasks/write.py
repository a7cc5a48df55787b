"""`write`: the dataset encoded into the method's paged file, timed; the file is then read back
with `scan` and must hold the dataset, and becomes the file the method's reads use.

The write floor (`raw`, variant = the method): the method's own file written again by the
driver from its objects' bytes, loaded before timing: the same pages, index and fsyncs
without the encoding. Its checksum (the objects' bytes) comes from the harness's reading of
the method's file, and the copy must equal that file byte for byte. With `floor_rounds` each
round of the write is followed by the floor of the file it has just written."""
from __future__ import annotations

import filecmp
from pathlib import Path

from ..cell import RAW
from ..datasets.manifest import data_path, load_manifest
from ..drivers.paged import PagedError, extents, file_digest
from ..results import CellResult
from .floors import every_object, with_floor
from .spec import BY_DRIVER, NO_DEPTH, TaskSpec, whole_dataset


def run(runner, driver, cell) -> CellResult:
    if cell.method == RAW:
        return floor(runner, driver, cell)
    manifest = load_manifest(cell.dataset_dir, cell.model)
    base = runner.file_base(cell, cell.method, cell.variant)
    base.parent.mkdir(parents=True, exist_ok=True)
    params = {"input": str(data_path(cell.dataset_dir, cell.model)), "output": str(base),
              "page_size": cell.page_size, **runner.common_params(cell)}
    result = timed_write(runner, driver, cell, base, params, dict(manifest.set_checksum))
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


def timed_write(runner, driver, cell, base: Path, params: dict, expected: dict) -> CellResult:
    """The write's repetitions, followed by its floor when the plan pairs them."""
    if not cell.floor_rounds:
        return runner.timed(driver, cell, params, expected)
    copy = runner.file_base(cell, RAW, cell.method)
    copy.parent.mkdir(parents=True, exist_ok=True)
    try:
        result = with_floor(runner, driver, cell, params, expected,
                           lambda asked: floor_request(runner, base, copy, asked))
    except PagedError as exc:  # the file a round wrote, read for its floor
        return CellResult("invalid", "checksum_mismatch",
                          f"write: the harness cannot read the file it wrote: {exc}",
                          params=params)
    return checked_copy(base, result, copy)


def scan_written(runner, driver, cell, base, manifest, result: CellResult) -> CellResult:
    """Read the new file back with `scan`: a write is ok only if its file is right. A later
    round's file byte for byte the same as one already scanned is that file (an encoder
    writes the same objects the same way; one that does not is scanned again)."""
    written = (file_digest(Path(f"{base}.pages")), file_digest(Path(f"{base}.index")))
    if runner.scanned.get(cell.identity) == written:
        return result
    problem = runner.scan_problem(driver, cell, base, manifest)
    if problem is None:
        runner.scanned[cell.identity] = written
        return result
    problem.params, problem.expected, problem.got = result.params, result.expected, result.got
    problem.counters = result.counters
    return problem


def floor(runner, driver, cell) -> CellResult:
    source = runner.file_for(driver, cell)
    if source.problem is not None:
        return source.problem
    base = runner.file_base(cell, RAW, cell.variant)
    base.parent.mkdir(parents=True, exist_ok=True)
    params = {"input": str(source.base), "output": str(base), "page_size": cell.page_size,
              **runner.common_params(cell)}
    try:
        expected = every_object(runner, source.base)
    except PagedError as exc:
        return CellResult("failed", "no_input", f"the file to copy: {exc}", params=params)
    return checked_copy(source.base, runner.timed(driver, cell, params, expected), base)


def floor_request(runner, base: Path, copy: Path, asked: dict) -> tuple[dict, dict]:
    """The write floor of the file a round has just written: its params and checksum."""
    params = {**asked, "input": str(base), "output": str(copy)}
    return params, every_object(runner, base)



def checked_copy(source: Path, result: CellResult, copy: Path) -> CellResult:
    """A floor's result is ok only if its copy (a paired write's: this round's) equals
    the file it copied; the copy is then deleted."""
    try:
        problem = copy_problem(source, copy) if result.status == "ok" else None
    finally:
        for suffix in (".pages", ".index"):
            Path(f"{copy}{suffix}").unlink(missing_ok=True)
    if problem is None:
        return result
    return CellResult("invalid", "checksum_mismatch", f"write floor: {problem}",
                      expected=result.expected, got=result.got, params=result.params)


def copy_problem(source: Path, copy: Path) -> str | None:
    """How the floor's file differs from the method's, if it does: the data byte for byte,
    the index's entries and layout (its writer may differ)."""
    if not filecmp.cmp(f"{source}.pages", f"{copy}.pages", shallow=False):
        return f"{copy}.pages differs from {source}.pages"
    try:
        same = extents(Path(f"{source}.index")) == extents(Path(f"{copy}.index"))
    except PagedError as exc:
        return str(exc)
    return None if same else f"{copy}.index places the objects elsewhere than {source}.index"


def work(cell, object_bytes: float, dataset_bytes: float) -> tuple[float, float]:
    """Every object encoded and written."""
    return cell.n * object_bytes, cell.n * object_bytes


SPECS = (TaskSpec("write", run, title="Write", what="Canonical objects already in memory are "
                  "encoded, packed into pages, written with their index and fsynced.",
                  points=whole_dataset, depths=NO_DEPTH, floor=BY_DRIVER, pairs_floor=True,
                  reads_bytes=False, work=work, starred=True,
                  floor_is="the fastest write floor: a method's own file written again from "
                  "its objects' bytes, loaded before timing (the same pages, index and fsyncs, "
                  "no encoding)",
                  over_floor_is="the median over the write floor of the method's own file, "
                  "i.e. what encoding adds to writing its bytes.",
                  noise=(("", 0.0636), ("cpp", 0.0204), ("java", 0.0), ("rust", 0.0714))),)
