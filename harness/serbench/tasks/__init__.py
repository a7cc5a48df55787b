"""The harness's task axis: one module per task or task family, each declaring its tasks as
`TaskSpec`s (spec.py: id, run, how a plan expands it, what its result must carry, how a
report shows it). THE list of tasks is below, in canonical order; the run loop, plans and
reports read it and name no task themselves. Adding a task is one module here and one entry
below (and the drivers' own, which a test checks against this list).

A module may also prove something about a group before any of its cells is timed:
PROOFS holds `prove(context, driver, cells) -> {cell: CellResult}`, the cells it blocks.
"""
from . import memory, micro, network, reads, sizes, sort, write
from .spec import TaskSpec

SPECS: tuple[TaskSpec, ...] = (*write.SPECS, *reads.SPECS, *sort.SPECS, *memory.SPECS,
                               *micro.SPECS, *sizes.SPECS, *network.SPECS)
TASKS: dict[str, TaskSpec] = {spec.id: spec for spec in SPECS}
TASK_ORDER: dict[str, int] = {task: i for i, task in enumerate(TASKS)}
PROOFS = (network.prove,)


def threaded(task: str) -> bool:
    """Do the task's cells differ by thread count (so labels name it)?"""
    return task in TASKS and TASKS[task].threaded


def task_spec(task: str) -> TaskSpec | None:
    """The task's spec, None for one this harness does not know (a run from another
    version): callers show it generically."""
    return TASKS.get(task)
