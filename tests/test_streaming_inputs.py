"""Issue 20.8: verifying and encoding a dataset needs memory bounded by pages, not by the
data. Each driver goes through a JSON Lines file of FILE_BYTES with `load`, `roundtrip` and
`encode` to the right checksum while holding far less: Java within a heap of half the file
(holding the file's objects was an OutOfMemoryError), C++ and Rust with a peak resident size
under half the file."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import built_driver
from serbench.models.checksum import hex64, object_hash, set_checksum
from serbench.drivers.process import DriverProcess

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
    path = built_driver(language)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SERBENCH_JAVA_OPTS", JAVA_HEAP)
        with DriverProcess(language, path, timeout_s=120) as d:
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



def test_memory_per_method_script_checks_and_reports_each_method(tmp_path):
    """scripts/memory-per-method, which measured the SF 1 figures: a line per method with its
    steps, checked, and its peak; a model the dataset lacks is a clear error."""
    import subprocess
    import sys

    from fake_driver import make_dataset

    script = [sys.executable, str(VECTORS.parent / "scripts" / "memory-per-method"),
              str(make_dataset(tmp_path / "data", models=("customer",)))]
    done = subprocess.run([*script, "customer", "--language", "rust", "--method", "handcoded",
                           "--method", "json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [["rust", "handcoded"], ["rust", "json"]]
    assert all("roundtrip" in line and "scan materialize" in line and
               re.search(r"peak RSS \d+ MiB$", line) for line in lines), lines
    missing = subprocess.run([*script, "part"], capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and "part" in missing.stderr
    assert "Traceback" not in missing.stderr
