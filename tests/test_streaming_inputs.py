"""Issue 20.8: verifying and encoding a dataset needs memory bounded by pages, not by the
data. The Java driver runs with a 32 MiB heap over a JSON Lines file twice that size: `load`,
`roundtrip` and `encode` must each go through the whole file to the right checksum (holding
the file's objects would be an OutOfMemoryError)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from serbench.checksum import hex64, object_hash, set_checksum
from serbench.driver import BUILD_PATHS, DriverProcess

VECTORS = Path(__file__).resolve().parent.parent / "vectors"
HEAP = "-Xms32m -Xmx32m"
FILE_BYTES = 64 << 20


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    """The golden customers repeated to FILE_BYTES, and the file's set checksum."""
    lines = (VECTORS / "customer.jsonl").read_text("utf-8").splitlines(keepends=True)
    copies = FILE_BYTES // sum(len(line.encode()) for line in lines) + 1
    path = tmp_path_factory.mktemp("big") / "customer.jsonl"
    path.write_text("".join(lines) * copies, encoding="utf-8")
    count, total = set_checksum(object_hash("customer", json.loads(line)) for line in lines)
    return path, {"count": count * copies, "sum": hex64(total * copies % 2**64)}


@pytest.fixture(scope="module")
def java(monkeypatch_module):
    if not BUILD_PATHS["java"].is_file():
        pytest.fail("java driver not built; run `serbench build`")
    monkeypatch_module.setenv("SERBENCH_JAVA_OPTS", HEAP)
    with DriverProcess("java", BUILD_PATHS["java"], timeout_s=120) as d:
        yield d


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def ok(answer: dict) -> dict:
    assert answer["status"] == "ok", answer
    return answer["result"]


def test_load_streams(java, big_file):
    path, want = big_file
    assert ok(java.request("load", model="customer", params={"input": str(path)}))[
        "checksum"] == want


def test_roundtrip_streams(java, big_file):
    path, want = big_file
    result = ok(java.request("roundtrip", model="customer", method="handcoded",
                             depth="materialize", variant="", params={"input": str(path)}))
    assert result["checksum"] == want and result["mismatches"] == 0


def test_encode_streams(java, big_file, tmp_path):
    path, want = big_file
    out = tmp_path / "customer"
    ok(java.request("encode", model="customer", method="handcoded", variant="", depth="",
                    params={"input": str(path), "output": str(out), "page_size": 65536}))
    scanned = ok(java.request("scan", model="customer", method="handcoded", variant="",
                              depth="materialize", params={"input": str(out),
                                                           "page_size": 65536}))
    assert scanned["checksum"] == want
