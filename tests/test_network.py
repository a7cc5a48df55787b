"""The network tasks through real Rust nodes on loopback (PROTOCOL.md 10): every variant of
net_fetch checked per repetition and read back through a validating scan; a peer speaking
another method refused; a server killed mid-run fails the cell naming it, within seconds,
with no node left running."""
from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from serbench.models.checksum import hex64, object_hash, set_checksum
from serbench.drivers.process import DriverProcess
from serbench.network import exchange as cell_module
from serbench.network.exchange import NetCell, NetFailure, run_cell
from serbench.network.aggregate import Aggregate
from serbench.network.fetch import Fetch, scan_problem
from serbench.network import namespaces
from serbench.network.namespaces import NamespaceNetwork, NamespacePlacement
from serbench.network.placement import LocalPlacement
from serbench.results import Results

from conftest import built_driver, require
from fake_driver import write_dataset
from test_end_to_end import cli_ok, home  # noqa: F401  (the fixture)

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
PAGE = 256
COPIES = 50  # 200 part objects: several storage pages and network pages per server


@pytest.fixture(scope="module")
def rust() -> Path:
    return built_driver("rust")


@pytest.fixture(scope="module")
def parts(tmp_path_factory) -> tuple[Path, list[int]]:
    lines = (VECTORS / "part.jsonl").read_text().splitlines() * COPIES
    path = tmp_path_factory.mktemp("net") / "part.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path, [object_hash("part", json.loads(line)) for line in lines]


def encoded(rust: Path, jsonl: Path, method: str) -> Path:
    base = jsonl.parent / f"part-{method}"
    if not base.with_suffix(".index").exists():
        with DriverProcess("rust", rust) as driver:
            response = driver.request("encode", model="part", method=method, variant="", depth="",
                                      params={"input": str(jsonl), "output": str(base),
                                              "page_size": PAGE})
            assert response["status"] == "ok", response
    return base


def fetch_cell(rust, parts, tmp_path, method="handcoded", variant="disk", servers=2, n=60,
               **extra) -> NetCell:
    jsonl, hashes = parts
    count, total = set_checksum(hashes[:servers * n])
    output = tmp_path / f"out-{method}-{variant}"
    output.mkdir()
    params = {"servers": servers, "n": n, "start": 0, "input": encoded(rust, jsonl, method),
              "output": output, "page_size": PAGE, "net_page_bytes": 2048,
              "server_languages": ["rust"] * servers, "client_language": "rust",
              "expected": {"count": count, "sum": hex64(total)}, **extra}
    return NetCell("net_fetch", "part", method, variant, "materialize", params, warmups=1,
                   repetitions=2, timeout_s=60)


@pytest.mark.parametrize("method", ["handcoded", "json"])
@pytest.mark.parametrize("variant", ["ram", "disk", "decode"])
def test_every_fetch_variant_moves_exactly_the_objects(rust, parts, tmp_path, method, variant):
    cell = fetch_cell(rust, parts, tmp_path, method, variant)
    run = run_cell(Fetch(), cell, LocalPlacement(), {"rust": rust})
    assert len(run.reports) == 3
    for reports in run.reports:
        client = reports["client"]
        assert client["objects"] == 120
        assert client["total_ns"] >= client["io_ns"] > 0
        assert client["bytes_received"] == sum(reports[s]["bytes_sent"]
                                               for s in ("server0", "server1"))
        assert [s["server"] for s in client["servers"]] == ["server0", "server1"]
        assert all(s["frames"] >= 2 for s in client["servers"])  # 2 KiB network pages
        assert (client["checksum"] is not None) == (variant == "decode")
    with DriverProcess("rust", rust) as driver:
        assert scan_problem(driver, cell, "materialize") is None
        # the check can fail: another range's checksum is refused
        other = NetCell(**{**cell.__dict__, "params": {**cell.params,
                                                        "expected": {"count": 120, "sum": "0" * 16}}})
        assert "expected" in scan_problem(driver, other, "materialize")


def test_a_peer_speaking_another_method_is_refused_by_name(rust, parts, tmp_path, monkeypatch):
    cell = fetch_cell(rust, parts, tmp_path, "handcoded", "disk")
    real = cell_module.setup_message

    def client_speaks_json(c, spec):
        message = real(c, spec)
        return {**message, "method": "json"} if spec.role == "client" else message

    monkeypatch.setattr(cell_module, "setup_message", client_speaks_json)
    with pytest.raises(NetFailure) as failure:
        run_cell(Fetch(), cell, LocalPlacement(), {"rust": rust})
    assert "speaks method 'json', this node speaks 'handcoded'" in str(failure.value)


def require_namespaces() -> None:
    why = namespaces.unavailable()
    require(not why, f"namespace tests need what this machine forbids: {why}")


@pytest.fixture
def network(tmp_path, monkeypatch):
    """A 1 Gbit/s namespace network of this test's own, torn down after it."""
    require_namespaces()
    monkeypatch.setenv("SERBENCH_HOME", str(tmp_path / "home"))
    made = NamespaceNetwork(10**9).create()
    yield made
    made.close()
    assert leftovers(made.tag) == ""


def leftovers(tag: str) -> str:
    import subprocess
    listed = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout + \
        subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return "\n".join(line for line in listed.splitlines() if f"sb{tag}" in line)


def test_namespace_nodes_fetch_over_shaped_links_measured_before_use(rust, parts, tmp_path,
                                                                      network):
    cell = fetch_cell(rust, parts, tmp_path, "handcoded", "decode")
    run = run_cell(Fetch(), cell, NamespacePlacement(network), {"rust": rust})
    assert run.reports[-1]["client"]["checksum"] == cell.params["expected"]
    described = network.describe()
    assert described["link_rate_bit"] == 10**9 and not described["delay_emulated"]
    measured = described["measured_bit"]
    assert len(measured) == 3  # two servers and the client, each link probed when made
    assert all(0.9e9 < bits <= 1.05e9 for bits in measured.values()), measured


KILLED_HARNESS = """
import sys
from serbench.network.namespaces import NamespaceNetwork
made = NamespaceNetwork(None).create()
made.namespace(0)
print(made.tag, flush=True)
sys.stdin.read()
"""


def test_a_harness_killed_under_a_throwaway_home_leaves_nothing_the_next_network_keeps(
        tmp_path, monkeypatch):
    """The owner is on the machine, not in a home: a harness killed outright whose home is
    then deleted (a test's tmp directory) is cleaned up by a network made under any other."""
    require_namespaces()
    import shutil
    import signal
    import subprocess
    import sys
    doomed_home = tmp_path / "doomed"
    harness = subprocess.Popen([sys.executable, "-c", KILLED_HARNESS], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "SERBENCH_HOME": str(doomed_home)})
    try:
        tag = harness.stdout.readline().strip()
        assert tag and leftovers(tag) != ""
    finally:
        harness.send_signal(signal.SIGKILL)
        harness.wait(timeout=10)
    shutil.rmtree(doomed_home, ignore_errors=True)
    monkeypatch.setenv("SERBENCH_HOME", str(tmp_path / "other"))
    assert leftovers(tag) != ""  # nothing removes them on its own
    made = NamespaceNetwork(None).create()
    try:
        assert leftovers(tag) == ""
    finally:
        made.close()


def test_an_unlabelled_bridge_or_a_namespace_without_its_bridge_is_swept():
    """A harness killed between making its bridge and labelling it, or while removing its
    network (namespaces first, the bridge last), leaves these."""
    require_namespaces()
    import subprocess
    bare, lone = "sbfeed01", "sbfeed02"
    subprocess.run(["ip", "link", "add", f"{bare}br", "type", "bridge"], check=True)
    subprocess.run(["ip", "netns", "add", f"{lone}n0"], check=True)
    try:
        removed = namespaces.sweep_leftovers()
        assert f"{bare}br" in removed and f"{lone}n0" in removed
        assert leftovers(bare) == "" and leftovers(lone) == ""
    finally:
        namespaces.remove(f"{bare}br", [f"{lone}n0"])


def test_an_unlabelled_network_with_links_is_left_to_its_owner(network):
    """A bridge with links and no owner label is a running network of an older serbench
    (which sweeps its own from its home): removing it would break that run."""
    network.namespace(0)
    namespaces.ip("link", "set", "dev", network.bridge, "alias", "")
    assert not any(network.tag in name for name in namespaces.sweep_leftovers())
    assert leftovers(network.tag) != ""


def test_a_live_networks_owner_is_recognised_and_a_reused_pid_is_not():
    mine = namespaces.owner_label(os.getpid())
    assert namespaces.owner_alive(mine)
    pid, start = mine.removeprefix(namespaces.OWNER_PREFIX).split()
    assert not namespaces.owner_alive(f"{namespaces.OWNER_PREFIX}{pid} {int(start) + 1}")
    assert not namespaces.owner_alive(None) and not namespaces.owner_alive("someone else's")


def test_a_live_network_is_never_swept(network):
    network.namespace(0)
    assert not any(network.tag in name for name in namespaces.sweep_leftovers())
    assert leftovers(network.tag) != ""


@pytest.mark.parametrize("where", ["loopback", "namespaces", "cut_link"])
def test_a_server_killed_mid_run_fails_the_cell_naming_it(rust, parts, tmp_path, where, request):
    """cut_link: server1's link is cut, then it is killed, so neither its close nor anything
    else reaches the harness or the client: only seeing the process end stops the wait (else:
    the cell's timeout)."""
    cell = fetch_cell(rust, parts, tmp_path, "handcoded", "ram")
    cell = NetCell(**{**cell.__dict__, "repetitions": 100_000})
    network = None if where == "loopback" else request.getfixturevalue("network")
    placement = LocalPlacement() if network is None else NamespacePlacement(network)

    def kill():  # once every node runs (a namespace is made and probed first)
        deadline = time.monotonic() + 30
        while len(placement.nodes) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)
        if where == "cut_link":
            namespaces.ip("link", "del", namespaces.host_end(network.namespace(1)))
        placement.nodes[1].proc.kill()

    killer = threading.Thread(target=kill)
    killer.start()
    with pytest.raises(NetFailure) as failure:
        run_cell(Fetch(), cell, placement, {"rust": rust})
    killer.join()
    assert failure.value.node == "server1"
    assert "node server1 died (killed by signal 9)" in str(failure.value)
    if where == "cut_link":
        assert "while 'go' was awaited" in str(failure.value)  # not the cell's timeout
    assert placement.nodes == []  # every node was killed and reaped


NET_PLAN = """
name = "net"
[params]
rounds_max = 1
page_size = 256
warmups = 1
repetitions = 2
timeout_s = 60
servers = 2
n = [3, 1000]            # objects per server; 1000 is capped at count / servers
net_page_bytes = 65536
network = "loopback"
[[group]]
tasks = ["net_fetch"]
models = ["part", "trade"]
methods = ["handcoded", "json_gzip", "rkyv", "bson"]
languages = ["rust"]
[[group]]
tasks = ["net_aggregate"]
dataset = "SPARSE"
models = ["sparse"]
methods = ["handcoded", "json"]
languages = ["rust"]
densities = [0.001, 0.005]   # the dataset's vectors: 1 %
"""


def test_a_plan_runs_net_fetch_cells_and_records_every_node(home, tmp_path):
    plan = tmp_path / "net.toml"
    plan.write_text(NET_PLAN.replace("SPARSE", str(sparse_dataset(tmp_path / "sparse", 7,
                                                                    200_000, 0.01))))
    cli_ok("run", str(plan))
    with Results(home / "results.duckdb") as results:
        [run] = results.runs()
        cells = results.cells(run["run_id"])
        samples = results.con.execute(
            "SELECT cell_id, extra FROM samples WHERE run_id = ?", [run["run_id"]]).fetchall()
    assert {c["status"] for c in cells} == {"ok"}, [c["message"] for c in cells
                                                      if c["status"] != "ok"]
    trees = [c for c in cells if c["task"] == "net_aggregate"]
    cells = [c for c in cells if c["task"] == "net_fetch"]
    densities = {c["setting"]: json.loads(c["counters"])["density"] for c in trees}
    assert set(densities) == {"tree_depth=3 density=0.001", "tree_depth=3 density=0.005"}
    assert densities["tree_depth=3 density=0.001"] == pytest.approx(0.001, rel=0.05)
    assert densities["tree_depth=3 density=0.005"] == pytest.approx(0.005, rel=0.05)
    settings = {(c["model"], c["method"], c["setting"], c["n"]) for c in cells}
    for model, per_server in (("part", 8), ("trade", 4)):
        for source in ("ram", "disk", "decode"):
            assert (model, "rkyv", f"source={source} servers=2", per_server) in settings
    for c in cells:
        assert (c["got_count"], c["got_sum"]) == (c["expected_count"], c["expected_sum"])
        assert c["got_count"] == 2 * c["n"]
    nodes = json.loads(next(extra for cell_id, extra in samples
                            if cell_id == cells[0]["cell_id"]))["nodes"]
    assert set(nodes) == {"server0", "server1", "client"}
    assert nodes["client"]["bytes_received"] > 0
    assert not (home / "runs" / run["run_id"] / "net").exists() or \
        not any((home / "runs" / run["run_id"] / "net").iterdir())
    output = cli_ok("report")
    markdown = next(Path(w) for w in output.split() if w.endswith(".md")).read_text()
    assert "Network fetch" in markdown
    # the network table and every node's figures, on the network the plan named
    assert "× transfer floor" in markdown and "busiest node" in markdown
    assert "every node at n = 8" in markdown and "server1" in markdown
    # the aggregation against density: one row per implementation, one column per density
    density_table = markdown.split("net_aggregate · sparse: time against density")[1]
    header, _, *rows = [line for line in density_table.splitlines()
                        if line.startswith("|")][:4]
    assert "density 0.001" in header and "density 0.005" in header
    assert [r.split(" | ")[0].strip("| ") for r in rows] == [
        "rust · handcoded · materialize · tree_depth=3", "rust · json · materialize · tree_depth=3"]
    # the published network findings beside this run's ratios (part: the run has no customer)
    published = {line.split(" | ")[0].strip("| "): line for line in markdown.splitlines()
                 if line.startswith("| networked requests")}
    assert "rust n = 3/server: size" in published[
        "networked requests from disk: time follows size (BSON / JSON+gzip, Customer)"]
    assert "rust rkyv" in published["networked requests from RAM: in-place against the "
                                    "closest competitor, small requests"]


@pytest.mark.parametrize("line, problem", [
    ("sources = [\"tape\"]", "sources: must be one of ram, disk, decode, got 'tape'"),
    ("net_page_bytes = 1073741824", r"params.net_page_bytes: net_page_bytes \(1073741824\) "
                                    r"must not exceed net_frame_bytes \(67108864\)"),
    ("net_frame_bytes = 1048576", r"params.net_frame_bytes: net_page_bytes \(20971520\) "
                                  r"must not exceed net_frame_bytes \(1048576\)"),
    ("net_frame_bytes = 65535", r"net_frame_bytes: must be an integer in "
                                r"\[65536, 1073741824\], got 65535"),
    ("net_frame_bytes = 1073741825", r"net_frame_bytes: must be an integer in "
                                     r"\[65536, 1073741824\], got 1073741825"),
    ("net_frame_bytes = \"64 MiB\"", "net_frame_bytes: must be an integer"),
    ("servers = 0", r"servers: must be an integer in \[1, 64\], got 0"),
    ("network = \"wifi\"", "network: must be loopback, none .* or a link rate"),
])
def test_impossible_network_parameters_are_refused_by_name(line, problem):
    from serbench.plan import PlanError, parse_plan
    with pytest.raises(PlanError, match=problem):
        parse_plan(f"[params]\n{line}\n[[group]]\ntasks = [\"net_fetch\"]\n", "p.toml", "p")


def test_a_frame_limit_above_64_mib_lets_network_pages_grow_with_it_per_group():
    from serbench.plan import PlanError, parse_plan
    plan = parse_plan("[params]\nnet_page_bytes = 65536\nnet_frame_bytes = 65536\n"
                      "[[group]]\ntasks = [\"net_fetch\"]\n"
                      "[[group]]\ntasks = [\"net_aggregate\"]\nnet_frame_bytes = 1073741824\n"
                      "net_page_bytes = 134217728\n", "p.toml", "p")
    assert [(g.params.net_page_bytes, g.params.net_frame_bytes) for g in plan.groups] == [
        (65536, 65536), (128 << 20, 1 << 30)]
    assert plan.params.net_frame_bytes == 65536
    assert parse_plan("[[group]]\ntasks = [\"net_fetch\"]\n", "p.toml",
                      "p").params.net_frame_bytes == 64 << 20
    # a group's own page above the frame it inherits is refused at the group's key
    with pytest.raises(PlanError, match=r"group\[1\].net_page_bytes: net_page_bytes "
                                        r"\(134217728\) must not exceed net_frame_bytes"):
        parse_plan("[[group]]\ntasks = [\"net_fetch\"]\nnet_page_bytes = 134217728\n",
                   "p.toml", "p")


def test_the_frame_limit_reaches_every_node_and_is_no_part_of_the_identity(tmp_path):
    """net_frame_bytes goes from the plan to the cell, its recorded params and counters'
    source, and from the cell to the setup params of every node of every network task."""
    from types import SimpleNamespace
    from serbench.plan import expand, parse_plan
    from serbench.network.sort_merge import SortMerge
    info = {"language": "rust", "models": ["part"], "tasks": ["net_fetch"],
            "net_tasks": ["net_fetch"],
            "methods": {"handcoded": {"depths": ["materialize"], "variants": [],
                                      "models": ["part"]}}}
    text = ('[params]\nn = 5\nservers = 2\nraw = false\n'
            '[[group]]\ntasks = ["net_fetch"]\nmodels = ["part"]\n')
    counts = lambda directory, model: 100  # noqa: E731

    def cells(extra: str):
        return expand(parse_plan(text + extra, "p.toml", "p"), {"rust": info}, counts,
                      tmp_path)
    default, raised = cells(""), cells("net_frame_bytes = 268435456\n")
    assert {c.net_frame_bytes for c in default} == {64 << 20}
    assert {c.net_frame_bytes for c in raised} == {256 << 20}
    assert [c.identity for c in default] == [c.identity for c in raised]
    assert {c.plan_params()["net_frame_bytes"] for c in raised} == {256 << 20}

    frame = 3 << 20
    jsonl = tmp_path / "parts" / "part.jsonl"
    jsonl.parent.mkdir()
    jsonl.write_text((VECTORS / "part.jsonl").read_text())
    plan_cell = SimpleNamespace(
        settings={"tree_depth": 2, "source": "disk", "servers": 2},
        dataset_dir=sparse_dataset(tmp_path / "d", 3, 1000, 0.01), model="sparse",
        method="handcoded", depth="materialize", language="rust", page_size=PAGE, n=2,
        net_page_bytes=4096, net_frame_bytes=frame, warmups=1, repetitions=2, timeout_s=60,
        warmup_max_ms=0, prewarm_max_ms=0)
    aggregate = Aggregate().net_cell(plan_cell, Path(), None, tmp_path / "agg")
    fetch = Fetch().net_cell(plan_cell, Path("in"), [1] * 4, tmp_path / "fetch")
    merge = SortMerge().net_cell(SimpleNamespace(**{**plan_cell.__dict__, "model": "part",
                                                    "dataset_dir": jsonl.parent}),
                                 Path("in"), None, tmp_path / "merge")
    for task, net_cell, count in ((Aggregate(), aggregate, 3), (Fetch(), fetch, 3),
                                  (SortMerge(), merge, 3)):
        nodes = task.nodes(net_cell)
        assert len(nodes) == count
        assert {node.params["net_frame_bytes"] for node in nodes} == {frame}, task.id
        assert {node.params["net_page_bytes"] for node in nodes if
                "net_page_bytes" in node.params} == {4096}, task.id
    # a cell built without one (as the interoperability proof's) leaves the drivers' default
    bare = NetCell(**{**fetch.__dict__, "params": {k: v for k, v in fetch.params.items()
                                                   if k != "net_frame_bytes"}})
    assert all("net_frame_bytes" not in node.params for node in Fetch().nodes(bare))


def test_the_reproduction_gives_the_aggregation_a_frame_for_its_largest_sum():
    """A middle node of the tree sends the sum of 3 vectors of 10^7 dimensions at density 0.1:
    126 MB in BSON, above the 64 MiB default."""
    from serbench.plan import load_embedded
    [tree] = [g for g in load_embedded("reproduce").groups if "net_aggregate" in g.tasks]
    assert max(tree.params.densities) == 0.1
    assert tree.params.net_frame_bytes == 256 << 20 > 126_254_463


def sparse_dataset(directory: Path, vectors: int, dimension: int, density: float) -> Path:
    """`vectors` random sparse vectors as a dataset with its manifest."""
    import random
    rng = random.Random(7)
    lines = []
    for _ in range(vectors):
        positions = sorted(rng.sample(range(dimension), int(dimension * density)))
        entries = [{"position": p, "value": rng.randrange(-100_000, 100_000) / 100}
                   for p in positions]
        lines.append(json.dumps({"dimension": dimension, "entries": entries}).encode())
    return write_dataset(directory, "sparse", lines, {"dimension": dimension,
                                                      "density": density})


def test_thinning_keeps_a_fixed_subset_near_the_density_asked_and_never_adds(tmp_path):
    from serbench.network.aggregate import DensityError, names, split_inputs
    data = sparse_dataset(tmp_path / "d", 3, 200_000, 0.05) / "sparse.jsonl"
    for name in "abce":
        (tmp_path / name).mkdir()
    first = split_inputs(data, names(3), tmp_path / "a", 0.01)
    again = split_inputs(data, names(3), tmp_path / "b", 0.01)
    assert first == again
    for vector, name in zip(first, names(3)):
        assert len(vector["entries"]) / 200_000 == pytest.approx(0.01, rel=0.05)
        assert json.loads((tmp_path / "a" / f"{name}.jsonl").read_text()) == vector
    whole = split_inputs(data, names(3), tmp_path / "c")
    kept = {e["position"]: e for e in first[0]["entries"]}
    assert all(kept[p] == e for p, e in ((e["position"], e) for e in whole[0]["entries"])
               if p in kept)
    with pytest.raises(DensityError, match="density 0.1 asked, the vector's is 0.05"):
        split_inputs(data, names(3), tmp_path / "e", 0.1)


def test_every_cell_and_round_of_a_density_reads_inputs_split_once(tmp_path, monkeypatch):
    """The nodes' inputs of one dataset file, tree and density are split once under the
    run's directory and reused, with their expectation, by every later cell and round; a
    new density, a rewritten file or a removed directory splits again."""
    from serbench.network import aggregate
    data = sparse_dataset(tmp_path / "d", 3, 20_000, 0.05) / "sparse.jsonl"
    splits = []
    real = aggregate.split_inputs

    def counted(*args):
        splits.append(args[3])
        return real(*args)
    monkeypatch.setattr(aggregate, "split_inputs", counted)
    root = tmp_path / "run" / "net" / "aggregate_inputs"
    first, expected = aggregate.shared_inputs(data, 3, 0.01, root)
    again, same = aggregate.shared_inputs(data, 3, 0.01, root)
    assert (again, same) == (first, expected) and splits == [0.01]
    assert {p.name for p in first.iterdir()} == {f"{n}.jsonl" for n in aggregate.names(3)}
    same["expected"]["sum"] = "changed by a caller"
    assert aggregate.shared_inputs(data, 3, 0.01, root)[1] == expected, "each caller a copy"
    other, _ = aggregate.shared_inputs(data, 3, 0.02, root)
    assert other != first and splits == [0.01, 0.02]
    shutil.rmtree(first)
    assert aggregate.shared_inputs(data, 3, 0.01, root) == (first, expected)
    assert splits == [0.01, 0.02, 0.01] and first.is_dir()


def aggregate_cell(rust, tmp_path, method: str, depth: int = 3):
    from types import SimpleNamespace
    plan_cell = SimpleNamespace(
        settings={"tree_depth": depth}, dataset_dir=sparse_dataset(tmp_path / "d", 8, 20_000, 0.05),
        model="sparse", method=method, depth="materialize", language="rust", page_size=PAGE,
        net_page_bytes=4096, net_frame_bytes=64 << 20, warmups=1, repetitions=2,
        timeout_s=60, warmup_max_ms=0, prewarm_max_ms=0)
    return Aggregate().net_cell(plan_cell, Path(), None, tmp_path / "work")


@pytest.mark.parametrize("method", ["handcoded", "protobuf"])
def test_a_tree_sums_sparse_vectors_to_the_independently_computed_total(rust, tmp_path,
                                                                         method):
    cell = aggregate_cell(rust, tmp_path, method)
    run = run_cell(Aggregate(), cell, LocalPlacement(), {"rust": rust})
    for reports in run.reports:
        assert set(reports) == {"root0", "middle1", "middle2", "leaf3", "leaf4", "leaf5",
                                "leaf6"}
        assert reports["root0"]["checksum"] == cell.params["expected"]
        # a middle node receives two leaves' vectors and sends one sum up
        assert reports["middle1"]["bytes_received"] > 0 and reports["middle1"]["bytes_sent"] > 0
        assert reports["leaf3"]["bytes_received"] == 0
    assert reports["root0"]["entries"] == cell.params["entries"] > 5000
    with DriverProcess("rust", rust) as driver:
        assert Aggregate().read_back_problem(cell, driver, "materialize") is None
    wrong = NetCell(**{**cell.__dict__, "params": {**cell.params,
                                                    "expected": {"count": 1, "sum": "0" * 16}}})
    assert "expected" in Aggregate().check(wrong, run.reports[-1])


@pytest.mark.parametrize("method", ["handcoded", "json"])
def test_a_tree_sort_merge_outputs_every_object_in_total_order(rust, parts, tmp_path, method):
    from types import SimpleNamespace
    from serbench.network.sort_merge import SortMerge
    jsonl, _ = parts
    plan_cell = SimpleNamespace(
        settings={"tree_depth": 3}, dataset_dir=jsonl.parent, model="part", method=method,
        depth="materialize", language="rust", page_size=PAGE, n=28, net_page_bytes=2048,
        net_frame_bytes=64 << 20, warmups=1, repetitions=2, timeout_s=60, warmup_max_ms=0, prewarm_max_ms=0)
    cell = SortMerge().net_cell(plan_cell, encoded(rust, jsonl, method), None, tmp_path / "w")
    run = run_cell(SortMerge(), cell, LocalPlacement(), {"rust": rust})
    root = run.reports[-1]["root0"]
    assert root["objects"] == 7 * 28 == cell.params["expected"]["count"]
    assert root["sequence"] == cell.params["expected"]["sum"]
    # a middle node passes on its two leaves' objects and its own
    assert run.reports[-1]["middle1"]["objects"] == 3 * 28
    with DriverProcess("rust", rust) as driver:
        assert SortMerge().read_back_problem(cell, driver, "materialize") is None
    shuffled = NetCell(**{**cell.__dict__, "params": {**cell.params, "expected": {
        **cell.params["expected"], "sum": "0" * 16}}})
    assert "expected" in SortMerge().check(shuffled, run.reports[-1])


def test_the_transfer_floor_is_the_busiest_node_at_the_slowest_measured_link():
    from types import SimpleNamespace
    from serbench.report.net_cells import network_note, transfer_floor_ns
    shaped = SimpleNamespace(
        counters={"network": "namespaces", "link_rate_bit": 10**9,
                  "measured_bit": {"a": 950_000_000, "b": 900_000_000}},
        nodes={"client": {"bytes_received": 900_000_000}, "server0": {"bytes_received": 1000}})
    assert transfer_floor_ns(shaped) == pytest.approx(8e9)
    assert network_note(shaped) == "tbf 1 Gbit/s, measured 0.9–0.95 Gbit/s"
    loopback = SimpleNamespace(counters={"network": "loopback"}, nodes=shaped.nodes)
    assert transfer_floor_ns(loopback) is None
    assert network_note(loopback) == "loopback (no link limit)"
    fallback = SimpleNamespace(counters={"network": "loopback", "fallback": "1gbit asked; no root"},
                               nodes={})
    assert network_note(fallback) == "1gbit asked; no root"


class _TimedByClient:
    def timing_node(self, cell):
        return "client"


def test_a_cell_warms_up_on_only_while_a_node_compiles_and_for_its_limit_at_most():
    cell = NetCell("net_fetch", "part", "handcoded", "ram", "materialize", {},
                   warmups=1, warmup_max_ms=60_000)
    busy = {"client": {"total_ns": 10**8}, "server0": {"jit_ms": 6, "jit_cpu_ns": 0}}
    quiet = {"client": {"total_ns": 10**8}, "server0": {"jit_ms": 0, "jit_cpu_ns": 0}}
    now = time.monotonic()
    assert cell_module.warming(_TimedByClient(), cell, cell_module.CellRun([busy]), now)
    assert not cell_module.warming(_TimedByClient(), cell, cell_module.CellRun([busy, quiet]),
                                   now)
    assert not cell_module.warming(_TimedByClient(), cell, cell_module.CellRun([busy]),
                                   now - 61)
    fixed = NetCell("net_fetch", "part", "handcoded", "ram", "materialize", {}, warmups=1)
    assert not cell_module.warming(_TimedByClient(), fixed, cell_module.CellRun([busy]), now)


def test_networks_made_at_once_get_subnets_of_their_own():
    """Two harnesses making networks at the same moment (here two threads, each with its own
    lock file handle, as two processes have) each find a subnet the other did not take."""
    require_namespaces()
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(4) as pool:
        made = list(pool.map(lambda _: NamespaceNetwork(None).create(), range(4)))
    try:
        assert len({network.subnet for network in made}) == 4
    finally:
        for network in made:
            network.close()
