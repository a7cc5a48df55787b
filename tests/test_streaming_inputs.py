"""Issue 20.8: verifying and encoding a dataset needs memory bounded by pages, not by the
data. Each driver goes through a JSON Lines file of FILE_BYTES with `load`, `roundtrip` and
`encode` to the right checksum while holding far less: Java within a heap of half the file
(holding the file's objects was an OutOfMemoryError), C++ and Rust with a peak resident size
under half the file."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from serbench.checksum import hex64, object_hash, set_checksum
from serbench.driver import BUILD_PATHS, DriverProcess

VECTORS = Path(__file__).resolve().parent.parent / "vectors"
FILE_BYTES = 64 << 20
JAVA_HEAP = f"-Xms{FILE_BYTES >> 21}m -Xmx{FILE_BYTES >> 21}m"
LANGUAGES = ("cpp", "java", "rust")


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    """The golden customers repeated to FILE_BYTES, and the file's set checksum."""
    lines = (VECTORS / "customer.jsonl").read_text("utf-8").splitlines(keepends=True)
    copies = FILE_BYTES // sum(len(line.encode()) for line in lines) + 1
    path = tmp_path_factory.mktemp("big") / "customer.jsonl"
    path.write_text("".join(lines) * copies, encoding="utf-8")
    count, total = set_checksum(object_hash("customer", json.loads(line)) for line in lines)
    return path, {"count": count * copies, "sum": hex64(total * copies % 2**64)}


@pytest.fixture(scope="module", params=LANGUAGES)
def driver(request):
    language = request.param
    if not BUILD_PATHS[language].is_file():
        pytest.fail(f"{language} driver not built; run `serbench build`")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SERBENCH_JAVA_OPTS", JAVA_HEAP)
        with DriverProcess(language, BUILD_PATHS[language], timeout_s=120) as d:
            yield d
            if language != "java":  # the JVM's bound is its heap
                assert peak_rss(d.pid) < FILE_BYTES // 2


def peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def ok(answer: dict) -> dict:
    assert answer["status"] == "ok", answer
    return answer["result"]


def test_load_streams(driver, big_file):
    path, want = big_file
    assert ok(driver.request("load", model="customer", params={"input": str(path)}))[
        "checksum"] == want


def test_roundtrip_streams(driver, big_file):
    path, want = big_file
    result = ok(driver.request("roundtrip", model="customer", method="handcoded",
                               depth="materialize", variant="", params={"input": str(path)}))
    assert result["checksum"] == want and result["mismatches"] == 0


def test_encode_streams(driver, big_file, tmp_path):
    path, want = big_file
    out = tmp_path / "customer"
    ok(driver.request("encode", model="customer", method="handcoded", variant="", depth="",
                      params={"input": str(path), "output": str(out), "page_size": 65536}))
    scanned = ok(driver.request("scan", model="customer", method="handcoded", variant="",
                                depth="materialize", params={"input": str(out),
                                                             "page_size": 65536}))
    assert scanned["checksum"] == want
