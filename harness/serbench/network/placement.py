"""Where node programs run. A placement starts one `<driver> listen` per node and returns
its reachable address; the cell runner knows nothing else about it, so putting the same nodes
in network namespaces or on Dask workers is another placement, not another runner.

`LocalPlacement` starts every node as a child process on loopback, each in its own session
(its whole process group is killed on teardown, also when the cell fails).

Every node gets its cell's token in its environment (TOKEN_ENV), never on its command line,
which other users see (`ps`); it admits only connections presenting it (PROTOCOL.md 10.2).
"""
from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

from ..drivers.process import StderrTail, kill_group


ADDRESS_TIMEOUT_S = 30.0
TOKEN_ENV = "SERBENCH_NODE_TOKEN"


class PlacementError(RuntimeError):
    """A node could not be started or did not say where it listens."""


@dataclass
class NodeProcess:
    """One started node: its name, the address it printed, and how to stop it."""

    name: str
    address: str
    proc: subprocess.Popen
    stderr: StderrTail

    def exit_note(self) -> str | None:
        """How the process ended, if it has."""
        code = self.proc.poll()
        if code is None:
            return None
        return f"killed by signal {-code}" if code < 0 else f"exit status {code}"

    def died(self) -> bool:
        """Whether it was killed (rather than exiting after an error of its own)."""
        note = self.exit_note()
        return bool(note) and "signal" in note

    def wait(self, timeout_s: float) -> None:
        try:
            self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            pass

    def stderr_tail(self) -> str:
        return self.stderr.text(settle_s=0.2)

    def kill(self) -> None:
        kill_group(self.proc)


def start_listening(name: str, command: list[str], token: str,
                    stdin=subprocess.DEVNULL) -> NodeProcess:
    """Starts `command` (a driver's `listen`) with the cell's `token` in its environment and
    waits for the first stdout line, the JSON object that names the bound address (`stdin`: a
    Dask worker holds a pipe, the lease)."""
    try:
        proc = subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True,
                                env={**os.environ, TOKEN_ENV: token})
    except OSError as exc:
        raise PlacementError(f"node {name}: cannot start {command[0]}: {exc}") from None
    stderr = StderrTail(proc.stderr)
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()
    node = NodeProcess(name, "", proc, stderr)
    try:
        line = lines.get(timeout=ADDRESS_TIMEOUT_S)
        node.address = json.loads(line)["address"]
    except (queue.Empty, ValueError, KeyError, TypeError):
        node.kill()
        raise PlacementError(
            f"node {name}: did not print its address within {ADDRESS_TIMEOUT_S:.0f} s "
            f"({node.exit_note() or 'still running'})\n{stderr.text(0.2).strip()}") from None
    return node


class Placement(ABC):
    """Starts the nodes of one cell and stops them all on `close` (a clean cell has shut
    them down already; anything still running is killed with its process group)."""

    def __init__(self):
        self.nodes: list[NodeProcess] = []

    @abstractmethod
    def launch(self, index: int, name: str, driver: Path, token: str) -> NodeProcess:
        """Starts node `index` of the cell, named `name`, running `driver`'s listen with the
        cell's `token`."""

    @abstractmethod
    def describe(self) -> dict:
        """The network the nodes ran on, for every cell's counters."""

    def share(self, files: list[Path], work: Path) -> None:
        """Makes the cell's node input files and its work directory (outputs) available where
        its nodes run, or raises PlacementError naming the host where they are not; nothing
        to do when the nodes run on this machine."""

    def collect(self) -> None:
        """Brings the outputs the nodes wrote back to where the harness reads them (after a
        cell that ran); nothing to do when the nodes run on this machine."""

    def clean(self) -> None:
        """Removes what `share` put where the nodes run (after every cell)."""

    def wired(self, pairs: list[tuple[str, str]]) -> None:
        """The started nodes' links, (dialer, acceptor) by name, before anything is timed: a
        placement whose links are not its own measures them here (each namespace's link is
        measured when made)."""

    def start(self, name: str, driver: Path, token: str) -> NodeProcess:
        node = self.launch(len(self.nodes), name, driver, token)
        self.nodes.append(node)
        return node

    def close(self) -> None:
        deadline = time.monotonic() + 5.0
        for node in self.nodes:
            node.wait(max(0.0, deadline - time.monotonic()))
            node.kill()
        self.nodes.clear()


class LocalPlacement(Placement):
    """Every node a child process of the harness, listening on loopback."""

    def __init__(self, host: str = "127.0.0.1"):
        super().__init__()
        self.host = host

    def describe(self) -> dict:
        return {"network": "loopback", "shaped": False, "delay_emulated": False}

    def launch(self, index: int, name: str, driver: Path, token: str) -> NodeProcess:
        return start_listening(name, [str(driver), "listen", "--address", f"{self.host}:0"],
                               token)
