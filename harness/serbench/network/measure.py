"""A plan's network cell as the runner records it: the task module builds the nodes' inputs
and expectations, `cell.run_cell` runs it on a placement, the timing node's reports become
the samples (every node's own figures ride along in each sample), and the task's read-back
check decides whether the cell is ok."""
from __future__ import annotations

import shutil
from pathlib import Path

from ..drivers.process import DriverProcess
from ..results import CellResult
from .aggregate import Aggregate, DensityError
from .exchange import InvalidResult, NetFailure, run_cell
from .fetch import Fetch
from .namespaces import NamespaceNetwork, NamespacePlacement, NetworkError, unavailable
from .placement import LocalPlacement, Placement, PlacementError
from .sort_merge import SortMerge


# one module per network task, by id
TASKS = {task.id: task for task in (Fetch(), Aggregate(), SortMerge())}
NODE_FIGURES = ("total_ns", "cpu_ns", "io_ns", "bytes_sent", "bytes_received", "objects",
                "peak_rss_bytes")
# a node with a JIT (Java) says what it compiled meanwhile: steady.py judges each node by it
JIT_FIGURES = ("jit_ms", "jit_cpu_ns")


class Networks:
    """The run's emulated networks, one per link setting, made on first use (each link's
    throughput measured then) and torn down by `close` at the end of the run; or, with a
    cluster, the run's one connection to its Dask scheduler (every network cell's nodes on its
    workers, whatever the cell's network says)."""

    def __init__(self, cluster: "ClusterSettings | None" = None):
        self.made: dict[str, NamespaceNetwork] = {}
        self.cluster_settings = cluster if cluster and cluster.address else None
        self.cluster = None

    def connect(self, drivers: dict[str, Path]):
        """The cluster, connected and its hosts checked against the harness (a mismatch raises
        ClusterError naming the host); None without a cluster."""
        if self.cluster_settings is None:
            return None
        from .dask_placement import Cluster
        if self.cluster is None:
            self.cluster = Cluster(self.cluster_settings)
        self.cluster.check(drivers)
        return self.cluster

    def placement(self, network: str, drivers: dict[str, Path] | None = None) -> Placement:
        if self.cluster_settings is not None:
            from .dask_placement import DaskPlacement
            return DaskPlacement(self.connect(drivers or {}))
        if network == "loopback":
            return LocalPlacement()
        why = unavailable()
        if why:  # said in every cell's counters: measured on loopback instead
            return Fallback(f"{network} asked; {why}: nodes ran on loopback")
        if network not in self.made:
            self.made[network] = NamespaceNetwork(link_rate_bit(network)).create()
        return NamespacePlacement(self.made[network])

    def close(self) -> None:
        for network in self.made.values():
            network.close()
        self.made.clear()
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None


class Fallback(LocalPlacement):
    def __init__(self, note: str):
        super().__init__()
        self.note = note

    def describe(self) -> dict:
        return {**super().describe(), "fallback": self.note}


UNITS = {"kbit": 10**3, "mbit": 10**6, "gbit": 10**9}


def link_rate_bit(network: str) -> int | None:
    """`none` (unshaped veth) or a rate such as `1gbit`, `100mbit`, `2.5gbit`."""
    if network == "none":
        return None
    number, unit = network[:-4], network[-4:]
    return int(float(number) * UNITS[unit])


def measure(cell, base: Path, hashes, drivers: dict[str, Path], scanner: DriverProcess,
            scan_depth: str, work: Path, networks: Networks) -> CellResult:
    """`scanner` (the group's verified driver) reads the outputs back at `scan_depth`."""
    task = TASKS[cell.task]
    work.mkdir(parents=True, exist_ok=True)
    try:
        net_cell = task.net_cell(cell, base, hashes, work)
    except DensityError as exc:
        return CellResult("failed", "no_input", str(exc))
    try:
        placement = networks.placement(cell.network, drivers)
    except NetworkError as exc:
        return CellResult("failed", "network", f"setting up network {cell.network}: {exc}")
    except PlacementError as exc:
        shutil.rmtree(work, ignore_errors=True)
        return CellResult("failed", "network", str(exc))
    try:
        placement.share(node_inputs(task, net_cell), work)
    except PlacementError as exc:
        placement.clean()
        shutil.rmtree(work, ignore_errors=True)
        return CellResult("failed", "network", str(exc))
    try:
        try:
            run = run_cell(task, net_cell, placement, drivers)
        except NetFailure as exc:
            return CellResult("failed", "network", str(exc), exc.stderr or None)
        except InvalidResult as exc:
            return CellResult("invalid", "checksum_mismatch", str(exc))
        try:
            placement.collect()
        except PlacementError as exc:
            return CellResult("failed", "network", f"collecting the nodes' outputs: {exc}")
        problem = task.read_back_problem(net_cell, scanner, scan_depth)
        if problem:
            return CellResult("invalid", "checksum_mismatch", problem)
    finally:
        placement.clean()
        shutil.rmtree(work, ignore_errors=True)
    timing = task.timing_node(net_cell)
    samples = [sample(reports, timing) for reports in run.reports]
    last = run.reports[-1]
    counters = {**task.counters(net_cell, last), **placement.describe(),
                "net_page_bytes": cell.net_page_bytes, "net_frame_bytes": cell.net_frame_bytes,
                **mixed_nodes(task, net_cell, cell)}
    expected = {k: net_cell.params["expected"][k] for k in ("count", "sum")}
    root = last[timing]
    # like for like: a sequence checksum (the sort-merge's expectation) or a set checksum;
    # without decoding on the way, what the read-back scan found (it equals the expectation)
    got = ({"count": root["objects"], "sum": root["sequence"]} if "sequence" in root
           else root.get("checksum") or dict(expected))
    return CellResult("ok", expected=expected, got=got, eviction="none", counters=counters,
                      samples=samples)


def mixed_nodes(task, net_cell, cell) -> dict:
    """In a mixed cell, which language each node ran (a role's nodes take its languages in
    turn, so its setting alone does not say which)."""
    languages = {spec.name: spec.language for spec in task.nodes(net_cell)}
    return {"node_languages": languages} if set(languages.values()) != {cell.language} else {}


def node_inputs(task, cell) -> list[Path]:
    """The files the cell's nodes read: each node's `input` (a file, or a paged file's base
    path: its files)."""
    files: list[Path] = []
    for spec in task.nodes(cell):
        if "input" in spec.params:
            path = Path(spec.params["input"])
            found = [path] if path.is_file() else sorted(path.parent.glob(path.name + ".*"))
            files += [f for f in found if f not in files]
    return files


def sample(reports: dict[str, dict], timing: str) -> dict:
    node = reports[timing]
    return {"rep": node["rep"], "warmup": node["warmup"], "total_ns": node["total_ns"],
            "cpu_ns": node["cpu_ns"], "io_ns": node["io_ns"],
            "nodes": {name: {**{k: r.get(k) for k in NODE_FIGURES},
                             **{k: r[k] for k in JIT_FIGURES if k in r}}
                      for name, r in reports.items()}}
