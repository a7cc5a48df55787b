"""What a task declares about itself, so that the run loop, plans and reports name no task:
its id and how it runs, how a plan expands it into cells, what its result must carry, and how
a report shows it. Each task module declares its own (`SPECS`); tasks/__init__.py lists them.

A task's `run(context, driver, cell)` gets the run's shared services through `RunContext`
(the runner implements it) and the group's verified driver process.
"""
from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..cell import Cell
from ..results import CellResult


if TYPE_CHECKING:  # types only: the driver and the plan's params are not imported at run time
    from ..drivers.process import DriverProcess
    from ..network.measure import Networks
    from ..params import Params


class FileState(Protocol):
    base: Path
    problem: CellResult | None


class RunContext(Protocol):
    """What a task may use of the run it is part of (runner.Runner provides it)."""

    run_dir: Path
    infos: dict[str, dict]       # each language's driver `info`
    drivers: dict[str, Path]     # each language's driver executable
    networks: "Networks"         # the network tasks' links and placements
    expectations: dict[tuple, dict]  # a task's own cache of expensive expectations
    scanned: dict[tuple, tuple]  # write cell identity -> digests of the file a scan proved

    def timed(self, driver: "DriverProcess", cell: Cell, params: dict,
              expected: dict) -> CellResult: ...

    def common_params(self, cell: Cell) -> dict: ...

    def file_for(self, driver: "DriverProcess", cell: Cell) -> FileState: ...

    def file_base(self, cell: Cell, method: str, variant: str) -> Path: ...

    def keep_file(self, cell: Cell, base: Path, problem: CellResult | None) -> None: ...

    def floor_checksum(self, base: Path, chosen) -> dict: ...

    def dataset_hashes(self, cell: Cell) -> array: ...

    def scan_problem(self, driver: "DriverProcess", cell: Cell, base: Path,
                     manifest) -> CellResult | None: ...


Run = Callable[[RunContext, "DriverProcess", Cell], CellResult]
# (n, setting, threads) of every cell a task makes for one method and depth
Point = tuple[int, str, int]
Points = Callable[["Params", str, tuple[int, ...], int], list[Point]]
# a task's own check of one sample (e.g. one time per thread): a problem, or None
SampleCheck = Callable[[dict, Cell], str | None]

# depths: every depth the method reads at, none (the task decodes nothing), or materialize
OFFERED, NO_DEPTH, MATERIALIZE = "offered", "none", "materialize"
# the raw floor: beside every cell (reads), where the driver's raw method lists the task
# (`info` methods.raw.floors: write, sort_dedup), or none
BESIDE, BY_DRIVER, NO_FLOOR = "beside", "driver", "none"


# the bytes one repetition of a cell encodes or decodes and moves to or from disk, for the
# reproduction's estimate: (cell, JSON bytes per object, the dataset's JSON bytes)
Work = Callable[[Cell, float, float], tuple[float, float]]


def read_work(cell: Cell, object_bytes: float, dataset_bytes: float) -> tuple[float, float]:
    """n objects decoded, and read from disk when cold: most reads."""
    done = cell.n * object_bytes
    return done, done if cell.cold else 0.0


def each_n(params: "Params", model: str, ns: tuple[int, ...], count: int) -> list[Point]:
    """One cell per n: what most tasks make."""
    return [(n, "", 1) for n in ns]


def whole_dataset(params: "Params", model: str, ns: tuple[int, ...], count: int) -> list[Point]:
    """One cell over every object of the dataset."""
    return [(count, "", 1)]


@dataclass(frozen=True)
class NetSpec:
    """A network task's nodes (PROTOCOL.md 10): its roles in the order a cell's setting names
    them, how a group makes its cells (`points(params, model, method, depths, offered, count)`
    -> [(depth, n, setting, why)], `why` what the capability matrix excludes, else None), and
    how many nodes of each role a cell has (`nodes(params)`); `decoders`: the roles whose
    nodes decode at the cell's depth (so another language there must offer it)."""
    roles: tuple[str, ...]
    points: Callable
    nodes: Callable[["Params"], dict[str, int]]
    decoders: tuple[str, ...] = ()


@dataclass(frozen=True)
class TaskSpec:
    id: str
    run: Run
    title: str                    # the report's section title
    what: str                     # what is timed, in one sentence
    view: str = "timed"           # which of the report's views shows it (report/tasks.py)
    points: Points = each_n
    depths: str = OFFERED
    floor: str = NO_FLOOR
    pairs_floor: bool = False     # floor_rounds pairs its rounds with its floor
    forks_param: str | None = None  # the plan parameter giving its fresh processes
    by_harness: bool = False      # measured by the harness itself, whatever the drivers offer
    evicts: bool = False          # a cold repetition evicts its input first
    reads_bytes: bool = True      # it reads stored bytes back (so a trusting read is labelled)
    counters: tuple[str, ...] = ()    # what its result must carry beyond samples and checksum
    sample_keys: tuple[str, ...] = ()  # times each sample must carry (ns)
    check_sample: SampleCheck | None = None
    net: NetSpec | None = None    # a network task: its nodes
    threaded: bool = False        # its cells differ by thread count
    iterated: bool = False        # a repetition is `iterations` passes over its objects
    # a problem with a group's params for this task (PlanError's text), or None
    check_params: Callable[["Params"], str | None] | None = None
    work: Work = read_work        # what a repetition moves (the reproduction's estimate)
    # the tasks a report's takeaways speak of together ("reads"); "": the task alone, by title
    family: str = ""
    starred: bool = False         # a plan group's `tasks = "*"` includes it (the core tasks)
    # a report's words for its floor, where it is not a read's raw floor: what the fastest
    # floor is, and what a time over its method's own floor says
    floor_is: str = ""
    over_floor_is: str = ""
    # its run-to-run noise where the host has measured none (compare/noise.py): log sigma of
    # one run, the task's ("") and per language, measured on the 2-core development VM by
    # `serbench selfcheck` of two back-to-back default runs
    noise: tuple[tuple[str, float], ...] = ()
