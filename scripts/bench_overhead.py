#!/usr/bin/env python3
"""The harness's own cost per driver request: the median round trip of a trivial `info`
request through DriverProcess (JSON out, pipe, driver, pipe, JSON in), in microseconds.

Measured against the test fake driver (a Python program, so an upper bound dominated by the
fake itself) and against every real driver that is built. Target: well under 1 ms.
Usage: .venv/bin/python scripts/bench_overhead.py [--requests N]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from fake_driver import install  # noqa: E402  (tests/ is not a package)
from serbench.drivers.process import DriverProcess, find_drivers  # noqa: E402


def median_round_trip_us(language: str, path: Path, requests: int) -> float:
    with DriverProcess(language, path, timeout_s=30) as driver:
        for _ in range(20):  # warm both ends
            driver.request("info")
        times = []
        for _ in range(requests):
            t0 = time.perf_counter_ns()
            driver.request("info")
            times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        targets = {"fake (python)": ("rust", install(Path(tmp)))}
        targets.update({f"{lang} driver": (lang, path) for lang, path in find_drivers().items()})
        for label, (language, path) in targets.items():
            us = median_round_trip_us(language, path, args.requests)
            print(f"{label:16} median round trip {us:8.1f} µs over {args.requests} info requests")


if __name__ == "__main__":
    main()
