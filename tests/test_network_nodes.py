"""The network tasks through the Java and C++ drivers' real nodes on loopback (PROTOCOL.md 10),
as the harness runs them (Rust's: tests/test_network.py): every net_fetch variant checked per
repetition and read back through the language's validating scan, the 7-node sum and
sort-merge against the harness's own totals, a plan whose network cells all verify ok; a peer
speaking another method refused and a node killed mid-cell named; strangers without the
cell's token refused by every language's node while its cell still runs. Mixed cells (a Rust client
fetching from the language's servers and the reverse, Rust leaves under its tree) show the
bytes on the wire are one paged format. A driver not built is a missing prerequisite
(tests/conftest.py)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import built_driver
from serbench.drivers import process as driver_module
from serbench import steady
from serbench.models.checksum import hex64, object_hash, set_checksum
from serbench.drivers.process import LANGUAGES, DriverProcess, env_var
from serbench.network import exchange as cell_module
from serbench.network.aggregate import Aggregate
from serbench.network.exchange import NetCell, NetFailure, run_cell
from serbench.network.fetch import Fetch, scan_problem
from serbench.network.placement import TOKEN_ENV, LocalPlacement
from serbench.network.wire import _HEADER, ERROR, HELLO, MAGIC
from serbench.network.sort_merge import SortMerge
from serbench.results import Results

from fake_driver import make_dataset
from test_end_to_end import cli_ok
from test_network import sparse_dataset

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
PAGE = 256
COPIES = 50  # 200 part objects: several storage pages and network pages per server

# the methods each language's nodes are tested with: shared formats, and what is its own
# (C++ inplace: its objects are their pages; Java avro)
FETCH_METHODS = {"java": ("handcoded", "json"), "cpp": ("handcoded", "json", "inplace")}
SUM_METHODS = {"java": ("handcoded", "protobuf"), "cpp": ("handcoded", "protobuf", "inplace")}
SORT_METHODS = {"java": ("handcoded", "json", "avro"),
                "cpp": ("handcoded", "json", "inplace", "protobuf")}
# (method, variant) of a fetch with the language's servers and a Rust client, and the reverse
MIXED_FETCHES = {"java": {"servers": [("handcoded", "decode")],
                          "client": [("json", "decode"), ("handcoded", "ram")]},
                 "cpp": {"servers": [("handcoded", "decode"), ("json", "ram")],
                         "client": [("json", "decode"), ("handcoded", "ram")]}}
# when a node is killed: after its cell is running (a JVM starts in seconds)
KILL_AFTER_S = {"java": 4.0, "cpp": 1.5}


def cases(table: dict) -> list[tuple[str, str]]:
    return [(language, method) for language, methods in table.items() for method in methods]


@pytest.fixture(scope="module")
def rust() -> Path:
    return built_driver("rust")


@pytest.fixture(scope="module")
def parts(tmp_path_factory) -> tuple[Path, list[int]]:
    lines = (VECTORS / "part.jsonl").read_text().splitlines() * COPIES
    path = tmp_path_factory.mktemp("netnodes") / "part.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path, [object_hash("part", json.loads(line)) for line in lines]


def encoded(language: str, jsonl: Path, method: str) -> Path:
    """The method's paged file of `jsonl`, written by the language's driver."""
    base = jsonl.parent / f"part-{language}-{method}"
    if not base.with_suffix(".index").exists():
        with DriverProcess(language, built_driver(language)) as driver:
            response = driver.request("encode", model="part", method=method, variant="",
                                      depth="", params={"input": str(jsonl), "output": str(base),
                                                        "page_size": PAGE})
            assert response["status"] == "ok", response
    return base


def fetch_cell(language, parts, tmp_path, method="handcoded", variant="disk", servers=2, n=60,
               server=None, client=None, **extra) -> NetCell:
    """A fetch whose file is written by `language`; servers and client run `language`'s nodes
    unless named."""
    jsonl, hashes = parts
    count, total = set_checksum(hashes[:servers * n])
    output = tmp_path / f"out-{method}-{variant}"
    output.mkdir()
    params = {"servers": servers, "n": n, "start": 0, "input": encoded(language, jsonl, method),
              "output": output, "page_size": PAGE, "net_page_bytes": 2048,
              "server_languages": [server or language] * servers,
              "client_language": client or language,
              "expected": {"count": count, "sum": hex64(total)}, **extra}
    return NetCell("net_fetch", "part", method, variant, "materialize", params, warmups=1,
                   repetitions=2, timeout_s=60)


def check_fetch(run, cell, variant, scanner: str) -> None:
    """Every repetition's counts and bytes; the client's files read back by `scanner`."""
    assert len(run.reports) == 3
    for reports in run.reports:
        client = reports["client"]
        assert client["objects"] == 120
        assert client["total_ns"] >= client["io_ns"] > 0
        assert client["total_ns"] == client["cpu_ns"] + client["io_ns"]
        assert client["peak_rss_bytes"] > 0
        assert client["bytes_received"] == sum(reports[s]["bytes_sent"]
                                               for s in ("server0", "server1"))
        assert [s["server"] for s in client["servers"]] == ["server0", "server1"]
        assert all(s["frames"] >= 2 and s["objects"] == 60 for s in client["servers"])
        assert (client["checksum"] is not None) == (variant == "decode")
        if variant == "decode":
            assert client["checksum"] == cell.params["expected"]
        for server in ("server0", "server1"):
            assert reports[server]["objects"] == 60
    check_jit_figures(run, cell)
    with DriverProcess(scanner, built_driver(scanner)) as driver:
        assert scan_problem(driver, cell, "materialize") is None


def check_jit_figures(run, cell) -> None:
    """A Java node reports what its JIT did in each repetition (PROTOCOL.md 10.4), and a
    fresh JVM's first one compiled something; a Rust or C++ node has no JIT figures."""
    languages = {"server0": cell.params["server_languages"][0],
                 "server1": cell.params["server_languages"][1],
                 "client": cell.params["client_language"]}
    for name, language in languages.items():
        reports = [r[name] for r in run.reports]
        java = language == "java"
        assert all(("jit_ms" in r) == java and ("jit_cpu_ns" in r) == java for r in reports)
        if java:
            assert all(r["jit_ms"] >= 0 and r["jit_cpu_ns"] >= 0 for r in reports)
            assert reports[0]["jit_ms"] + reports[0]["jit_cpu_ns"] > 0


@pytest.mark.parametrize("language", ["java", "cpp"])
def test_info_lists_the_network_tasks_the_nodes_run(language):
    with DriverProcess(language, built_driver(language)) as driver:
        assert set(driver.info()["net_tasks"]) == {"net_fetch", "net_aggregate",
                                                   "net_sort_merge"}


@pytest.mark.parametrize("language, method", cases(FETCH_METHODS))
@pytest.mark.parametrize("variant", ["ram", "disk", "decode"])
def test_every_fetch_variant_moves_exactly_the_objects(language, method, variant, parts,
                                                       tmp_path):
    cell = fetch_cell(language, parts, tmp_path, method, variant)
    run = run_cell(Fetch(), cell, LocalPlacement(), {language: built_driver(language)})
    check_fetch(run, cell, variant, language)


def test_inplace_ram_ships_the_stored_pages_as_they_are(parts, tmp_path):
    """C++ inplace's native objects are their page bytes: `ram` sends exactly what `disk`
    does."""
    sent = {}
    for variant in ("ram", "disk"):
        cell = fetch_cell("cpp", parts, tmp_path, "inplace", variant)
        run = run_cell(Fetch(), cell, LocalPlacement(), {"cpp": built_driver("cpp")})
        sent[variant] = [(r["server0"]["bytes_sent"], r["server1"]["bytes_sent"])
                         for r in run.reports]
        out = cell.params["output"]
        sent[variant + "-files"] = [(out / f"server{i}.pages").read_bytes() for i in (0, 1)]
    assert sent["ram"] == sent["disk"]
    assert sent["ram-files"] == sent["disk-files"]


def tree_cell(language: str, tmp_path: Path, method: str, warmup_max_ms: int = 0):
    plan_cell = SimpleNamespace(
        settings={"tree_depth": 3}, dataset_dir=sparse_dataset(tmp_path / "d", 8, 20_000, 0.05),
        model="sparse", method=method, depth="materialize", language=language, page_size=PAGE,
        net_page_bytes=4096, net_frame_bytes=64 << 20, warmups=1, repetitions=2,
        timeout_s=60, warmup_max_ms=warmup_max_ms, prewarm_max_ms=0)
    return Aggregate().net_cell(plan_cell, Path(), None, tmp_path / "work")


@pytest.mark.parametrize("language, method", cases(SUM_METHODS))
def test_a_tree_sums_sparse_vectors_to_the_harness_total(language, method, tmp_path):
    cell = tree_cell(language, tmp_path, method)
    run = run_cell(Aggregate(), cell, LocalPlacement(), {language: built_driver(language)})
    for reports in run.reports:
        assert reports["root0"]["checksum"] == cell.params["expected"]
        assert reports["middle1"]["bytes_received"] > 0 and reports["middle1"]["bytes_sent"] > 0
        assert reports["leaf3"]["bytes_received"] == 0
    assert run.reports[-1]["root0"]["entries"] == cell.params["entries"] > 5000
    with DriverProcess(language, built_driver(language)) as driver:
        assert Aggregate().read_back_problem(cell, driver, "materialize") is None


def test_fresh_java_nodes_warm_up_while_their_jit_compiles(tmp_path):
    # seven fresh JVMs compile through their first repetitions; with warmup_max_ms the cell
    # warms up on until 100 ms of repetitions find every node quiet, then measures
    cell = tree_cell("java", tmp_path, "handcoded", warmup_max_ms=30_000)
    began = time.monotonic()
    run = run_cell(Aggregate(), cell, LocalPlacement(), {"java": built_driver("java")})
    warm = [r for r in run.reports if r["root0"]["warmup"]]
    assert len(warm) > cell.warmups
    assert [r["root0"]["rep"] for r in run.reports[len(warm):]] == [0, 1]
    assert all(not r["root0"]["warmup"] for r in run.reports[len(warm):])
    samples = [{"total_ns": r["root0"]["total_ns"], "nodes": r} for r in warm]
    assert not steady.still_compiling(samples) or time.monotonic() - began > 30
    assert all(steady.still_compiling(samples[:i]) for i in range(cell.warmups, len(warm)))


def sort_cell(language, parts, tmp_path, method, n=28, reps=2):
    jsonl, _ = parts
    plan_cell = SimpleNamespace(
        settings={"tree_depth": 3}, dataset_dir=jsonl.parent, model="part", method=method,
        depth="materialize", language=language, page_size=PAGE, n=n, net_page_bytes=2048,
        net_frame_bytes=64 << 20, warmups=1 if reps > 1 else 0, repetitions=reps, timeout_s=60,
        warmup_max_ms=0, prewarm_max_ms=0)
    return SortMerge().net_cell(plan_cell, encoded(language, jsonl, method), None,
                                tmp_path / "w")


@pytest.mark.parametrize("language, method", cases(SORT_METHODS))
def test_a_tree_sort_merge_outputs_every_object_in_total_order(language, method, parts,
                                                               tmp_path):
    cell = sort_cell(language, parts, tmp_path, method)
    run = run_cell(SortMerge(), cell, LocalPlacement(), {language: built_driver(language)})
    for reports in run.reports:
        root = reports["root0"]
        assert root["objects"] == 7 * 28 == cell.params["expected"]["count"]
        assert root["sequence"] == cell.params["expected"]["sum"]
        assert reports["middle1"]["objects"] == 3 * 28
        assert reports["leaf3"]["objects"] == 28 and reports["leaf3"]["bytes_received"] == 0
    with DriverProcess(language, built_driver(language)) as driver:
        assert SortMerge().read_back_problem(cell, driver, "materialize") is None


@pytest.mark.parametrize("language", ["java", "cpp"])
def test_a_peer_speaking_another_method_is_refused_by_name(language, parts, tmp_path,
                                                           monkeypatch):
    cell = fetch_cell(language, parts, tmp_path, "handcoded", "disk")
    real = cell_module.setup_message

    def client_speaks_json(c, spec):
        message = real(c, spec)
        return {**message, "method": "json"} if spec.role == "client" else message

    monkeypatch.setattr(cell_module, "setup_message", client_speaks_json)
    placement = LocalPlacement()
    with pytest.raises(NetFailure) as failure:
        run_cell(Fetch(), cell, placement, {language: built_driver(language)})
    assert "speaks method 'json', this node speaks 'handcoded'" in str(failure.value)
    assert placement.nodes == []


@pytest.mark.parametrize("language", ["java", "cpp"])
def test_a_server_killed_mid_run_fails_the_cell_naming_it(language, parts, tmp_path):
    cell = fetch_cell(language, parts, tmp_path, "handcoded", "ram")
    cell = NetCell(**{**cell.__dict__, "repetitions": 1_000_000})
    placement = LocalPlacement()
    killer = threading.Timer(KILL_AFTER_S[language], lambda: placement.nodes[1].proc.kill())
    killer.start()
    with pytest.raises(NetFailure) as failure:
        run_cell(Fetch(), cell, placement, {language: built_driver(language)})
    killer.cancel()
    assert failure.value.node == "server1"
    assert "node server1 died (killed by signal 9)" in str(failure.value)
    assert placement.nodes == []


def knock(address: str, hello: dict) -> tuple[socket.socket, str]:
    """A stranger's connection that has sent `hello`, and its own address as the node sees it."""
    host, port = address.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=10)
    payload = MAGIC + json.dumps(hello).encode()
    sock.sendall(_HEADER.pack(len(payload), HELLO) + payload)
    return sock, "%s:%d" % sock.getsockname()[:2]


def answer(sock: socket.socket) -> tuple[int, dict, bytes]:
    """The node's one frame to a stranger (kind, JSON), then what follows it (the close)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    sock.close()
    length, kind = _HEADER.unpack_from(data)
    return kind, json.loads(data[_HEADER.size:_HEADER.size + length]), \
        data[_HEADER.size + length:]


class Knocked(LocalPlacement):
    """Loopback nodes each knocked on by strangers before the harness connects: a control hello
    without a token and one with a wrong token; `strangers` keeps their sockets and addresses."""

    def __init__(self):
        super().__init__()
        self.strangers: list[tuple[str, str, socket.socket, str]] = []  # node, said, sock, from
        self.started = []

    def launch(self, index, name, driver, token):
        node = super().launch(index, name, driver, token)
        self.started.append(node)
        # the token is in the node's environment, not on its command line (`ps` shows that)
        proc = Path("/proc") / str(node.proc.pid)
        assert token.encode() not in (proc / "cmdline").read_bytes()
        assert f"{TOKEN_ENV}={token}".encode() in (proc / "environ").read_bytes()
        self.knock(node, "control", {})
        return node

    def knock(self, node, role: str, speaks: dict) -> None:
        for said, token in (("no token", None), ("wrong token", "0" * 32)):
            hello = {"role": role, "from": "stranger", **speaks,
                     **({"token": token} if token else {})}
            self.strangers.append((node.name, said, *knock(node.address, hello)))


@pytest.mark.parametrize("language", ["rust", "java", "cpp"])
def test_strangers_without_the_cells_token_are_refused_and_the_cell_still_runs(
        language, parts, tmp_path, monkeypatch):
    """Before the harness connects, and again while server0 waits for its client (data hellos
    of the cell's own task and method), strangers are refused by name and the cell runs."""
    driver = built_driver(language)
    cell = fetch_cell(language, parts, tmp_path, "handcoded", "disk")
    placement = Knocked()
    real = cell_module.setup_message

    def knocking_on_server0(c, spec):  # the harness's control links are all made by now
        if spec.name == "server0":
            speaks = {k: getattr(c, k) for k in ("task", "method", "model", "variant")}
            [server0] = [n for n in placement.started if n.name == "server0"]
            placement.knock(server0, "data", speaks)
        return real(c, spec)

    monkeypatch.setattr(cell_module, "setup_message", knocking_on_server0)
    run = run_cell(Fetch(), cell, placement, {language: driver})
    assert [r["client"]["objects"] for r in run.reports] == [120] * 3
    assert len(placement.strangers) == 2 * 3 + 2
    for name, said, sock, stranger in placement.strangers:
        kind, error, rest = answer(sock)
        assert (kind, error, rest) == (ERROR, {"kind": "network",
                                               "message": f"peer {stranger}: {said}"}, b"")
    logs = {n.name: n.stderr_tail() for n in placement.started}
    for name, said, _, stranger in placement.strangers:
        assert f"listen: refused a connection: peer {stranger}: {said}\n" in logs[name]
    # and a node given no token does not start
    env = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    alone = subprocess.run([str(driver), "listen", "--address", "127.0.0.1:0"], env=env,
                           capture_output=True, timeout=60)
    assert alone.returncode != 0 and alone.stdout == b""
    assert f"{TOKEN_ENV} is empty or not set".encode() in alone.stderr


def mixed_fetches() -> list[tuple[str, str, str, str]]:
    """(server language, client language, method, variant), one side Rust."""
    return [(language, "rust", *case) for language, sides in MIXED_FETCHES.items()
            for case in sides["servers"]] + \
           [("rust", language, *case) for language, sides in MIXED_FETCHES.items()
            for case in sides["client"]]


@pytest.mark.parametrize("server, client, method, variant", mixed_fetches())
def test_a_mixed_fetch_moves_one_paged_format(server, client, method, variant, rust, parts,
                                              tmp_path):
    other = client if server == "rust" else server
    cell = fetch_cell(other, parts, tmp_path, method, variant, server=server, client=client)
    run = run_cell(Fetch(), cell, LocalPlacement(), {other: built_driver(other), "rust": rust})
    # the client's files read back through the servers' language's scan too
    check_fetch(run, cell, variant, server)


class MixedTree:
    """A tree task whose leaves run `leaves`' nodes and the rest the cell's language."""

    def __init__(self, task, leaves: str):
        self.task, self.leaves = task, leaves

    def __getattr__(self, name):
        return getattr(self.task, name)

    def nodes(self, cell):
        return [replace(n, language=self.leaves) if n.name.startswith("leaf") else n
                for n in self.task.nodes(cell)]


@pytest.mark.parametrize("language", ["java", "cpp"])
def test_a_mixed_tree_sums_and_sorts_across_languages(language, rust, parts, tmp_path):
    """Rust leaves under the language's middle nodes and root: the same sum (in the fixed
    order) and the same sorted sequence as the harness computes."""
    drivers = {language: built_driver(language), "rust": rust}
    cell = tree_cell(language, tmp_path / "sum", "handcoded")
    run = run_cell(MixedTree(Aggregate(), "rust"), cell, LocalPlacement(), drivers)
    assert run.reports[-1]["root0"]["checksum"] == cell.params["expected"]
    cell = sort_cell(language, parts, tmp_path, "json", n=20, reps=1)
    run = run_cell(MixedTree(SortMerge(), "rust"), cell, LocalPlacement(), drivers)
    assert run.reports[-1]["root0"]["sequence"] == cell.params["expected"]["sum"]


# the methods of each language's plan test: fetch, aggregation, sort-merge
PLAN_METHODS = {"java": (["handcoded", "json_gzip"], ["handcoded"], ["msgpack"]),
                "cpp": (["handcoded", "inplace"], ["handcoded", "inplace"],
                        ["msgpack", "inplace"])}
NET_PLAN = """
name = "net-nodes"
[params]
rounds_max = 1
prewarm_max_ms = 0      # plumbing: no JIT warm-up (tests/test_prewarm.py)
page_size = 256
warmups = 1
repetitions = 2
timeout_s = 120
servers = 2
n = [1000]               # objects per server: capped at count / servers
net_page_bytes = 65536
network = "loopback"
[[group]]
tasks = ["net_fetch"]
models = ["part"]
methods = FETCH
languages = ["LANGUAGE"]
raw = false
[[group]]
tasks = ["net_aggregate"]
dataset = "SPARSE"
models = ["sparse"]
methods = SUM
languages = ["LANGUAGE"]
[[group]]
tasks = ["net_sort_merge"]
models = ["tweet"]
methods = SORT
languages = ["LANGUAGE"]
n = [2]
"""


@pytest.fixture
def only_home(tmp_path: Path, monkeypatch):
    """A private SERBENCH_HOME with golden-vector datasets, in which only `language`'s real
    driver is found."""
    def make(language: str) -> Path:
        home = tmp_path / "home"
        monkeypatch.setenv("SERBENCH_HOME", str(home))
        monkeypatch.setattr(driver_module, "BUILD_PATHS",
                            {lang: built_driver(lang) if lang == language else tmp_path / "none"
                             for lang in LANGUAGES})
        for lang in LANGUAGES:
            monkeypatch.delenv(env_var(lang), raising=False)
        make_dataset(home / "data" / "default", models=("part", "tweet"), copies=4)
        return home
    return make


@pytest.mark.parametrize("language", ["java", "cpp"])
def test_a_plan_runs_network_cells_that_all_verify(language, only_home, tmp_path):
    home = only_home(language)
    fetch, total, sort = PLAN_METHODS[language]
    plan = tmp_path / "net.toml"
    sparse = sparse_dataset(tmp_path / "sparse", 7, 200_000, 0.01)
    plan.write_text(NET_PLAN.replace("LANGUAGE", language).replace("SPARSE", str(sparse))
                    .replace("FETCH", json.dumps(fetch)).replace("SUM", json.dumps(total))
                    .replace("SORT", json.dumps(sort)))
    cli_ok("run", str(plan))
    with Results(home / "results.duckdb") as results:
        [run] = results.runs()
        cells = results.cells(run["run_id"])
    assert {c["status"] for c in cells} == {"ok"}, [(c["task"], c["method"], c["message"])
                                                    for c in cells if c["status"] != "ok"]
    assert {c["language"] for c in cells} == {language}
    assert {c["task"] for c in cells} == {"net_fetch", "net_aggregate", "net_sort_merge"}
    fetches = {(c["method"], c["setting"], c["n"]) for c in cells if c["task"] == "net_fetch"}
    assert fetches == {(method, f"source={source} servers=2", 8) for method in fetch
                       for source in ("ram", "disk", "decode")}
    # like for like: a sort-merge cell records the root's sequence checksum
    for c in cells:
        assert [c["got_count"], c["got_sum"]] == [c["expected_count"], c["expected_sum"]]
