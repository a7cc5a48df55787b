"""`micro`: in-memory encode and decode of the first n objects (of the k-sweep input for
`arrays`); the decoded objects' set checksum must match."""
from __future__ import annotations

import json
from functools import lru_cache

from ..datasets.expectations import set_checksum_of, sweep_input
from ..datasets.manifest import data_path
from ..models.checksum import object_hash
from ..paths import file_key
from ..results import CellResult
from .spec import TaskSpec


def run(runner, driver, cell) -> CellResult:
    k = cell.settings.get("k")
    if k is None:
        source = data_path(cell.dataset_dir, cell.model)
        expected = set_checksum_of(runner.dataset_hashes(cell)[i] for i in range(cell.n))
    else:
        source = sweep_input(k, cell.n)
        expected = set_checksum_of([sweep_object_hash(cell.model, file_key(source))] * cell.n)
    params = {"input": str(source), "n": cell.n, "iterations": cell.iterations,
              "buffer": cell.settings["buffer"], **runner.common_params(cell)}
    return runner.timed(driver, cell, params, expected)


@lru_cache(maxsize=32)
def sweep_object_hash(model: str, source: tuple) -> int:
    """The hash of the sweep input's object (every line is the same), once per file."""
    with open(source[0], "rb") as f:
        return object_hash(model, json.loads(f.readline()))


def points(params, model: str, ns: tuple[int, ...], count: int) -> list:
    """Per n, each output buffer; `arrays` also swept over k, inputs of n objects of k
    strings and k ints each."""
    ks = params.sweep_k if model == "arrays" else (None,)
    return [(n, f"buffer={b}" + (f" k={k}" if k else ""), 1)
            for n in ns for b in params.buffers for k in ks]


def work(cell, object_bytes: float, dataset_bytes: float) -> tuple[float, float]:
    """Every object encoded and decoded, `iterations` times; nothing on disk."""
    return 2 * cell.iterations * cell.n * object_bytes, 0.0


SPECS = (TaskSpec("micro", run, title="Micro: encode and decode in memory", what="Hot loops "
                  "over n objects in memory: encode each (a fresh buffer per object, or one "
                  "reused buffer), then decode and visit each.", view="micro", points=points,
                  forks_param="forks", iterated=True,
                  counters=("objects", "iterations", "encoded_bytes"),
                  sample_keys=("encode_ns", "decode_ns"), work=work,
                  noise=(("", 0.0060), ("cpp", 0.0062), ("java", 0.0174), ("rust", 0.0))),)
