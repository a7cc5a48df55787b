"""`micro`: in-memory encode and decode of the first n objects (of the k-sweep input for
`arrays`); the decoded objects' set checksum must match."""
from __future__ import annotations

import json
from functools import lru_cache

from ..checksum import object_hash
from ..datasets.manifest import data_path
from ..paths import file_key
from ..results import CellResult


def run(runner, driver, cell) -> CellResult:
    from ..runner import set_checksum_of, sweep_input
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


TASKS = {"micro": run}
