"""One network cell through every node: start them (a placement), `setup` each and wait
until all have loaded their data, `connect` each to the peers the task names and wait until
all are wired, then per repetition send `go` to all at once (the start barrier) and collect
every node's report; `shutdown` at the end. Any node that fails, dies or goes silent fails the
cell with that node named; every node is killed and nothing is left behind.

A task module (e.g. `fetch`) implements `NetTask`: which nodes a cell has and what each is
given, which node's report times the cell, and what each repetition's reports must show.
"""
from __future__ import annotations

import secrets
import select
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from .. import steady
from ..cell import Cell
from ..params import DEFAULTS
from .placement import NodeProcess, PlacementError
from .wire import ControlLink, WireError


# a killed node's peers notice at once (its sockets close); this bounds a silent hang
SETTLE_S = 0.5


@dataclass(frozen=True)
class NodeSpec:
    """One node of a cell: its name, role, driver language and setup params; whom it dials
    (node names, in order) and how many peers dial it."""

    name: str
    role: str
    language: str
    params: dict
    dial: tuple[str, ...] = ()
    accept: int = 0


@dataclass(frozen=True)
class NetCell:
    task: str
    model: str
    method: str
    variant: str
    depth: str
    params: dict  # the task's own parameters (e.g. servers, n, inputs, output)
    warmups: int = DEFAULTS["warmups"]
    repetitions: int = DEFAULTS["repetitions"]
    timeout_s: float = DEFAULTS["timeout_s"]
    warmup_max_ms: int = DEFAULTS["warmup_max_ms"]  # while a node's JIT compiles, up to this

    @classmethod
    def of(cls, task: str, cell: Cell, variant: str, params: dict) -> "NetCell":
        """A plan's cell of a network task as its nodes run it: the task's params, the plan's
        warm-up, repetitions and timeout. Its nodes are new processes every round, so their
        JIT warms for as long as a process of the single-machine tasks would before its first
        measured cell (prewarm_max_ms), or the cell's own warmup_max_ms if longer."""
        return cls(task, cell.model, cell.method, variant, cell.depth, params,
                   cell.warmups, cell.repetitions, cell.timeout_s,
                   max(cell.warmup_max_ms, cell.prewarm_max_ms))


class NetTask(Protocol):
    id: str

    def nodes(self, cell: NetCell) -> list[NodeSpec]: ...

    def timing_node(self, cell: NetCell) -> str: ...

    def check(self, cell: NetCell, reports: dict[str, dict]) -> str | None:
        """What is wrong with one repetition's reports, or None."""


class NetFailure(RuntimeError):
    """The cell failed: `node` names the node to blame (None: the harness's own setup)."""

    def __init__(self, message: str, node: str | None = None, stderr: str = ""):
        super().__init__(message)
        self.node = node
        self.stderr = stderr


class InvalidResult(RuntimeError):
    """Every node finished, but what they report is wrong."""


@dataclass
class CellRun:
    """Every repetition's reports, by node name, in order (warm-ups first)."""

    reports: list[dict[str, dict]] = field(default_factory=list)


def new_token() -> str:
    """A fresh secret per cell (128 bits): its nodes admit only connections presenting it."""
    return secrets.token_hex(16)


def run_cell(task: NetTask, cell: NetCell, placement, drivers: dict[str, Path]) -> CellRun:
    specs = task.nodes(cell)
    token = new_token()
    nodes: dict[str, NodeProcess] = {}
    links: dict[str, ControlLink] = {}
    try:
        for spec in specs:
            if spec.language not in drivers:
                raise NetFailure(f"node {spec.name}: no {spec.language} driver is built")
            nodes[spec.name] = placement.start(spec.name, drivers[spec.language], token)
        placement.wired([(spec.name, peer) for spec in specs for peer in spec.dial])
        for spec in specs:
            links[spec.name] = ControlLink(spec.name, nodes[spec.name].address, token,
                                           cell.timeout_s)
        run = Exchange(links, nodes, cell.timeout_s)
        run.each({s.name: setup_message(cell, s) for s in specs}, "prepared")
        run.each({s.name: {"op": "connect", "accept": s.accept,
                           "dial": [{"name": d, "address": nodes[d].address} for d in s.dial]}
                  for s in specs}, "ready")
        result = CellRun()
        repeat = Repeat(task, cell, specs, run)
        began = time.monotonic()
        while len(result.reports) < cell.warmups or warming(task, cell, result, began):
            result.reports.append(repeat.once(len(result.reports), True))
        warmups = len(result.reports)
        for rep in range(cell.repetitions):
            result.reports.append(repeat.once(warmups + rep, False, rep))
        for link in links.values():
            link.send({"op": "shutdown"})
        return result
    except (WireError, PlacementError) as exc:
        raise blame(exc, nodes) from None
    finally:
        for link in links.values():
            link.close()
        placement.close()


@dataclass(frozen=True)
class Repeat:
    """One repetition: `go` to every node at once, their reports checked."""

    task: NetTask
    cell: NetCell
    specs: list[NodeSpec]
    run: "Exchange"

    def once(self, index: int, warmup: bool, rep: int | None = None) -> dict[str, dict]:
        go = {"op": "go", "rep": index if rep is None else rep, "warmup": warmup}
        reports = self.run.each({s.name: go for s in self.specs}, "report")
        problem = self.task.check(self.cell, reports)
        if problem:
            raise InvalidResult(f"repetition {index} (warm-up: {warmup}): {problem}")
        return reports


def warming(task: NetTask, cell: NetCell, result: CellRun, began: float) -> bool:
    """Past its fixed warm-ups, a cell with `warmup_max_ms` warms up on while a node's JIT
    still compiles (fresh JVMs compile for seconds: timed, they made every Java network cell
    of the first full reproduction unsteady), up to that long."""
    if not cell.warmup_max_ms or time.monotonic() - began >= cell.warmup_max_ms / 1000:
        return False
    timing = task.timing_node(cell)
    return steady.still_compiling([{"total_ns": reports[timing]["total_ns"], "nodes": reports}
                                   for reports in result.reports])


def setup_message(cell: NetCell, spec: NodeSpec) -> dict:
    return {"op": "setup", "task": cell.task, "role": spec.role, "name": spec.name,
            "method": cell.method, "model": cell.model, "variant": cell.variant,
            "depth": cell.depth, "params": spec.params}


@dataclass
class Exchange:
    """Sends one message to every node and waits for each one's answer, watching them all:
    the first failure, death or silence ends the wait."""

    links: dict[str, ControlLink]
    nodes: dict[str, NodeProcess]
    timeout_s: float

    def each(self, messages: dict[str, dict], answer: str) -> dict[str, dict]:
        for name, message in messages.items():
            self.links[name].send(message)
        waiting = dict(self.links)
        answers: dict[str, dict] = {}
        deadline = time.monotonic() + self.timeout_s
        while waiting:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WireError(f"nodes {', '.join(sorted(waiting))} did not answer "
                                f"'{messages[next(iter(waiting))]['op']}' within "
                                f"{self.timeout_s:.0f} s")
            ready, _, _ = select.select(list(waiting.values()), [], [], min(left, 1.0))
            if not ready:
                self._check_alive(messages[next(iter(waiting))]["op"])
            for link in ready:
                message = link.receive()
                if message.get("op") != answer:
                    raise WireError(f"node {link.node}: answered {message.get('op')!r}, "
                                    f"expected {answer!r}")
                answers[link.node] = message
                del waiting[link.node]
        return answers

    def _check_alive(self, op: str) -> None:
        """After a silent second: a node that ended while the exchange waits fails it now. Its
        connection's close may never arrive (its host or its link gone with it), and then
        only the timeout would end the wait."""
        for name, node in self.nodes.items():
            note = node.exit_note()
            if note is not None:
                raise WireError(f"node {name} ended ({note}) while '{op}' was awaited")


def blame(exc: Exception, nodes: dict[str, NodeProcess]) -> NetFailure:
    """The failure to record: a node that died is the cause its peers' errors report, so it
    is named first; otherwise the node whose error arrived first."""
    time.sleep(SETTLE_S)  # let every node's death or error land before choosing
    dead = [n for n in nodes.values() if n.died()]
    if dead:
        node = dead[0]
        return NetFailure(f"node {node.name} died ({node.exit_note()}); then: {exc}",
                          node.name, node.stderr_tail())
    words = str(exc).split()
    said = words[1].rstrip(":") if len(words) > 1 and words[0] == "node" else None
    name = said if said in nodes else None
    stderr = nodes[name].stderr_tail() if name in nodes else ""
    return NetFailure(str(exc), name, stderr)
