"""The network tasks across hosts through Dask distributed (`serbench run --cluster`), on one
machine: a real `dask scheduler` on a bridge and three real `dask worker` processes, each in
its own network namespace with its own address on a 1 Gbit/s shaped veth (namespaces.py), so
every node listens on its worker's own address and all traffic crosses the bridge; the third
worker also has a mount namespace of its own in which the run's files are not there (its
nodes' inputs are copied to it and their outputs brought back). Each network task's
checksums through the cluster equal the loopback placement's on the same data; a host
that does not match the harness is named before anything is timed; a worker killed with -9
mid-cell fails the cell within 30 s naming its host, and no node process is left behind; a
node's lease kills it when its worker or its harness is gone; over TLS, nodes share one worker
only when the plan allows it. Single-machine cells run batch by batch on the workers (each
holding one `serbench` resource) and give the cells and checksums of a local run, each naming
its host, no comparison set across two; a worker whose driver differs, or that lacks its one
`serbench` resource, is refused by name; a worker killed mid-unit fails that unit naming it.

The namespace tests are skipped (with the reason) only where namespaces cannot be made (not
root); the lease, resource and TLS tests run anywhere."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from serbench.cell import IDENTITY
from serbench.compare import SET_KEYS
from serbench.drivers.process import env_var
from serbench.network import namespaces
from serbench.network.exchange import NetCell, NetFailure, run_cell
from serbench.network.dask_placement import (UNIT_MARK, Cluster, ClusterError, ClusterSettings,
                                             DaskPlacement)
from serbench.network.fetch import Fetch
from serbench.network.namespaces import NamespaceNetwork
from serbench.results import Results

from conftest import require
from fake_driver import make_dataset
from test_end_to_end import home  # noqa: F401  (the fixture)
from test_network import (fetch_cell, parts, require_namespaces, rust,  # noqa: F401 (fixtures)
                          sparse_dataset)

VENV_BIN = Path(sys.executable).parent
MODELS_THREE = ("trade", "part", "customer")
WORKERS = 3
START_S = 60  # the scheduler and every worker up, or the fixture fails


def _group_alive(pgid: int) -> list[int]:
    """The running (not zombie) processes of process group `pgid`."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


class DaskOnNamespaces:
    """A scheduler on the bridge's gateway and worker node<i> in namespace i-1."""

    def __init__(self, directory: Path):
        self.network = NamespaceNetwork(10**9).create()
        self.procs: dict[str, subprocess.Popen] = {}
        self.logs = directory
        try:
            self._start(directory)
        except BaseException:  # nothing of a cluster that did not start is left
            self.close()
            raise

    def _start(self, directory: Path) -> None:
        scheduler_file = directory / "scheduler.json"
        self._spawn("scheduler", [str(VENV_BIN / "dask"), "scheduler", "--host",
                                  self.network.gateway, "--port", "0", "--no-dashboard",
                                  "--scheduler-file", str(scheduler_file)])
        deadline = time.monotonic() + START_S
        while not scheduler_file.exists():
            self._alive_or_fail("scheduler", deadline)
            time.sleep(0.1)
        time.sleep(0.1)  # the file is written whole, once
        self.address = json.loads(scheduler_file.read_text())["address"]
        # the last worker is a host without the harness's files: in a mount namespace of its
        # own, `private` is an empty tmpfs (the others see what the harness writes there)
        self.private = directory / "private"
        self.private.mkdir()
        for i in range(WORKERS):
            ns = self.network.namespace(i)
            worker = [str(VENV_BIN / "dask"), "worker", self.address, "--name", f"node{i + 1}",
                      "--host", self.network.address(i), "--nthreads", "1", "--no-dashboard",
                      "--no-nanny", "--memory-limit", "0", "--death-timeout", "60",
                      "--resources", "serbench=1"]
            if i == WORKERS - 1:
                worker = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                          f"mount -t tmpfs serbench-private {self.private} && "
                          f"mkdir {self.private / 'runs'} && exec "
                          + " ".join(worker)]
            self._spawn(f"node{i + 1}", ["ip", "netns", "exec", ns, *worker],
                        {**os.environ, "SERBENCH_HOME": str(directory / "workers")})
        from distributed import Client
        try:
            with Client(self.address, timeout=START_S, set_as_default=False) as client:
                client.wait_for_workers(WORKERS, timeout=START_S)
        except Exception as exc:
            logs = {name: (self.logs / f"{name}.log").read_text()[-1500:] for name in self.procs}
            raise RuntimeError(f"the cluster did not come up ({exc}): {logs}") from None

    def _spawn(self, name: str, command: list[str], env: dict | None = None) -> None:
        log = open(self.logs / f"{name}.log", "wb")
        self.procs[name] = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True,
                                            env=env)

    def _alive_or_fail(self, name: str, deadline: float) -> None:
        if self.procs[name].poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{name} did not start: "
                               f"{(self.logs / f'{name}.log').read_text()[-2000:]}")

    def kill(self, name: str) -> None:
        """kill -9 the worker's process (its whole group: `ip netns exec` execs it)."""
        os.killpg(self.procs[name].pid, signal.SIGKILL)
        self.procs[name].wait(10)

    def close(self) -> None:
        for proc in reversed(list(self.procs.values())):
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in self.procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
        self.network.close()


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    require_namespaces()
    made = None
    try:
        try:
            made = DaskOnNamespaces(tmp_path_factory.mktemp("dask"))
        except (RuntimeError, namespaces.NetworkError) as first:
            # once more on a network of its own: another run on this machine may have taken
            # the same free subnet at the same moment
            print(f"the cluster did not start; again: {first}", file=sys.stderr)
            made = DaskOnNamespaces(tmp_path_factory.mktemp("dask"))
        yield made
    finally:
        if made is not None:
            made.close()
        else:
            namespaces.sweep_leftovers()


PLAN = """
name = "cluster"
[params]
rounds_max = 1
page_size = 256
warmups = 1
repetitions = 2
timeout_s = 60
servers = 2
n = [20]
net_page_bytes = 65536
network = "loopback"
EXTRA
[[group]]
tasks = ["net_fetch"]
models = ["part"]
methods = ["handcoded", "json"]
languages = ["rust"]
sources = ["disk", "decode"]
[[group]]
tasks = ["net_sort_merge"]
models = ["part"]
methods = ["handcoded"]
languages = ["rust"]
tree_depth = 2
n = [10]
[[group]]
tasks = ["net_aggregate"]
dataset = "SPARSE"
models = ["sparse"]
methods = ["handcoded"]
languages = ["rust"]
tree_depth = 2
"""


def run_cells(plan: Path, *args: str) -> tuple[list[dict], dict]:
    from test_end_to_end import cli_ok
    run_id = cli_ok("run", str(plan), *args).split()[-1]
    with Results() as results:
        cells = results.cells(run_id)
        params, commit = results.con.execute("SELECT params, git_commit FROM runs WHERE "
                                             "run_id = ?", [run_id]).fetchone()
    return cells, {**json.loads(params), "commit": commit}


def test_every_network_task_on_three_namespaced_workers_matches_the_local_placement(
        home, tmp_path, dask_cluster):
    plan = tmp_path / "cluster.toml"
    plan.write_text(PLAN.replace("SPARSE", str(sparse_dataset(tmp_path / "sparse", 3, 20_000,
                                                                0.01))).replace("EXTRA", ""))
    local, _ = run_cells(plan)
    # the run's files (node inputs, work directories) where worker node3 cannot see them
    (dask_cluster.private / "runs").mkdir()
    shutil.rmtree(home / "runs", ignore_errors=True)
    (home / "runs").symlink_to(dask_cluster.private / "runs")
    remote, provenance = run_cells(plan, "--cluster", dask_cluster.address)
    assert {c["status"] for c in local + remote} == {"ok"}, \
        [c["message"] for c in local + remote if c["status"] != "ok"]
    key = lambda c: (c["task"], c["method"], c["setting"])  # noqa: E731
    assert sorted(map(key, remote)) == sorted(map(key, local))
    assert {c["task"] for c in remote} == {"net_fetch", "net_sort_merge", "net_aggregate"}
    checksums = {key(c): (c["got_count"], c["got_sum"]) for c in local}
    network = dask_cluster.network
    for cell in remote:
        assert (cell["got_count"], cell["got_sum"]) == checksums[key(cell)], key(cell)
        counters = json.loads(cell["counters"])
        assert counters["network"] == "cluster" and counters["cluster"] == dask_cluster.address
        # node3's inputs copied there, its outputs (the fetch's client) brought back
        assert counters["files_copied_to"] == ["node3"]
        hosts = counters["hosts"]
        # node i on worker node<i+1>, listening in its namespace, its host described
        assert sorted(h["worker"] for h in hosts.values()) == ["node1", "node2", "node3"]
        for facts in hosts.values():
            index = int(facts["worker"][4:]) - 1
            assert facts["address"].startswith(f"tcp://{network.address(index)}:")
            assert facts["kernel"] and facts["logical_cores"] >= 1 and facts["memory_bytes"] > 0
            assert facts["hostname"] and "cpu_model" in facts
        # every placed pair of hosts (dialer's worker to acceptor's) measured, on 1 Gbit/s links
        measured = counters["measured_bit"]
        assert len(measured) == 2 and all(0.3e9 < bits <= 1.1e9 for bits in measured.values())
        dialer = "client" if cell["task"] == "net_fetch" else "leaf1"
        assert f"{hosts[dialer]['worker']}->" in next(iter(measured))
    # nothing of the run is left on node3 (its work directories and copied inputs removed)
    assert workers_list(dask_cluster, "node3", dask_cluster.private / "runs") == {}
    workers = provenance["cluster"]["workers"]
    assert [w["name"] for w in workers] == ["node1", "node2", "node3"]
    assert all(w["git"]["commit"] == provenance["commit"] for w in workers)


UNITS_PLAN = """
name = "units"
[params]
dataset = "DATA"
rounds_max = 1
page_size = 256
warmups = 1
repetitions = 2
timeout_s = 60
n = [20]
[[group]]
tasks = ["write", "read_seq"]
models = ["trade", "part", "customer"]
methods = ["handcoded", "json"]
languages = ["rust"]
"""


def test_single_machine_cells_run_batch_by_batch_on_the_workers_as_they_run_here(
        home, tmp_path, dask_cluster):
    from serbench.compare import compare_runs
    from serbench.report.data import load_run
    from serbench.report.render import render_run, run_tasks
    # where worker node3 does not see it: its batches' data is copied there
    data = make_dataset(dask_cluster.private / "data" / tmp_path.name, MODELS_THREE)
    plan = tmp_path / "units.toml"
    plan.write_text(UNITS_PLAN.replace("DATA", str(data)))
    local, _ = run_cells(plan)
    remote, provenance = run_cells(plan, "--cluster", dask_cluster.address)
    assert {c["status"] for c in local + remote} == {"ok"}, \
        [c["message"] for c in local + remote if c["status"] != "ok"]
    identity = lambda c: tuple(c[k] for k in IDENTITY)  # noqa: E731
    assert {identity(c): (c["got_count"], c["got_sum"]) for c in remote} == \
        {identity(c): (c["got_count"], c["got_sum"]) for c in local}
    hosts = {c["cell_id"]: json.loads(c["counters"])["host"]["worker"] for c in remote}
    # three batches (one per model), three workers of one unit each: every worker had one
    assert set(hosts.values()) == {"node1", "node2", "node3"}
    for cell in remote:
        assert json.loads(cell["counters"])["cluster"] == dask_cluster.address
    # every comparison set, and so every batch, measured on one host
    sets: dict[tuple, set] = {}
    for cell in remote:
        sets.setdefault(tuple(cell[k] for k in SET_KEYS), set()).add(hosts[cell["cell_id"]])
    assert all(len(found) == 1 for found in sets.values()), sets
    hosts_of = {c["model"]: hosts[c["cell_id"]] for c in remote}
    # the report ranks each host's cells apart; compare only across hosts when asked
    with Results() as results:
        run_a, run_b = (r["run_id"] for r in results.runs())
        kept = compare_runs(results, run_a, run_b)
        across = compare_runs(results, run_a, run_b, across_hosts=True)
    assert kept.rows == [] and len(kept.other_hosts) == len(local)
    assert len(across.rows) == len([c for c in local if c["status"] == "ok"])
    for models in run_tasks(load_run(home / "results.duckdb", run_b)).values():
        for tm in models:
            assert {c.host for s in tm.series for c in s.cells.values()} == {tm.host}
            assert tm.host.split(" ")[0] in {"node1", "node2", "node3"}
    _, markdown = render_run(home / "results.duckdb", run_b, tmp_path / "report")
    ranked = re.findall(r"Ranking: read_seq · (\w+) on (node\d)", markdown.read_text())
    assert set(ranked) == {(model, hosts_of[model]) for model in MODELS_THREE}
    # node3's copies of the data removed at the end of the run
    assert workers_list(dask_cluster, "node3", data) == {}
    assert [w["name"] for w in provenance["cluster"]["workers"]] == ["node1", "node2", "node3"]


def workers_list(made: DaskOnNamespaces, name: str, directory: Path) -> dict:
    """The files a worker sees under `directory`."""
    from distributed import Client
    from serbench.network.dask_placement import worker_list
    with Client(made.address, set_as_default=False) as client:
        address = next(a for a, w in client.scheduler_info(n_workers=-1)["workers"].items()
                       if w["name"] == name)
        return client.run(worker_list, str(directory), workers=[address])[address]


def test_a_missing_or_mismatched_host_is_named_before_anything_is_timed(
        home, tmp_path, dask_cluster, rust, monkeypatch):
    from click.testing import CliRunner
    from serbench.cli import cli
    plan = tmp_path / "cluster.toml"
    plan.write_text(PLAN.replace("SPARSE", str(sparse_dataset(tmp_path / "sparse", 3, 20_000,
                                                                0.01)))
                    .replace("EXTRA", 'cluster_workers = ["node1", "node9"]'))
    result = CliRunner().invoke(cli, ["run", str(plan), "--cluster", dask_cluster.address])
    assert result.exit_code != 0
    assert "worker node9 named by the plan is not in the cluster" in result.output
    assert "node1, node2, node3" in result.output
    with Results() as results:
        assert results.runs() == []  # refused before the run began

    # single-machine cells: node3 sees no driver where the harness's is (its own differs)
    copy = dask_cluster.private / "bin" / tmp_path.name / "serbench-rust"
    copy.parent.mkdir(parents=True)
    shutil.copy2(rust, copy)
    monkeypatch.setenv(env_var("rust"), str(copy))
    plan.write_text(UNITS_PLAN.replace("DATA", str(make_dataset(tmp_path / "data",
                                                                MODELS_THREE))))
    result = CliRunner().invoke(cli, ["run", str(plan), "--cluster", dask_cluster.address])
    assert result.exit_code != 0
    assert re.search(r"worker node3 on host \S+ \(tcp://" + network_prefix(dask_cluster, 2)
                     + r".*rust driver's info differs", " ".join(result.output.split()))
    with Results() as results:
        assert results.runs() == []

    # a worker whose driver differs from the harness's is named with its host
    cluster = Cluster(ClusterSettings(dask_cluster.address))
    real = cluster.run_each

    def node2_differs(function, *args, **kwargs):
        answers = real(function, *args, **kwargs)
        for worker in cluster.workers:
            if worker.name == "node2":
                answers[worker.address]["infos"]["rust"]["driver_version"] = "9.9.9"
        return answers
    monkeypatch.setattr(cluster, "run_each", node2_differs)
    try:
        with pytest.raises(ClusterError, match=r"worker node2 on host \S+ \(tcp://"
                                               + network_prefix(dask_cluster, 1)
                                               + r".*rust driver's info differs.*driver_version"):
            cluster.check({"rust": rust})
    finally:
        cluster.close()


def network_prefix(made: DaskOnNamespaces, index: int) -> str:
    return made.network.address(index).replace(".", r"\.")


def test_a_nodes_lease_ends_it_when_its_worker_or_its_harness_is_gone():
    command = [sys.executable, "-m", "serbench.network.lease"]
    # the harness stops renewing: killed after the lease (0.5 s here)
    held = subprocess.Popen([*command, "0.5", "--", "sleep", "60"], stdin=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    assert held.wait(10) == -signal.SIGKILL
    assert b"did not renew its lease for 0.5 s" in held.stderr.read()
    assert _group_alive(held.pid) == []
    # the worker dies: its end of the lease pipe closes, the node goes at once
    orphan = subprocess.Popen([*command, "30", "--", "sleep", "60"], stdin=subprocess.PIPE,
                              stderr=subprocess.PIPE, start_new_session=True)
    orphan.stdin.write(b".")
    orphan.stdin.flush()
    # the lease's Python and its node both up (a loaded machine takes a while to start them)
    deadline = time.monotonic() + 10
    while len(_group_alive(orphan.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert orphan.poll() is None and len(_group_alive(orphan.pid)) == 2
    orphan.stdin.close()
    # at once: its lease had 30 s to run
    assert orphan.wait(10) == -signal.SIGKILL
    assert b"its worker is gone" in orphan.stderr.read()
    assert _group_alive(orphan.pid) == []
    # a node that ends on its own is seen ending that way
    done = subprocess.Popen([*command, "30", "--", "sh", "-c", "exit 3"], stdin=subprocess.PIPE,
                            start_new_session=True)
    assert done.wait(10) == 3


def test_a_worker_killed_mid_cell_fails_it_naming_the_host_and_leaves_no_node(
        rust, parts, tmp_path, dask_cluster):
    # last in this file: node2 does not come back
    cell = fetch_cell(rust, parts, tmp_path, "handcoded", "ram")
    cell = NetCell(**{**cell.__dict__, "repetitions": 100_000})
    cluster = Cluster(ClusterSettings(dask_cluster.address))
    try:
        cluster.check({"rust": rust})
        placement = DaskPlacement(cluster)
        started: list = []
        real_start = placement.start

        def remember(name, driver, token):
            node = real_start(name, driver, token)
            started.append(node)
            return node
        placement.start = remember
        killer = threading.Timer(2.0, lambda: dask_cluster.kill("node2"))
        killer.start()
        with pytest.raises(NetFailure) as failure:
            run_cell(Fetch(), cell, placement, {"rust": rust})
        killer.join()
        assert [n.worker.name for n in started] == ["node1", "node2", "node3"]
        assert failure.value.node == "server1"
        message = str(failure.value)
        assert "node server1 died (lost with worker node2 on host" in message, message
        assert network_prefix(dask_cluster, 1).replace("\\", "") in message
        deadline = time.monotonic() + 10
        while any(_group_alive(n.pid) for n in started) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [(n.name, _group_alive(n.pid)) for n in started if _group_alive(n.pid)] == []
    finally:
        cluster.close()


def test_a_worker_killed_mid_unit_fails_that_unit_naming_the_host(rust, dask_cluster):
    # last in this file but the one above: node1 does not come back
    cluster = Cluster(ClusterSettings(dask_cluster.address))
    try:
        cluster.check({"rust": rust})
        node1 = next(w.address for w in cluster.workers if w.name == "node1")
        earlier = set(marks(cluster))  # of the units other tests ran

        def kill_once_begun() -> None:  # the unit on node1 under way, not merely assigned
            deadline = time.monotonic() + 30
            while node1 not in [a for m, a in marks(cluster).items() if m not in earlier] \
                    and time.monotonic() < deadline:
                time.sleep(0.05)
            dask_cluster.kill("node1")
        killer = threading.Thread(target=kill_once_begun)
        killer.start()
        # one unit a worker (each holds one resource), each a 3 s sleep
        answers = {worker.name if worker else None: answer for _, worker, answer
                   in cluster.units(time.sleep, [3.0] * len(cluster.workers))}
        killer.join()
    finally:
        cluster.close()
    lost = answers.pop("node1")
    assert isinstance(lost, ClusterError), lost
    assert re.search(r"worker node1 on host \S+ \(tcp://" + network_prefix(dask_cluster, 0)
                     + r".*died or left while measuring", str(lost)), str(lost)
    assert set(answers.values()) == {None}  # the others' units ended as usual


def test_a_worker_without_its_one_unit_resource_is_named(rust):
    from distributed import LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as local:  # its HTTP server on a free port
        cluster = Cluster(ClusterSettings(local.scheduler_address))
        try:
            cluster.check({"rust": rust})
            with pytest.raises(ClusterError, match=r"--resources serbench=1 .*: worker 0 on "
                                                   r"host \S+ \(inproc://\S+\) holds none"):
                cluster.check_units()
        finally:
            cluster.close()


def marks(cluster: Cluster) -> dict[str, str]:
    """Where each unit the scheduler has seen began (worker_unit's marks)."""
    return cluster.client.get_metadata([UNIT_MARK], None) or {}


def _certificates(directory: Path) -> dict[str, Path]:
    """A CA and one certificate it signed (for the scheduler, the worker and the harness)."""
    ca_key, ca, key, csr, cert = (directory / n for n in ("ca.key", "ca.pem", "tls.key",
                                                           "tls.csr", "tls.pem"))
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for command in (
            ["req", "-x509", *ec, "-keyout", ca_key, "-out", ca, "-days", "2",
             "-subj", "/CN=serbench test CA"],
            ["req", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
             "-out", cert, "-days", "2"]):
        subprocess.run(["openssl", *map(str, command)], check=True, capture_output=True,
                       timeout=60)
    return {"ca": ca, "cert": cert, "key": key}


def test_over_tls_nodes_share_one_worker_when_the_plan_allows(rust, parts, tmp_path):
    require(shutil.which("openssl") is not None,
            "openssl is not installed (it makes the test's certificates)")
    files = _certificates(tmp_path)
    tls = ["--tls-ca-file", str(files["ca"]), "--tls-cert", str(files["cert"]),
           "--tls-key", str(files["key"])]
    scheduler_file = tmp_path / "scheduler.json"
    procs = [subprocess.Popen(
        [str(VENV_BIN / "dask"), "scheduler", "--protocol", "tls", "--host", "127.0.0.1",
         "--port", "0", "--no-dashboard", "--scheduler-file", str(scheduler_file), *tls],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    try:
        deadline = time.monotonic() + START_S
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.1)
        address = json.loads(scheduler_file.read_text())["address"]
        assert address.startswith("tls://127.0.0.1:")
        procs.append(subprocess.Popen(
            [str(VENV_BIN / "dask"), "worker", address, "--name", "solo", "--host", "127.0.0.1",
             "--nthreads", "1", "--no-dashboard", "--no-nanny", "--memory-limit", "0", *tls],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        # a TLS address without certificates is refused before connecting
        with pytest.raises(ClusterError, match="TLS address but no certificate"):
            Cluster(ClusterSettings(address))
        settings = ClusterSettings(address, tls_ca=str(files["ca"]), tls_cert=str(files["cert"]),
                                   tls_key=str(files["key"]))
        cluster = Cluster(settings)
        try:
            cluster.client.wait_for_workers(1, timeout=START_S)
            cluster.check({"rust": rust})
            cell = fetch_cell(rust, parts, tmp_path, "handcoded", "decode")
            # three nodes, one worker: refused by name unless the plan allows three per worker
            with pytest.raises(NetFailure, match=r"node server1 is node 2 of the cell.* 1 "
                                                 r"chosen worker\(s\) \(solo\).*allows 1 node"):
                run_cell(Fetch(), cell, DaskPlacement(cluster), {"rust": rust})
            cluster.settings.nodes_per_worker = 3
            placement = DaskPlacement(cluster)
            run = run_cell(Fetch(), cell, placement, {"rust": rust})
            assert run.reports[-1]["client"]["checksum"] == cell.params["expected"]
            assert {h["worker"] for h in placement.describe()["hosts"].values()} == {"solo"}
        finally:
            cluster.close()
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
