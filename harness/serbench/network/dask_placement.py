"""Nodes on the workers of a Dask distributed cluster (`serbench run PLAN --cluster ADDRESS`).

Dask is only the means of reaching hosts: every node is started through `Client.run` on the
worker it is placed on (a function run in the worker process, outside Dask's task queue,
never a task), as `python -m serbench.network.lease` wrapping the worker's own build of the
driver's `listen`, in a new session, listening on the worker's own address (never 0.0.0.0).
The harness then talks to the node over TCP exactly as on one machine: the cell runner sees
only `Placement.launch` -> a node with an address.

Placement: node i of a cell goes to worker i // nodes_per_worker of the chosen workers (the
plan's `cluster_workers` in that order, else every worker of the cluster sorted by name); a
cell needing more nodes than that fails naming what is missing.

Teardown: `close` kills each node's whole process group through its worker. A lease covers the
rest: the harness renews every node's lease every LEASE_S / 4 s; a node whose worker dies (the
lease pipe closes) or whose harness stops renewing (LEASE_S s) is killed with its group by its
own wrapper (`lease.py`).

Before anything is timed (`Cluster.check`), every chosen worker must run the harness's serbench
commit and drivers whose `info` equals the harness's; each worker's host facts (hostname, CPU,
cores, memory, kernel) are recorded in every cell's counters (`placement.describe()`), with
the rate measured between each placed pair of hosts (`wired`: dialer's worker to acceptor's,
probed once per run). Files: the nodes read their inputs and write their outputs at the
paths the harness gives. Per cell, `share` finds out which workers see the harness's work
directory (a probe written here, read there): those share its filesystem, and every input
must be the same file there (sha256) or the cell fails naming the host; to the others the
inputs are copied to the same paths (Client.run, 8 MiB at a time, verified by sha256), and
after the cell `collect` brings back what their nodes wrote (verified likewise), `clean`
removes their copy of the work directory and `Cluster.close` the copied inputs at the run's
end.

Single-machine cells (`units`): every batch's cells (runner.py) go to the workers as one Dask
task each, run in the worker process by its own checkout and drivers; each task holds the
worker's one UNIT_RESOURCE, so Dask runs one unit at a time per host and decides which host
runs which. A unit's datasets must be on every worker first (`provide`: the same file by
sha256, or copied as the nodes' inputs are). A unit whose worker dies is not measured again
elsewhere: `worker_unit` marks where each began, and the harness fails its cells naming that
host; every wait is bounded by the workers' and the scheduler's presence.

Security: a `tls://` scheduler address with the plan's (or environment's) certificate files
passed to Dask's `Security`. Each cell's token travels to the workers as an argument of
`worker_start` (over Dask's comm, encrypted with tls://) and reaches the node in its
environment; see the README's cluster section for what is exposed.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import os
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..ids import IdError, id_problem, shown, under
from ..paths import REPO
from .namespaces import receive_rate
from .placement import NodeProcess, Placement, PlacementError, start_listening

SHIP_CHUNK = 8 << 20  # bytes per Client.run when a file is copied to or from a worker
HASH_BYTES_PER_S = 50e6  # the least rate a worker reads and hashes a file at: bounds the wait
UNIT_RESOURCE = "serbench"  # a worker holds one: Dask runs one unit at a time on it
UNIT_MARK = "serbench-unit"  # the scheduler's metadata (and task keys) of the units
POLL_S = 0.5  # how often the harness looks at the units under way
LEASE_S = 20.0  # a node outlives its harness by at most this long
CONNECT_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 10.0  # one Client.run round trip
START_TIMEOUT_S = 40.0  # a node's start: it has 30 s to print its address
TLS_ENV = {"ca": "SERBENCH_CLUSTER_TLS_CA", "cert": "SERBENCH_CLUSTER_TLS_CERT",
           "key": "SERBENCH_CLUSTER_TLS_KEY"}


class ClusterError(PlacementError):
    """The cluster cannot be used as the plan asks (unreachable, missing or mismatched
    workers); the message names the host."""


# ---------------------------------------------------------------------------------------------
# worker side: run in the worker process by Client.run (this module is imported there, so the
# worker runs serbench from its own checkout, whose commit the harness compares)

_NODES: dict[str, NodeProcess] = {}


def _worker_host(dask_worker) -> str:
    from distributed.comm.addressing import get_address_host
    return get_address_host(dask_worker.address)


def driver_on_worker(relative: str) -> str:
    """The harness's driver path as this host has it: under this checkout when the harness's
    was under its own, else the same absolute path."""
    path = Path(relative)
    return str(path if path.is_absolute() else REPO / path)


async def worker_start(key: str, name: str, driver: str, lease_s: float, token: str,
                       dask_worker=None) -> dict:
    """Starts a node under its lease; `token` came as an argument through Dask's comm (TLS
    with a tls:// cluster) and reaches the node in its environment, as on one machine."""
    host = _worker_host(dask_worker)
    command = [sys.executable, "-m", "serbench.network.lease", f"{lease_s:g}", "--",
               driver_on_worker(driver), "listen", "--address", f"{_bracket(host)}:0"]
    loop = asyncio.get_running_loop()
    node = await loop.run_in_executor(None, lambda: start_listening(name, command, token,
                                                                    stdin=subprocess.PIPE))
    _NODES[key] = node
    return {"address": node.address, "pid": node.proc.pid}


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def worker_renew(keys: list[str]) -> dict[str, str | None]:
    """Renews the nodes' leases; how each one ended, if it has."""
    notes = {}
    for key in keys:
        node = _NODES.get(key)
        if node is None:
            notes[key] = "unknown to this worker (restarted?)"
            continue
        try:
            node.proc.stdin.write(b".")
            node.proc.stdin.flush()
        except (OSError, ValueError):
            pass
        notes[key] = node.exit_note()
    return notes


def worker_poll(keys: list[str]) -> dict[str, str | None]:
    return {key: (_NODES[key].exit_note() if key in _NODES else "unknown to this worker")
            for key in keys}


def worker_wait(keys: list[str], timeout_s: float) -> dict[str, str | None]:
    deadline = time.monotonic() + timeout_s
    for key in keys:
        node = _NODES.get(key)
        if node is not None:
            try:
                node.proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
    return worker_poll(keys)


def worker_stderr(key: str) -> str:
    node = _NODES.get(key)
    return node.stderr_tail() if node else ""


def worker_kill(keys: list[str]) -> dict[str, str | None]:
    """Kills each node's process group (wrapper and driver) and forgets it."""
    notes = {}
    for key in keys:
        node = _NODES.pop(key, None)
        if node is None:
            continue
        node.kill()
        if node.proc.stdin:
            try:
                node.proc.stdin.close()
            except OSError:
                pass
        notes[key] = node.exit_note()
    return notes


def worker_facts(drivers: dict[str, str]) -> dict:
    """This host: its provenance, serbench commit and each driver's `info`."""
    from ..provenance import git_state, host
    infos = {}
    for language, relative in drivers.items():
        path = driver_on_worker(relative)
        try:
            proc = subprocess.run([path, "info"], capture_output=True, timeout=60,
                                  start_new_session=True)
            infos[language] = (json.loads(proc.stdout) if proc.returncode == 0 else
                               {"error": f"{path} info: exit {proc.returncode}: "
                                         f"{proc.stderr.decode(errors='replace')[-300:]}"})
        except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
            infos[language] = {"error": f"{path} info: {exc}"}
    return {"host": host(), "git": git_state(), "infos": infos, "python": sys.executable}


def worker_unit(mark: str, function, *args) -> dict:
    """A unit as a Dask task on this worker: `function(*args)`, at most once. Dask starts a
    task again elsewhere when its worker dies; a unit that already began on another worker
    answers that worker instead (the scheduler's metadata holds where each began), so its
    cells fail naming the host, never measured twice."""
    from distributed import get_client, get_worker
    here = get_worker().address
    client = get_client()
    began = client.get_metadata([UNIT_MARK, mark], None)
    if began is not None:
        return {"lost": began}
    client.set_metadata([UNIT_MARK, mark], here)
    return {"worker": here, "answer": function(*args)}


_HASHES: dict[tuple, str] = {}


def file_sha256(path: str) -> str | None:
    """The file's sha256 (cached by path, size and mtime), None when it is missing."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    key = (path, stat.st_size, stat.st_mtime_ns)
    if key not in _HASHES:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        _HASHES[key] = digest.hexdigest()
    return _HASHES[key]


async def worker_share(files: list[str], probe: str) -> dict:
    """What this worker sees of the harness's files: each one's sha256 and the probe's text
    (hashed off the worker's event loop, which a large dataset would hold for minutes)."""
    try:
        probe_text = Path(probe).read_text()
    except OSError as exc:
        probe_text = f"unreadable: {exc}"
    digests = await asyncio.get_running_loop().run_in_executor(
        None, lambda: {f: file_sha256(f) for f in files})
    return {"files": digests, "probe": probe_text}


def worker_put(path: str, offset: int, data: bytes) -> str | None:
    """Writes `data` at `offset` of `path` (made with its directories; offset 0 truncates);
    the file's sha256 once written."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "r+b" if offset else "wb") as f:
        f.seek(offset)
        f.write(data)
    return None


def worker_mkdir(path: str) -> None:
    Path(path).mkdir(parents=True, exist_ok=True)


def facts_problem(facts) -> str | None:
    """What makes a worker's answer to the check (`worker_facts`) unusable, or None: the
    answer of a worker that is not serbench's, or a host name that is no host name (it is
    printed, and recorded with every cell the host runs)."""
    if not isinstance(facts, dict) or not all(
            isinstance(facts.get(key), dict) for key in ("git", "infos", "host")):
        return "answers serbench's check with something else than its facts"
    hostname = facts["host"].get("hostname")
    problem = hostname is not None and (id_problem("host name", hostname)
                                        if isinstance(hostname, str) else "not text")
    return f"reports the host name {shown(hostname)}: {problem}" if problem else None


def worker_list(directory: str) -> dict[str, int]:
    """Every file under `directory`, by path, with its size."""
    root = Path(directory)
    return {str(f): f.stat().st_size for f in sorted(root.rglob("*")) if f.is_file()} \
        if root.is_dir() else {}


def worker_get(path: str, offset: int, size: int) -> bytes:
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read(size)


def worker_remove(paths: list[str]) -> None:
    for path in paths:
        Path(path).unlink(missing_ok=True)


def worker_rmtree(directory: str) -> None:
    import shutil
    shutil.rmtree(directory, ignore_errors=True)


_SINKS: dict[str, dict] = {}
PROBE_S = 0.25  # each link probe's timed send, after PROBE_WARM_BYTES
PROBE_WARM_BYTES = 4 << 20


def worker_sink(token: str, dask_worker=None) -> int:
    """A one-connection sink on this worker's address; its port. The rate it saw lands in
    `_SINKS[token]` (bits per second after the first PROBE_WARM_BYTES)."""
    import socket
    server = socket.create_server((_worker_host(dask_worker), 0))
    server.settimeout(CALL_TIMEOUT_S)
    result: dict = {}
    _SINKS[token] = result

    def drain() -> None:
        try:
            conn, _ = server.accept()
            with conn:
                conn.settimeout(CALL_TIMEOUT_S)
                bits = receive_rate(conn, PROBE_WARM_BYTES)
                if bits is not None:
                    result["bits"] = bits
        except OSError as exc:
            result["error"] = str(exc)
        finally:
            server.close()
    result["thread"] = threading.Thread(target=drain, daemon=True)
    result["thread"].start()
    return server.getsockname()[1]


async def worker_send(host: str, port: int) -> None:
    """Sends to a sink for PROBE_S after its first PROBE_WARM_BYTES, then closes."""
    import socket

    def send() -> None:
        chunk = bytes(1 << 20)
        with socket.create_connection((host, port), timeout=CALL_TIMEOUT_S) as conn:
            sent, until = 0, None
            while until is None or time.perf_counter() < until:
                conn.sendall(chunk)
                sent += len(chunk)
                if until is None and sent >= PROBE_WARM_BYTES:
                    until = time.perf_counter() + PROBE_S
    await asyncio.get_running_loop().run_in_executor(None, send)


def worker_sink_result(token: str) -> dict:
    result = _SINKS.pop(token, {})
    if "thread" in result:
        result.pop("thread").join(CALL_TIMEOUT_S)
    return result


# ---------------------------------------------------------------------------------------------
# harness side


@dataclass
class ClusterSettings:
    """The plan's `cluster*` keys (the command line's --cluster wins over `address`)."""

    address: str = ""
    workers: tuple[str, ...] = ()  # by name, in placement order; () = every worker by name
    nodes_per_worker: int = 1
    tls_ca: str = ""
    tls_cert: str = ""
    tls_key: str = ""

    def security(self):
        """Dask's Security from the plan's certificate files, else the environment's
        (SERBENCH_CLUSTER_TLS_*), else Dask's own configuration (DASK_DISTRIBUTED__COMM__TLS__*
        or its config files); a tls:// address without any certificate is refused."""
        from distributed.security import Security
        files = {k: getattr(self, f"tls_{k}") or os.environ.get(env, "")
                 for k, env in TLS_ENV.items()}
        if any(files.values()):
            missing = [k for k, v in files.items() if not v]
            if missing:
                raise ClusterError(f"cluster TLS needs a CA, a certificate and a key; missing: "
                                   f"{', '.join(missing)} (plan cluster_tls_* or "
                                   f"{', '.join(TLS_ENV[m] for m in missing)})")
            for kind, path in files.items():
                if not Path(path).is_file():
                    raise ClusterError(f"cluster TLS {kind} file {path} does not exist")
            return Security(tls_ca_file=files["ca"], tls_client_cert=files["cert"],
                            tls_client_key=files["key"], require_encryption=True)
        security = Security()
        if self.address.startswith("tls://") and not security.tls_ca_file:
            raise ClusterError(f"{self.address} is a TLS address but no certificate is given: "
                               f"set cluster_tls_ca/_cert/_key in the plan or "
                               f"{', '.join(TLS_ENV.values())}")
        return security


@dataclass
class Worker:
    name: str
    address: str
    facts: dict = field(default_factory=dict)

    @property
    def host(self) -> str:
        return self.facts.get("host", {}).get("hostname") or self.address

    def label(self) -> str:
        return f"worker {self.name} on host {self.host} ({self.address})"

    def describe(self) -> dict:
        """What a cell records of the host it ran on (its worker, address and facts)."""
        return {"worker": self.name, "address": self.address,
                **{k: self.facts.get("host", {}).get(k) for k in HOST_KEYS}}


class Cluster:
    """One connection to the scheduler for the whole run, its chosen workers checked once."""

    def __init__(self, settings: ClusterSettings):
        from distributed import Client
        self.settings = settings
        try:
            self.client = Client(settings.address, timeout=CONNECT_TIMEOUT_S,
                                 security=settings.security(), set_as_default=False)
        except ClusterError:
            raise
        except Exception as exc:  # OSError, TimeoutError, a TLS refusal, ...
            raise ClusterError(f"cannot reach the Dask scheduler at {settings.address}: "
                               f"{type(exc).__name__}: {exc}") from None
        self.workers: list[Worker] = []
        self.drivers: dict[str, str] = {}  # language -> its driver as checked (checkout-relative)
        self.checked = False
        self._leases: dict[str, list[str]] = {}  # worker address -> node keys
        self.link_bits: dict[tuple[str, str], float] = {}  # (from, to) worker name -> rate
        self.shipped: dict[str, set[str]] = {}  # worker address -> input files copied there
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._renewer = threading.Thread(target=self._renew_loop, daemon=True)
        self._renewer.start()

    def choose(self) -> list[Worker]:
        """The workers nodes go to, in placement order."""
        found = {info.get("name"): address for address, info in
                 self.client.scheduler_info(n_workers=-1)["workers"].items()}
        names = {str(k): v for k, v in found.items()}
        if self.settings.workers:
            missing = [w for w in self.settings.workers if w not in names]
            if missing:
                raise ClusterError(
                    f"worker{'s' if len(missing) > 1 else ''} {', '.join(missing)} named by the "
                    f"plan {'are' if len(missing) > 1 else 'is'} not in the cluster at "
                    f"{self.settings.address} (it has: {', '.join(sorted(names)) or 'none'})")
            chosen = list(self.settings.workers)
        else:
            chosen = sorted(names)
        if not chosen:
            raise ClusterError(f"the cluster at {self.settings.address} has no workers")
        return [Worker(name, names[name]) for name in chosen]

    def check(self, drivers: dict[str, Path]) -> None:
        """Every chosen worker's serbench commit and driver `info` against the harness's; a
        mismatch names the host. Done once per run, before the first cell is timed."""
        if self.checked:
            return
        self.workers = self.choose()
        self.drivers = {lang: _relative(path) for lang, path in drivers.items()}
        mine = worker_facts(self.drivers)
        facts = self.run_each(worker_facts, self.drivers)
        problems = []
        for worker in self.workers:
            worker.facts = facts[worker.address]
            if isinstance(worker.facts, Exception):
                problems.append(f"worker {worker.name} ({worker.address}) cannot run serbench's "
                                f"check: {type(worker.facts).__name__}: {worker.facts} (was it "
                                f"started with the .venv/bin/dask of a serbench checkout?)")
                worker.facts = {}
                continue
            problem = facts_problem(worker.facts)
            if problem:
                problems.append(f"worker {worker.name} ({worker.address}) {problem}")
                worker.facts = {}
                continue
            commit = worker.facts["git"].get("commit")
            if commit != mine["git"]["commit"]:
                problems.append(f"{worker.label()} runs serbench commit {commit}, the harness "
                                f"{mine['git']['commit']}")
            for language, info in mine["infos"].items():
                theirs = worker.facts["infos"].get(language)
                if theirs != info:
                    problems.append(f"{worker.label()}: its {language} driver's info differs "
                                    f"from the harness's ({_first_difference(info, theirs)})")
        if problems:
            raise ClusterError("the cluster's hosts do not match the harness: "
                               + "; ".join(problems))
        self.checked = True

    def check_units(self) -> None:
        """Every chosen worker holds exactly one UNIT_RESOURCE, so Dask gives it one unit at a
        time; one that does not is named."""
        found = self.client.scheduler_info(n_workers=-1)["workers"]
        held = {w.label(): (found.get(w.address) or {}).get("resources", {}).get(UNIT_RESOURCE)
                for w in self.workers}
        wrong = [f"{label} holds " + (f"{UNIT_RESOURCE}={count}" if count else "none")
                 for label, count in held.items() if count != 1]
        if wrong:
            raise ClusterError(f"every worker must be started with --resources "
                               f"{UNIT_RESOURCE}=1 (one unit measured at a time on a host): "
                               + "; ".join(wrong))

    def provide(self, files: list[Path]) -> None:
        """Makes every chosen worker see `files` (the units' datasets) as the harness does: a
        worker with each at the same path and the same sha256 (a shared filesystem, or a copy
        of its own) uses it; a file it lacks is copied there (removed at the end of the run);
        a file that differs there is named with its host, never overwritten."""
        mine = {str(f): file_sha256(str(f)) for f in files}
        seen = self.run(worker_share, list(mine), "", workers=[w.address for w in self.workers],
                        timeout_s=_hash_timeout(files))
        for worker in self.workers:
            answer = seen[worker.address]
            if isinstance(answer, Exception):
                raise ClusterError(f"{worker.label()}: {type(answer).__name__}: {answer}")
            for path, digest in mine.items():
                theirs = answer["files"].get(path)
                if theirs is None:
                    self.ship(worker, Path(path), digest)
                elif theirs != digest:
                    raise ClusterError(f"{worker.label()}: {path} differs there (sha256 "
                                       f"{theirs}, here {digest}); serbench does not overwrite "
                                       f"a host's data: remove it there or make it the same")

    def ship(self, worker: "Worker", path: Path, digest: str) -> None:
        """Copies a file of the harness's to the same path on the worker (SHIP_CHUNK per
        call), verified by sha256; removed at the end of the run (`close`)."""
        with open(path, "rb") as f:
            offset = 0
            while True:
                chunk = f.read(SHIP_CHUNK)
                if not chunk and offset:
                    break
                self.call(worker, worker_put, str(path), offset, chunk)
                offset += len(chunk)
                if not chunk:
                    break
        there = self.call(worker, worker_share, [str(path)], "",
                          timeout_s=_hash_timeout([path]))["files"][str(path)]
        if there != digest:
            raise ClusterError(f"{worker.label()}: {path} copied, but reads back with sha256 "
                               f"{there}, not {digest}")
        self.shipped.setdefault(worker.address, set()).add(str(path))

    def call(self, worker: "Worker", function, *args, timeout_s: float = CALL_TIMEOUT_S):
        """`function(*args)` on one worker; its answer, or a ClusterError naming the host."""
        answer = self.run(function, *args, workers=[worker.address],
                          timeout_s=timeout_s)[worker.address]
        if isinstance(answer, Exception):
            raise ClusterError(f"{worker.label()}: {function.__name__}: "
                               f"{type(answer).__name__}: {answer}")
        return answer

    def units(self, function, units: list) -> Iterator[tuple[int, "Worker | None", object]]:
        """`function(unit)` for every unit, each a Dask task on the chosen workers holding
        their UNIT_RESOURCE (one unit at a time per worker; Dask decides which runs which).
        Yields (index, worker, answer) as each unit ends: its answer, or a ClusterError naming
        the host it failed on. Every wait is bounded: a unit whose worker died fails; when
        no chosen worker is left or the scheduler is lost, the units still waiting fail."""
        run = secrets.token_hex(6)
        addresses = [w.address for w in self.workers]
        pending = {self.client.submit(worker_unit, f"{run}-{i}", function, unit,
                                      key=f"{UNIT_MARK}-{run}-{i}", workers=addresses,
                                      resources={UNIT_RESOURCE: 1}, pure=False): i
                   for i, unit in enumerate(units)}
        submitted = list(pending)
        try:
            while pending:
                ended = [f for f in pending if f.done()]
                for future in ended:
                    i = pending.pop(future)
                    yield i, *self._unit_answer(future, f"{run}-{i}")
                gone = None if ended else self._workers_gone(addresses)
                for future in list(pending) if gone else ():
                    yield pending.pop(future), None, ClusterError(gone)
                if pending and not ended:
                    time.sleep(POLL_S)
        finally:  # the answers taken, and those never to come (Ctrl-C, no worker left)
            try:
                self.client.cancel(submitted)
            except Exception:  # the scheduler is gone, and its tasks with it
                pass

    def _unit_answer(self, future, mark: str) -> tuple["Worker | None", object]:
        """The worker a unit ran on and its answer, or a ClusterError naming the host."""
        try:
            answer = future.result(timeout=CALL_TIMEOUT_S)
        except Exception as exc:  # raised on its worker, or cancelled with the scheduler
            worker = self._worker_at(self._began(mark))
            where = worker.label() if worker else f"the cluster at {self.settings.address}"
            return worker, ClusterError(f"the unit failed on {where}: "
                                        f"{type(exc).__name__}: {exc}")
        if "lost" in answer:
            worker = self._worker_at(answer["lost"])
            return worker, ClusterError(f"{worker.label() if worker else answer['lost']} died or "
                                        "left while measuring these cells (not measured again "
                                        "elsewhere)")
        return self._worker_at(answer["worker"]), answer["answer"]

    def _began(self, mark: str) -> str | None:
        """The address of the worker a unit began on (worker_unit's mark), if known."""
        try:
            return self.client.get_metadata([UNIT_MARK, mark], None)
        except Exception:  # the scheduler is gone with its metadata
            return None

    def _worker_at(self, address: str | None) -> "Worker | None":
        return next((w for w in self.workers if w.address == address), None)

    def _workers_gone(self, addresses: list[str]) -> str | None:
        """Why no unit can end any more (no chosen worker left, the scheduler lost), or None."""
        try:
            present = set(self.client.scheduler_info(n_workers=-1)["workers"])
        except Exception as exc:
            return f"the scheduler at {self.settings.address} is lost: {type(exc).__name__}: {exc}"
        if present & set(addresses):
            return None
        return (f"every chosen worker left the cluster at {self.settings.address} "
                f"({', '.join(w.label() for w in self.workers)})")

    def run_each(self, function, *args, workers: list[Worker] | None = None) -> dict:
        """`function(*args)` on every chosen worker, each answer or exception by address."""
        addresses = [w.address for w in (workers or self.workers)]
        return self.run(function, *args, workers=addresses)

    def run(self, function, *args, workers: list[str], timeout_s: float = CALL_TIMEOUT_S,
            **kwargs) -> dict:
        """Each worker's answer or exception, by address: a worker the scheduler no longer has
        (dead, killed) answers at once with a LookupError, not after a connect timeout."""
        try:
            present = set(self.client.scheduler_info(n_workers=-1)["workers"])
            alive = [a for a in workers if a in present]
            answers = self.client.sync(self.client._run, function, *args, workers=alive,
                                       on_error="return", callback_timeout=timeout_s,
                                       **kwargs) if alive else {}
        except Exception as exc:  # the scheduler unreachable, a timeout
            return {address: exc for address in workers}
        return {a: answers.get(a, LookupError("the scheduler no longer has this worker "
                                              "(it died or left)")) for a in workers}

    def link(self, sender: Worker, receiver: Worker) -> float:
        """The measured rate from one worker to another (bits/s), probed once per run: a
        sink on the receiver's address, PROBE_S of sending from the sender."""
        pair = (sender.name, receiver.name)
        if pair not in self.link_bits:
            token = secrets.token_hex(6)
            port = self.run(worker_sink, token, workers=[receiver.address])[receiver.address]
            if isinstance(port, Exception):
                raise ClusterError(f"link probe: {receiver.label()}: {port}")
            from distributed.comm.addressing import get_address_host
            sent = self.run(worker_send, get_address_host(receiver.address), port,
                            workers=[sender.address])[sender.address]
            result = self.run(worker_sink_result, token,
                              workers=[receiver.address])[receiver.address]
            if isinstance(sent, Exception) or isinstance(result, Exception) \
                    or "bits" not in result:
                why = sent if isinstance(sent, Exception) else result
                raise ClusterError(f"link probe from {sender.label()} to {receiver.label()} "
                                   f"failed: {why}")
            self.link_bits[pair] = result["bits"]
        return self.link_bits[pair]

    def lease(self, address: str, key: str) -> None:
        with self._lock:
            self._leases.setdefault(address, []).append(key)

    def release(self, address: str, key: str) -> None:
        with self._lock:
            keys = self._leases.get(address, [])
            if key in keys:
                keys.remove(key)

    def _renew_loop(self) -> None:
        while not self._stop.wait(LEASE_S / 4):
            with self._lock:
                leases = {a: list(k) for a, k in self._leases.items() if k}
            for address, keys in leases.items():
                self.run(worker_renew, keys, workers=[address])

    def close(self) -> None:
        """Removes the input files copied to workers during the run and disconnects."""
        self._stop.set()
        for address, paths in self.shipped.items():
            self.run(worker_remove, sorted(paths), workers=[address])
        self.shipped.clear()
        try:
            self.client.close(timeout=10)
        except Exception:
            pass


def _hash_timeout(files: list) -> float:
    """How long a worker may take to hash `files`: CALL_TIMEOUT_S, and their bytes at
    HASH_BYTES_PER_S."""
    return CALL_TIMEOUT_S + sum(Path(f).stat().st_size for f in files) / HASH_BYTES_PER_S


def _relative(path: Path) -> str:
    path = Path(path).resolve()
    try:
        return str(path.relative_to(REPO.resolve()))
    except ValueError:
        return str(path)


def _first_difference(a: dict, b: dict | None) -> str:
    if b is None:
        return "it has no such driver"
    if "error" in b:
        return b["error"]
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            return f"{key}: {json.dumps(b.get(key))[:120]} there, {json.dumps(a.get(key))[:120]} here"
    return "?"


class RemoteNode(NodeProcess):
    """A node started on a worker: its state, stderr and teardown go through the worker; a
    worker that is gone answers nothing, which is said with its name and host."""

    def __init__(self, name: str, address: str, worker: Worker, key: str, cluster: Cluster,
                 pid: int = 0):
        super().__init__(name, address, None, None)
        self.worker, self.key, self.cluster = worker, key, cluster
        self.pid = pid  # the lease wrapper's, the leader of the node's process group
        self._note: str | None = None

    def _call(self, function, *args):
        answer = self.cluster.run(function, *args, workers=[self.worker.address])
        return answer.get(self.worker.address, KeyError(self.worker.address))

    def exit_note(self) -> str | None:
        if self._note:
            return self._note
        answer = self._call(worker_poll, [self.key])
        if isinstance(answer, Exception):
            self._note = (f"lost with {self.worker.label()}: "
                          f"{type(answer).__name__}: {answer}".rstrip(": "))
            return self._note
        note = answer.get(self.key)
        if note:
            self._note = f"{note} on {self.worker.label()}"
        return self._note

    def died(self) -> bool:
        note = self.exit_note()
        return bool(note) and ("signal" in note or note.startswith("lost"))

    def wait(self, timeout_s: float) -> None:
        self._call(worker_wait, [self.key], timeout_s)

    def stderr_tail(self) -> str:
        answer = self._call(worker_stderr, self.key)
        return "" if isinstance(answer, Exception) else answer

    def kill(self) -> None:
        self._call(worker_kill, [self.key])
        self.cluster.release(self.worker.address, self.key)


class DaskPlacement(Placement):
    """The nodes of one cell on the cluster's chosen workers, node i on worker
    i // nodes_per_worker."""

    def __init__(self, cluster: Cluster):
        super().__init__()
        self.cluster = cluster
        self.used: dict[str, Worker] = {}  # node name -> its worker
        self.measured: dict[str, float] = {}  # "from->to" worker names -> bits/s
        self.private: dict[str, Worker] = {}  # address -> a worker not sharing the work dir
        self.work: Path | None = None

    def launch(self, index: int, name: str, driver: Path, token: str) -> NodeProcess:
        workers, per = self.cluster.workers, self.cluster.settings.nodes_per_worker
        if index >= len(workers) * per:
            raise ClusterError(
                f"node {name} is node {index + 1} of the cell; the cluster at "
                f"{self.cluster.settings.address} has {len(workers)} chosen worker(s) "
                f"({', '.join(w.name for w in workers)}) and the plan allows {per} node(s) "
                f"per worker (cluster_nodes_per_worker): worker #{index // per + 1} is missing")
        worker = workers[index // per]
        key = f"{name}-{secrets.token_hex(6)}"
        answer = self.cluster.run(worker_start, key, name, _relative(driver), LEASE_S, token,
                                  workers=[worker.address],
                                  timeout_s=START_TIMEOUT_S)[worker.address]
        if isinstance(answer, Exception):
            raise ClusterError(f"node {name}: cannot start on {worker.label()}: "
                               f"{type(answer).__name__}: {answer}")
        self.cluster.lease(worker.address, key)
        self.used[name] = worker
        return RemoteNode(name, answer["address"], worker, key, self.cluster, answer["pid"])

    def wired(self, pairs: list[tuple[str, str]]) -> None:
        """Measures each placed pair of hosts (dialer's worker to acceptor's; once per run),
        so the cell's counters hold the rates its links had."""
        for dialer, acceptor in pairs:
            a, b = self.used[dialer], self.used[acceptor]
            if a.name != b.name:
                self.measured[f"{a.name}->{b.name}"] = self.cluster.link(a, b)

    def describe(self) -> dict:
        return {"network": "cluster", "shaped": False, "delay_emulated": False,
                "cluster": self.cluster.settings.address,
                "measured_bit": {pair: round(bits) for pair, bits in self.measured.items()},
                "files_copied_to": sorted(w.name for w in self.private.values()),
                "hosts": {name: w.describe() for name, w in self.used.items()}}

    def share(self, files: list[Path], work: Path) -> None:
        """Makes every chosen worker see `files` (the cell's node inputs) and the work
        directory as the harness does. A worker that sees the harness's work directory (a probe
        written here, read there) shares its filesystem: its inputs must then be the same
        files (sha256), or the cell fails naming the host. A worker that does not gets the work
        directory made and each input copied to the same path (verified by sha256); its
        outputs come back by `collect`."""
        probe = work / f".probe-{secrets.token_hex(6)}"
        token = secrets.token_hex(16)
        probe.write_text(token)
        try:
            mine = {str(f): file_sha256(str(f)) for f in files}
            seen = self.cluster.run_each(worker_share, list(mine), str(probe))
        finally:
            probe.unlink(missing_ok=True)
        self.work = work
        for worker in self.cluster.workers:
            answer = seen[worker.address]
            if isinstance(answer, Exception):
                raise ClusterError(f"{worker.label()}: {type(answer).__name__}: {answer}")
            if answer["probe"] != token:
                self.private[worker.address] = worker
                self.cluster.call(worker, worker_mkdir, str(work))
            for path, digest in mine.items():
                theirs = answer["files"].get(path)
                if theirs == digest:
                    continue
                if worker.address not in self.private:
                    what = "is missing" if theirs is None else "differs"
                    raise ClusterError(f"{worker.label()}: node input {path} {what} there "
                                       f"(sha256 {digest} here), though it shares the run's "
                                       f"work directory")
                self.cluster.ship(worker, Path(path), digest)

    def collect(self) -> None:
        """Brings back what the nodes wrote in the work directory of workers that do not
        share it (the outputs the harness reads back), each verified by sha256."""
        for worker in self.private.values():
            for path, size in self.cluster.call(worker, worker_list, str(self.work)).items():
                local = self._inside_work(worker, path)
                if local.is_file() and local.stat().st_size == size and \
                        file_sha256(path) == self.cluster.call(worker, worker_share, [path],
                                                        "")["files"][path]:
                    continue  # an input the harness wrote
                local.parent.mkdir(parents=True, exist_ok=True)
                with open(local, "wb") as f:
                    for offset in range(0, size, SHIP_CHUNK):
                        f.write(self.cluster.call(worker, worker_get, path, offset, SHIP_CHUNK))
                theirs = self.cluster.call(worker, worker_share, [path], "")["files"][path]
                if file_sha256(path) != theirs:
                    raise ClusterError(f"{worker.label()}: {path} came back different "
                                       f"(sha256 {file_sha256(path)}, there {theirs})")

    def _inside_work(self, worker: Worker, path) -> Path:
        """A path a worker reports under the work directory, refused if it leads anywhere
        else (the harness writes what comes back there)."""
        try:
            return under(self.work, os.path.relpath(str(path), self.work))
        except (IdError, ValueError):
            raise ClusterError(f"{worker.label()}: reported {shown(path)} as a file of the "
                               f"run's work directory {self.work}; refused") from None

    def clean(self) -> None:
        """Removes the work directory's copy on every worker that had one."""
        for worker in self.private.values():
            self.cluster.run(worker_rmtree, str(self.work), workers=[worker.address])


HOST_KEYS = ("hostname", "cpu_model", "logical_cores", "usable_cores", "memory_bytes", "kernel",
             "os", "machine")
