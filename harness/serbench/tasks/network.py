"""The network tasks (serbench.network): the method's file is made like a read's, then the
cell runs on its nodes; the group's verified driver reads the outputs back."""
from __future__ import annotations

from ..network.measure import TASKS as NETWORK_TASKS, measure
from ..results import CellResult


def run(runner, driver, cell) -> CellResult:
    source = runner.file_for(driver, cell)
    if source.problem is not None:
        return source.problem
    depths = runner.infos[cell.language]["methods"][cell.method]["depths"]
    return measure(cell, source.base, runner.dataset_hashes(cell), runner.drivers, driver,
                   cell.depth or depths[0], runner.run_dir / "net" / f"cell{cell.cell_id}",
                   runner.networks)


TASKS = {task: run for task in NETWORK_TASKS}
