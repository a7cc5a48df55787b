"""`sizes` (PROTOCOL.md 5.5): computed here, for every language alike, from the method's file
that `scan` already checked: object sizes from the paged file's index, gzip and zstd sizes of
its data file, and the lines of code of the method's own files."""
from __future__ import annotations

import shutil
import subprocess
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..datasets.manifest import load_manifest
from ..drivers.paged import PagedError, extents, file_digest
from ..paths import REPO
from ..results import CellResult
from .spec import NO_DEPTH, TaskSpec, whole_dataset


GZIP_LEVEL = 6
ZSTD_LEVEL = 3
CHUNK = 1 << 20


class SizesError(RuntimeError):
    pass


def object_lengths(index: Path) -> list[int]:
    try:
        return [length for _, _, length in extents(index)[1]]
    except PagedError as exc:
        raise SizesError(str(exc)) from None


def gzip_size(path: Path) -> int:
    compressor = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)  # 31: gzip framing
    total = 0
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            total += len(compressor.compress(chunk))
    return total + len(compressor.flush())


def zstd_size(path: Path) -> int:
    tool = shutil.which("zstd")
    if tool is None:
        raise SizesError("the zstd command is not installed (scripts/setup installs it)")
    proc = subprocess.Popen([tool, f"-{ZSTD_LEVEL}", "-q", "-c", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    total = sum(len(chunk) for chunk in iter(lambda: proc.stdout.read(CHUNK), b""))
    if proc.wait() != 0:
        raise SizesError(f"zstd failed on {path}: {proc.stderr.read().decode().strip()}")
    return total


# what the code generators this repository uses write at the top of their output (protoc,
# flatc, capnp, avro-tools), and the directories the drivers' builds generate into
GENERATED_MARKS = ("do not edit", "do not modify")
GENERATED_DIR_PREFIX = "generated"
HEADER_LINES = 5


def is_generated(name: str, text: str) -> bool:
    """A generated file: under a directory named generated* (target/generated-sources,
    build/generated, …), or its first lines say generated and not to edit it."""
    if any(part.startswith(GENERATED_DIR_PREFIX) for part in Path(name).parts[:-1]):
        return True
    head = "\n".join(text.splitlines()[:HEADER_LINES]).lower()
    return "generated" in head and any(mark in head for mark in GENERATED_MARKS)


def _read_listed(name: str, repo: Path) -> str:
    try:
        return (repo / name).read_text(errors="replace")
    except OSError as exc:
        raise SizesError(f"method file {name} (listed in the driver's info) cannot be "
                         f"read: {exc.strerror}") from None


def loc_counters(files: list[str], repo: Path = REPO) -> dict:
    """`loc`: non-blank lines of the listed files, generated ones skipped; the names counted
    and skipped are kept so the report can say which files several methods share."""
    texts = {name: _read_listed(name, repo) for name in files}
    counted = [name for name, text in texts.items() if not is_generated(name, text)]
    return {"loc": sum(1 for name in counted for line in texts[name].splitlines()
                       if line.strip()),
            "files": len(files), "loc_files": counted,
            "generated_files": [name for name in texts if name not in counted]}


def library_bytes(jars: list) -> int:
    """The summed size of the library files a driver lists for a method
    (`info.methods.<id>.jars`: `[{"name", "bytes"}]`, Java's jars)."""
    if not isinstance(jars, list) or not all(
            isinstance(j, dict) and type(j.get("bytes")) is int and j["bytes"] >= 0
            for j in jars):
        raise SizesError(f"info lists jars as {jars!r}, not [{{name, bytes}}]")
    return sum(j["bytes"] for j in jars)


def measure(base: Path, files: list[str], repo: Path = REPO) -> dict:
    """The counters of one `sizes` cell for the paged file `base`."""
    lengths = object_lengths(Path(f"{base}.index"))
    data = Path(f"{base}.pages")
    return {"objects": len(lengths),
            "avg_object_bytes": sum(lengths) / len(lengths) if lengths else 0.0,
            "max_object_bytes": max(lengths, default=0),
            "data_bytes": data.stat().st_size, **compressed_sizes(data),
            **loc_counters(files, repo)}


# content digest -> its gzip and zstd sizes: languages write byte-identical files for a shared
# format, and hashing a file costs ~1/30 of gzipping it (4 s of gzip in a profiled default run)
_COMPRESSED: dict[bytes, dict] = {}


def compressed_sizes(data: Path) -> dict:
    digest = file_digest(data)
    if digest not in _COMPRESSED:
        # zstd's process beside Python's gzip (zlib lets go of the GIL while it deflates): a
        # file's sizes take its gzip's time, not the sum
        with ThreadPoolExecutor(max_workers=1) as pool:
            zstd = pool.submit(zstd_size, data)
            _COMPRESSED[digest] = {"gzip_bytes": gzip_size(data), "zstd_bytes": zstd.result()}
    return dict(_COMPRESSED[digest])


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
