"""The network tasks through real C++ nodes on loopback (PROTOCOL.md 10), as the harness runs
them: every net_fetch variant checked per repetition and read back through the C++ driver's
validating scan (inplace's `ram` served from the pages it holds, with no encode step); a plan
whose C++ network cells all verify ok; a peer speaking another method refused and a C++ node
killed mid-cell named. Mixed cells (a Rust client fetching from C++ servers and the reverse)
show the bytes on the wire are one paged format. Skipped when the C++ driver is not built (the
mixed ones also need the Rust driver)."""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from serbench import driver as driver_module
from serbench.checksum import hex64, object_hash, set_checksum
from serbench.driver import BUILD_PATHS, LANGUAGES, DriverProcess, env_var
from serbench.network import cell as cell_module
from serbench.network.aggregate import Aggregate
from serbench.network.cell import NetCell, NetFailure, run_cell
from serbench.network.fetch import Fetch, scan_problem
from serbench.network.placement import LocalPlacement
from serbench.network.sort_merge import SortMerge
from serbench.results import Results

from fake_driver import make_dataset
from test_end_to_end import cli_ok
from test_network import sparse_dataset

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
CPP = BUILD_PATHS["cpp"]
RUST = BUILD_PATHS["rust"]
PAGE = 256
COPIES = 50  # 200 part objects: several storage pages and network pages per server


def built(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


@pytest.fixture(scope="module")
def cpp() -> Path:
    if not built(CPP):
        pytest.skip(f"{CPP} is not built; run `serbench build`")
    return CPP


@pytest.fixture(scope="module")
def rust() -> Path:
    if not built(RUST):
        pytest.skip(f"{RUST} is not built; run `serbench build`")
    return RUST


@pytest.fixture(scope="module")
def parts(tmp_path_factory) -> tuple[Path, list[int]]:
    lines = (VECTORS / "part.jsonl").read_text().splitlines() * COPIES
    path = tmp_path_factory.mktemp("netcpp") / "part.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path, [object_hash("part", json.loads(line)) for line in lines]


def encoded(cpp: Path, jsonl: Path, method: str) -> Path:
    """The method's paged file of `jsonl`, written by the C++ driver."""
    base = jsonl.parent / f"part-{method}"
    if not base.with_suffix(".index").exists():
        with DriverProcess("cpp", cpp) as driver:
            response = driver.request("encode", model="part", method=method, variant="",
                                      depth="", params={"input": str(jsonl), "output": str(base),
                                                        "page_size": PAGE})
            assert response["status"] == "ok", response
    return base


def fetch_cell(cpp, parts, tmp_path, method="handcoded", variant="disk", servers=2, n=60,
               server="cpp", client="cpp", **extra) -> NetCell:
    jsonl, hashes = parts
    count, total = set_checksum(hashes[:servers * n])
    output = tmp_path / f"out-{method}-{variant}"
    output.mkdir()
    params = {"servers": servers, "n": n, "start": 0, "input": encoded(cpp, jsonl, method),
              "output": output, "page_size": PAGE, "net_page_bytes": 2048,
              "server_language": server, "client_language": client,
              "expected": {"count": count, "sum": hex64(total)}, **extra}
    return NetCell("net_fetch", "part", method, variant, "materialize", params, warmups=1,
                   repetitions=2, timeout_s=60)


def check_fetch(run, cell, variant, scanner: Path, language: str = "cpp") -> None:
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
    with DriverProcess(language, scanner) as driver:
        assert scan_problem(driver, cell, "materialize") is None


def test_info_lists_the_network_tasks_the_nodes_run(cpp):
    with DriverProcess("cpp", cpp) as driver:
        assert "net_fetch" in driver.info()["net_tasks"]


@pytest.mark.parametrize("method", ["handcoded", "json", "inplace"])
@pytest.mark.parametrize("variant", ["ram", "disk", "decode"])
def test_every_cpp_fetch_variant_moves_exactly_the_objects(cpp, parts, tmp_path, method,
                                                           variant):
    cell = fetch_cell(cpp, parts, tmp_path, method, variant)
    run = run_cell(Fetch(), cell, LocalPlacement(), {"cpp": cpp})
    check_fetch(run, cell, variant, cpp)


def tree_cell(language: str, tmp_path: Path, method: str):
    plan_cell = SimpleNamespace(
        settings={"tree_depth": 3}, dataset_dir=sparse_dataset(tmp_path / "d", 8, 20_000, 0.05),
        model="sparse", method=method, depth="materialize", language=language, page_size=PAGE,
        net_page_bytes=4096, warmups=1, repetitions=2, timeout_s=60)
    return Aggregate().net_cell(plan_cell, Path(), None, tmp_path / "work")


@pytest.mark.parametrize("method", ["handcoded", "protobuf", "inplace"])
def test_a_cpp_tree_sums_sparse_vectors_to_the_harness_total(cpp, tmp_path, method):
    cell = tree_cell("cpp", tmp_path, method)
    run = run_cell(Aggregate(), cell, LocalPlacement(), {"cpp": cpp})
    for reports in run.reports:
        assert reports["root0"]["checksum"] == cell.params["expected"]
        assert reports["middle1"]["bytes_received"] > 0 and reports["middle1"]["bytes_sent"] > 0
        assert reports["leaf3"]["bytes_received"] == 0
    assert run.reports[-1]["root0"]["entries"] == cell.params["entries"] > 5000
    with DriverProcess("cpp", cpp) as driver:
        assert Aggregate().read_back_problem(cell, driver, "materialize") is None


def sort_cell(cpp, parts, tmp_path, method, language="cpp"):
    jsonl, _ = parts
    plan_cell = SimpleNamespace(
        settings={"tree_depth": 3}, dataset_dir=jsonl.parent, model="part", method=method,
        depth="materialize", language=language, page_size=PAGE, n=28, net_page_bytes=2048,
        warmups=1, repetitions=2, timeout_s=60)
    return SortMerge().net_cell(plan_cell, encoded(cpp, jsonl, method), None, tmp_path / "w")


@pytest.mark.parametrize("method", ["handcoded", "json", "inplace", "protobuf"])
def test_a_cpp_tree_sort_merge_outputs_every_object_in_total_order(cpp, parts, tmp_path,
                                                                    method):
    cell = sort_cell(cpp, parts, tmp_path, method)
    run = run_cell(SortMerge(), cell, LocalPlacement(), {"cpp": cpp})
    for reports in run.reports:
        root = reports["root0"]
        assert root["objects"] == 7 * 28 == cell.params["expected"]["count"]
        assert root["sequence"] == cell.params["expected"]["sum"]
        assert reports["middle1"]["objects"] == 3 * 28
        assert reports["leaf3"]["objects"] == 28 and reports["leaf3"]["bytes_received"] == 0
    with DriverProcess("cpp", cpp) as driver:
        assert SortMerge().read_back_problem(cell, driver, "materialize") is None


def test_inplace_ram_ships_the_stored_pages_as_they_are(cpp, parts, tmp_path):
    """inplace's native objects are their page bytes: `ram` sends exactly what `disk` does."""
    sent = {}
    for variant in ("ram", "disk"):
        cell = fetch_cell(cpp, parts, tmp_path, "inplace", variant)
        run = run_cell(Fetch(), cell, LocalPlacement(), {"cpp": cpp})
        sent[variant] = [(r["server0"]["bytes_sent"], r["server1"]["bytes_sent"])
                         for r in run.reports]
        out = cell.params["output"]
        sent[variant + "-files"] = [(out / f"server{i}.pages").read_bytes() for i in (0, 1)]
    assert sent["ram"] == sent["disk"]
    assert sent["ram-files"] == sent["disk-files"]


def test_a_cpp_peer_speaking_another_method_is_refused_by_name(cpp, parts, tmp_path,
                                                              monkeypatch):
    cell = fetch_cell(cpp, parts, tmp_path, "handcoded", "disk")
    real = cell_module.setup_message

    def client_speaks_json(c, spec):
        message = real(c, spec)
        return {**message, "method": "json"} if spec.role == "client" else message

    monkeypatch.setattr(cell_module, "setup_message", client_speaks_json)
    placement = LocalPlacement()
    with pytest.raises(NetFailure) as failure:
        run_cell(Fetch(), cell, placement, {"cpp": cpp})
    assert "speaks method 'json', this node speaks 'handcoded'" in str(failure.value)
    assert placement.nodes == []


def test_a_cpp_server_killed_mid_run_fails_the_cell_naming_it(cpp, parts, tmp_path):
    cell = fetch_cell(cpp, parts, tmp_path, "handcoded", "ram")
    cell = NetCell(**{**cell.__dict__, "repetitions": 1_000_000})
    placement = LocalPlacement()
    killer = threading.Timer(1.5, lambda: placement.nodes[1].proc.kill())
    killer.start()
    began = time.monotonic()
    with pytest.raises(NetFailure) as failure:
        run_cell(Fetch(), cell, placement, {"cpp": cpp})
    killer.cancel()
    assert time.monotonic() - began < 40
    assert failure.value.node == "server1"
    assert "node server1 died (killed by signal 9)" in str(failure.value)
    assert placement.nodes == []


@pytest.mark.parametrize("server, client, method, variant", [
    ("cpp", "rust", "handcoded", "decode"),
    ("cpp", "rust", "json", "ram"),
    ("rust", "cpp", "json", "decode"),
    ("rust", "cpp", "handcoded", "ram"),
])
def test_a_mixed_fetch_moves_one_paged_format(cpp, rust, parts, tmp_path, server, client,
                                              method, variant):
    cell = fetch_cell(cpp, parts, tmp_path, method, variant, server=server, client=client)
    run = run_cell(Fetch(), cell, LocalPlacement(), {"cpp": cpp, "rust": rust})
    # the client's files read back through the other language's scan too
    check_fetch(run, cell, variant, {"cpp": cpp, "rust": rust}[server], server)


NET_PLAN = """
name = "net-cpp"
[params]
page_size = 256
warmups = 1
repetitions = 2
timeout_s = 120
servers = 2
n = [3, 1000]            # objects per server; 1000 is capped at count / servers
net_page_bytes = 65536
network = "loopback"
[[group]]
tasks = ["net_fetch"]
models = ["part"]
methods = ["handcoded", "inplace"]
languages = ["cpp"]
raw = false
[[group]]
tasks = ["net_aggregate"]
dataset = "SPARSE"
models = ["sparse"]
methods = ["handcoded", "inplace"]
languages = ["cpp"]
[[group]]
tasks = ["net_sort_merge"]
models = ["tweet"]
methods = ["msgpack", "inplace"]
languages = ["cpp"]
n = [2]
"""


@pytest.fixture
def cpp_home(cpp, tmp_path: Path, monkeypatch) -> Path:
    """A private SERBENCH_HOME with golden-vector datasets; only the real C++ driver."""
    home = tmp_path / "home"
    monkeypatch.setenv("SERBENCH_HOME", str(home))
    monkeypatch.setattr(driver_module, "BUILD_PATHS",
                        {lang: CPP if lang == "cpp" else tmp_path / "none"
                         for lang in LANGUAGES})
    for language in LANGUAGES:
        monkeypatch.delenv(env_var(language), raising=False)
    make_dataset(home / "data" / "default", models=("part", "tweet"), copies=4)
    return home


def test_a_plan_runs_cpp_network_cells_that_all_verify(cpp_home, tmp_path):
    plan = tmp_path / "net.toml"
    plan.write_text(NET_PLAN.replace("SPARSE", str(sparse_dataset(tmp_path / "sparse", 7,
                                                                    200_000, 0.01))))
    cli_ok("run", str(plan))
    with Results(cpp_home / "results.duckdb") as results:
        [run] = results.runs()
        cells = results.cells(run["run_id"])
    assert {c["status"] for c in cells} == {"ok"}, [(c["task"], c["method"], c["message"])
                                                    for c in cells if c["status"] != "ok"]
    assert {c["language"] for c in cells} == {"cpp"}
    assert {c["task"] for c in cells} == {"net_fetch", "net_aggregate", "net_sort_merge"}
    fetches = {(c["method"], c["setting"], c["n"]) for c in cells if c["task"] == "net_fetch"}
    for method in ("handcoded", "inplace"):
        for source in ("ram", "disk", "decode"):
            assert (method, f"source={source} servers=2", 8) in fetches
    # (a sort-merge cell's expected sum is the sequence checksum; its root's report says it)
    for c in cells:
        same = ("got_count", "got_sum") if c["task"] != "net_sort_merge" else ("got_count",)
        assert [c[k] for k in same] == [c[k.replace("got", "expected")] for k in same]
