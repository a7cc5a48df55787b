"""`micro`: in-memory encode and decode of the first n objects (of the k-sweep input for
`arrays`); the decoded objects' set checksum must match."""
from __future__ import annotations

import json

from ..checksum import object_hash
from ..datasets.manifest import data_path
from ..results import CellResult


def run(runner, driver, cell) -> CellResult:
    from ..runner import set_checksum_of, sweep_input
    k = cell.settings.get("k")
    if k is None:
        source = data_path(cell.dataset_dir, cell.model)
        expected = set_checksum_of(runner.dataset_hashes(cell)[i] for i in range(cell.n))
    else:
        source = sweep_input(k, cell.n)
        with open(source, "rb") as f:
            expected = set_checksum_of([object_hash(cell.model, json.loads(f.readline()))]
                                       * cell.n)
    params = {"input": str(source), "n": cell.n, "iterations": cell.iterations,
              "buffer": cell.settings["buffer"], **runner.common_params(cell)}
    return runner.timed(driver, cell, params, expected)


TASKS = {"micro": run}
