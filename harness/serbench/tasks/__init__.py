"""The harness's task axis: one module per task or task family, each mapping its task ids to
`run(runner, driver, cell) -> CellResult`. The run loop (runner.py: groups, forks,
verification, files, peers) looks a cell's task up in TASKS and names no task itself; adding a
task is one module here and one entry below.

A module may also prove something about a group before any of its cells is timed:
PROOFS holds `prove(runner, driver, cells) -> {cell: CellResult}`, the cells it blocks.

A task's `run` gets the runner for what every task shares (`timed` requests, the method's
file, the dataset's hashes, the run directory) and the group's verified driver process.
"""
from . import micro, network, reads, sizes, sort, write

TASKS = {**write.TASKS, **reads.TASKS, **sort.TASKS, **micro.TASKS, **sizes.TASKS,
         **network.TASKS}
PROOFS = (network.prove,)
