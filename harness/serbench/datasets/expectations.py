"""What a cell's result must be, computed by the harness from the dataset and never from a
driver: per-object hashes, the seeded start of a sequential read, the shared random id list,
the sweep input, set checksums, and the sample a group is verified on. Shared by the run loop
and the tasks (both import it; it imports neither)."""
from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from array import array
from dataclasses import dataclass
from pathlib import Path

from ..datasets.manifest import Manifest, data_path, load_manifest
from ..datasets.native import NativeError, datagen_path
from ..models.checksum import MASK, hex64, object_hash, set_checksum
from ..paths import cache_dir


class RunError(RuntimeError):
    pass


def hashes_path(directory: Path, model: str) -> Path:
    return directory / f"{model}.hashes"


def dataset_hashes(directory: Path, model: str) -> array:
    """Per-object hashes of a dataset, in file order, as u64.

    Cached in `<model>.hashes` (u64 little-endian per object) next to the dataset. A cache is
    trusted only when its length is 8 × count and its hashes add up to the manifest's set
    checksum; otherwise it is made again, by serbench-datagen when it can, else in Python.
    """
    manifest = load_manifest(directory, model)
    path = hashes_path(directory, model)
    cached = _read_hashes(path, manifest)
    if cached is not None:
        return cached
    staging = path.with_suffix(".hashes.tmp")
    for make in (_native_hashes, _python_hashes):
        made = _read_hashes(staging, manifest) if make(directory, model, staging) else None
        if made is not None:
            staging.replace(path)
            return made
    staging.unlink(missing_ok=True)
    raise RunError(f"{data_path(directory, model)}: per-object hashes do not add up to the "
                   f"manifest's checksum {manifest.set_checksum}; the dataset is damaged")


def file_hashes(directory: Path, model: str) -> array:
    """Per-object hashes read from the dataset file itself, never from the cache (natively
    when serbench-datagen is built, else in Python); ValueError when it does not parse."""
    with tempfile.TemporaryDirectory(prefix="serbench-hashes-") as tmp:
        out = Path(tmp) / "hashes"
        if not _native_hashes(directory, model, out):
            _python_hashes(directory, model, out)
        return u64_array(out.read_bytes())


def _read_hashes(path: Path, manifest: Manifest) -> array | None:
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    if len(raw) != 8 * manifest.count:
        return None
    hashes = u64_array(raw)
    total = sum(hashes) & MASK
    return hashes if hex64(total) == manifest.set_checksum["sum"] else None


def _native_hashes(directory: Path, model: str, out: Path) -> bool:
    """serbench-datagen's `checksum --hashes`, when a datagen build that has it exists."""
    try:
        tool = datagen_path(build=False)
        proc = subprocess.run([str(tool), "checksum", "--model", model, "--in",
                               str(data_path(directory, model)), "--hashes", str(out)],
                              capture_output=True)
    except (NativeError, OSError):  # no datagen build: the Python reference does it
        return False
    return proc.returncode == 0 and out.exists()


def _python_hashes(directory: Path, model: str, out: Path) -> bool:
    hashes = array("Q")
    with open(data_path(directory, model), "rb") as f:
        for line in f:
            if line.strip():
                hashes.append(object_hash(model, json.loads(line)))
    out.write_bytes(u64_bytes(hashes))
    return True


def read_seq_start(seed: int, model: str, count: int, n: int) -> int:
    """The seeded first object of a sequential read; the same for every method and language."""
    return random.Random(f"read_seq:{seed}:{model}:{count}:{n}").randrange(count - n + 1)


def ids_file(model: str, count: int, n: int, seed: int) -> Path:
    """The seeded random id list (u64 LE, repeats allowed), written once and shared by every
    method and language. Longer lists extend shorter ones of the same seed."""
    path = cache_dir() / "ids" / f"{model}-c{count}-s{seed}-n{n}.u64"
    if path.exists() and path.stat().st_size == 8 * n:
        return path
    rng = random.Random(f"read_rand:{seed}:{model}:{count}")
    ids = array("Q", (rng.randrange(count) for _ in range(n)))
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_suffix(".tmp")
    staging.write_bytes(u64_bytes(ids))
    staging.replace(path)
    return path


def read_ids(path: Path) -> array:
    return u64_array(path.read_bytes())


def u64_array(raw: bytes) -> array:
    """u64 little-endian bytes (the files' format) as an array in native order."""
    values = array("Q")
    values.frombytes(raw)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def u64_bytes(values: array) -> bytes:
    if sys.byteorder == "big":
        values = array("Q", values)
        values.byteswap()
    return values.tobytes()


def sweep_input(k: int, n: int) -> Path:
    """JSON Lines of n `arrays` objects of k strings "Dummy text" and k zeros (the generator's
    `arrays` family), the micro size sweep's input; made once in the cache."""
    path = cache_dir() / "sweep" / f"arrays-k{k}-n{n}.jsonl"
    if not path.exists():
        line = json.dumps({"strings": ["Dummy text"] * k, "ints": [0] * k},
                          separators=(",", ":")) + "\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_suffix(".tmp")
        staging.write_text(line * n)
        staging.replace(path)
    return path


def set_checksum_of(hashes) -> dict:
    count, total = set_checksum(hashes)
    return {"count": count, "sum": hex64(total)}


# Verifying a group on a prefix keeps a fresh process's first, cold pass over the data short (a
# JVM interprets it: ~0.3 s per customer round trip of the default data) and bounds the
# drivers' memory at any scale; the prefix has every kind of field the model has.
VERIFY_SAMPLE_BYTES = 1 << 20


@dataclass(frozen=True)
class Sample:
    """The objects a group is verified on before timing, and their set checksum."""

    path: Path
    checksum: dict


def verify_sample(directory: Path, model: str, hashes: array, out: Path) -> Sample:
    """The dataset's first objects up to VERIFY_SAMPLE_BYTES of JSON (at least one), written
    to `out`; the whole dataset file itself when it is no larger."""
    source = data_path(directory, model)
    if source.stat().st_size <= VERIFY_SAMPLE_BYTES:
        return Sample(source, set_checksum_of(hashes))
    lines, size = [], 0
    with open(source, "rb") as f:
        for line in f:
            if not line.strip():
                continue
            if lines and size + len(line) > VERIFY_SAMPLE_BYTES:
                break
            lines.append(line)
            size += len(line)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(b"".join(lines))
    return Sample(out, set_checksum_of(hashes[:len(lines)]))



def mismatch(what: str, got: dict, expected: dict) -> str | None:
    if got["count"] != expected["count"]:
        return f"{what}: count {got['count']} differs from expected {expected['count']}"
    if got["sum"] != expected["sum"]:
        return f"{what}: checksum {got['sum']} differs from expected {expected['sum']}"
    return None
