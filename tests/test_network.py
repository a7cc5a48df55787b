"""The network tasks through real Rust nodes on loopback (PROTOCOL.md 10): every variant of
net_fetch checked per repetition and read back through a validating scan; a peer speaking
another method refused; a server killed mid-run fails the cell naming it, within seconds,
with no node left running."""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from serbench.checksum import hex64, object_hash, set_checksum
from serbench.driver import DriverProcess, find_drivers
from serbench.network import cell as cell_module
from serbench.network.cell import NetCell, NetFailure, run_cell
from serbench.network.fetch import Fetch, scan_problem
from serbench.network.placement import LocalPlacement

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
PAGE = 256
COPIES = 50  # 200 part objects: several storage pages and network pages per server


@pytest.fixture(scope="module")
def rust() -> Path:
    found = find_drivers().get("rust")
    if found is None:
        pytest.fail("the Rust driver is not built; run `serbench build`")
    return found


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
              "server_language": "rust", "client_language": "rust",
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


def test_a_server_killed_mid_run_fails_the_cell_naming_it(rust, parts, tmp_path):
    cell = fetch_cell(rust, parts, tmp_path, "handcoded", "ram", repetitions=100_000)
    cell = NetCell(**{**cell.__dict__, "repetitions": 100_000})
    placement = LocalPlacement()
    killer = threading.Timer(1.0, lambda: placement.nodes[1].proc.kill())
    killer.start()
    began = time.monotonic()
    with pytest.raises(NetFailure) as failure:
        run_cell(Fetch(), cell, placement, {"rust": rust})
    killer.cancel()
    assert time.monotonic() - began < 30
    assert failure.value.node == "server1"
    assert "node server1 died (killed by signal 9)" in str(failure.value)
    assert placement.nodes == []  # every node was killed and reaped
