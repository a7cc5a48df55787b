"""The sort's memory bound (PROTOCOL.md 5.2) through the real Rust and C++ release drivers:
peak RSS stays within the RSS at the start + the budget + the driver's documented slack, on an
input whose decoded objects alone (by the driver's own `memory` task) would exceed all of that
by half again, so that a sort ignoring its budget fails. Java's bound, in a heap smaller than
the input: tests/test_java_tasks.py."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import built_driver
from serbench.drivers.process import DriverProcess
from serbench.datasets.native import datagen_path

BUDGET = 1 << 20
PAGE = 65536
# each driver's documented slack beyond the budget: fixed bytes, bytes per input object
SLACK = {
    "rust": (16 << 20, 64),  # drivers/rust/driver/src/tasks/sort_dedup.rs
    "cpp": (4 << 20, 64),  # drivers/cpp/README.md, sort_dedup
}
TRADES = 250_000  # ~60 MB decoded: well over the budget and the slack of either
CELL = {"model": "trade", "method": "handcoded", "variant": ""}
ONCE = {"warmups": 0, "repetitions": 1, "cold": False}


@pytest.fixture(scope="module")
def trades(tmp_path_factory) -> Path:
    """Generated trades with every seventh repeated: removing duplicates is part of the work."""
    source = tmp_path_factory.mktemp("sort") / "trade.jsonl"
    subprocess.run([str(datagen_path()), "trade", "--n", str(TRADES), "--seed", "7",
                    "--out", str(source)], check=True, capture_output=True)
    with source.open() as f:
        lines = f.readlines()
    source.write_text("".join(lines + lines[::7]))
    return source


def request(language: str, task: str, depth: str, params: dict) -> dict:
    """One task in a fresh driver process (nothing an earlier task allocated is resident)."""
    with DriverProcess(language, built_driver(language), timeout_s=300).start() as driver:
        answer = driver.request("run", task=task, depth=depth, **CELL, params={**params, **ONCE})
    assert answer["status"] == "ok", answer
    return answer["result"]


@pytest.mark.parametrize("language", SLACK)
def test_sort_dedup_stays_within_its_budget_and_documented_slack(language, trades, tmp_path):
    base, output = tmp_path / "trade", tmp_path / "sorted"
    output.mkdir()
    request(language, "write", "", {"input": str(trades), "output": str(base),
                                    "page_size": PAGE})
    kept = request(language, "memory", "materialize", {"input": str(base), "n": 20_000})
    result = request(language, "sort_dedup", "materialize",
                     {"input": str(base), "output": str(output), "budget_bytes": BUDGET,
                      "page_size": PAGE})
    # every trade once (the repeats are exact copies); the order is checked by the harness in
    # every sort cell it runs (e.g. tests/test_rust_tasks.py): its Python reference would take
    # minutes over this many objects
    assert result["checksum"]["count"] == TRADES
    counters = result["counters"]
    fixed, per_object = SLACK[language]
    allowed = BUDGET + fixed + per_object * counters["input_objects"]
    # the premise that makes this test able to fail: holding every decoded object at once
    # would grow the RSS far past what is allowed
    whole = kept["counters"]["retained_bytes_per_object"] * counters["input_objects"]
    assert whole > 1.5 * allowed, f"input too small: {whole:,.0f} bytes decoded"
    assert counters["runs"] >= 10
    grown = counters["peak_rss_bytes"] - counters["rss_start_bytes"]
    assert grown <= allowed, f"{grown:,} bytes over the start, {allowed:,} allowed"
