"""The driver protocol handling: answers, and every way a driver can misbehave."""
from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest

from conftest import require
from fake_driver import install, make_dataset
from serbench.drivers import process as driver_module
from serbench.drivers.process import (STDERR_TAIL_BYTES, DriverFailure, DriverProcess, find_drivers,
                                      new_run_stamp)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return make_dataset(tmp_path / "data", models=("trade",), copies=1)


def start(tmp_path: Path, timeout_s: float = 10.0, **settings) -> DriverProcess:
    return DriverProcess("rust", install(tmp_path / "bin", **settings), timeout_s).start()


def load(driver: DriverProcess, data: Path) -> dict:
    return driver.request("load", model="trade", params={"input": str(data / "trade.jsonl")})


def test_ok_answer_matches_id_and_carries_result(tmp_path, data):
    with start(tmp_path) as driver:
        first = load(driver, data)
        second = load(driver, data)
    assert first["status"] == second["status"] == "ok"
    assert second["id"] == first["id"] + 1
    assert first["result"]["checksum"] == {"count": 2, "sum": "c6368aea97a6a75c"}


def test_info_op_and_info_command_agree(tmp_path):
    with start(tmp_path) as driver:
        served = driver.request("info")["result"]
        assert driver.info() == served
    assert served["language"] == "rust" and "fakejson" in served["methods"]


def test_unsupported_and_error_answers_are_returned_not_raised(tmp_path, data):
    with start(tmp_path, mode="unsupported") as driver:
        answer = load(driver, data)
        assert answer["status"] == "unsupported" and answer["message"]
        assert driver.alive
    with start(tmp_path, mode="error") as driver:
        answer = load(driver, data)
        assert answer["status"] == "error"
        assert answer["error"] == {"kind": "internal", "message": "fake failure"}
        assert driver.alive


def test_a_run_stamp_goes_with_every_request_on_paged_files(tmp_path, data):
    """PROTOCOL.md 4.2: encode, scan and run carry the run's stamp (the fake fails the ones
    that do); a driver without one sends none."""
    stamp = new_run_stamp()
    assert len(bytes.fromhex(stamp)) == 16 and stamp == stamp.lower() != new_run_stamp()
    path = install(tmp_path / "bin", mode="error", on=f"run_stamp={stamp}")
    base = str(tmp_path / "trade")
    encode = {"model": "trade", "method": "fakejson", "depth": "", "variant": "",
              "params": {"input": str(data / "trade.jsonl"), "output": base}}
    with DriverProcess("rust", path, 10.0, run_stamp=stamp) as driver:
        assert load(driver, data)["status"] == "ok"
        assert driver.request("encode", **encode)["status"] == "error"
    with DriverProcess("rust", path, 10.0) as driver:
        assert driver.request("encode", **encode)["status"] == "ok"


def test_driver_error_kinds_pass_through(tmp_path):
    with start(tmp_path) as driver:
        answer = driver.request("load", model="trade", params={"input": "/nonexistent.jsonl"})
    assert answer["status"] == "error" and answer["error"]["kind"] == "not_found"


def test_crash_raises_with_stderr_tail(tmp_path, data):
    driver = start(tmp_path, mode="crash", after=1)
    assert load(driver, data)["status"] == "ok"
    with pytest.raises(DriverFailure) as caught:
        load(driver, data)
    failure = caught.value
    assert failure.kind == "crash"
    assert "exit status 3" in failure.message
    assert "crashing on purpose" in failure.stderr_tail
    assert not driver.alive
    with pytest.raises(DriverFailure, match="not running"):
        load(driver, data)


def test_hang_times_out_and_kills_the_process_group(tmp_path, data):
    driver = start(tmp_path, timeout_s=0.5, mode="hang")
    pid = driver._proc.pid
    with pytest.raises(DriverFailure) as caught:
        load(driver, data)
    assert caught.value.kind == "hang"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_per_request_timeout_overrides_the_default(tmp_path, data):
    driver = start(tmp_path, timeout_s=600, mode="hang")
    with pytest.raises(DriverFailure, match="within 0.3 s"):
        driver.request("load", timeout_s=0.3, model="trade", params={"input": "x"})


@pytest.mark.parametrize("mode, words", [
    ("garbage", "not JSON"),
    ("wrong_id", "expected"),
    ("no_status", "status None"),
])
def test_garbage_answers_raise_garbage(tmp_path, data, mode, words):
    driver = start(tmp_path, mode=mode)
    with pytest.raises(DriverFailure) as caught:
        load(driver, data)
    assert caught.value.kind == "garbage"
    assert words in caught.value.message
    assert not driver.alive


def test_stderr_is_drained_and_only_its_tail_kept(tmp_path, data):
    with start(tmp_path, mode="noisy") as driver:  # 200 kB of stderr must not block it
        for _ in range(3):
            assert load(driver, data)["status"] == "ok"
    # After close the pipe is at EOF, so joining the drain thread cannot race the last write.
    tail = driver._stderr.text(settle_s=10)
    assert len(tail.encode()) <= STDERR_TAIL_BYTES
    assert tail.endswith("noisy tail\n")


def test_interrupted_request_kills_the_driver_on_close(tmp_path, data):
    driver = start(tmp_path, mode="hang")
    proc = driver._proc

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with pytest.raises(KeyboardInterrupt):
            load(driver, data)
    finally:
        signal.signal(signal.SIGALRM, previous)
    driver.close()
    assert proc.returncode is not None


def test_close_ends_the_driver(tmp_path):
    driver = start(tmp_path)
    proc = driver._proc
    driver.close()
    assert proc.returncode == 0


def test_cpu_pinning_runs_under_taskset(tmp_path, data):
    require(shutil.which("taskset") is not None, "taskset is not installed (util-linux)")
    path = install(tmp_path / "bin")
    assert DriverProcess("rust", path, cpu_list="0").command("serve")[1:3] == ["-c", "0"]
    with DriverProcess("rust", path, 10, cpu_list="0") as driver:
        assert load(driver, data)["status"] == "ok"
        assert os.sched_getaffinity(driver._proc.pid) == {0}


@pytest.mark.parametrize("mode, kind", [("garbage", "garbage"), ("crash", "crash")])
def test_info_command_failures(tmp_path, mode, kind):
    path = install(tmp_path / "bin", info=mode)
    with pytest.raises(DriverFailure) as caught:
        DriverProcess("rust", path).info()
    assert caught.value.kind == kind


def test_info_command_hang(tmp_path):
    path = install(tmp_path / "bin", info="hang")
    with pytest.raises(DriverFailure) as caught:
        DriverProcess("rust", path).info(timeout_s=0.5)
    assert caught.value.kind == "hang"


def test_info_must_name_its_language(tmp_path):
    path = install(tmp_path / "bin", language="cpp")
    with pytest.raises(DriverFailure, match="expected 'rust'"):
        DriverProcess("rust", path).info()


def test_start_failure(tmp_path):
    with pytest.raises(DriverFailure) as caught:
        DriverProcess("rust", tmp_path / "missing").start()
    assert caught.value.kind == "start"


def test_find_drivers_uses_env_then_build_paths(tmp_path, monkeypatch):
    fake = install(tmp_path / "bin")
    not_executable = tmp_path / "plain"
    not_executable.write_text("")
    monkeypatch.setattr(driver_module, "BUILD_PATHS", {
        "rust": tmp_path / "none", "cpp": fake, "java": not_executable})
    monkeypatch.setenv("SERBENCH_DRIVER_RUST", str(fake))
    monkeypatch.delenv("SERBENCH_DRIVER_CPP", raising=False)
    monkeypatch.delenv("SERBENCH_DRIVER_JAVA", raising=False)
    assert find_drivers() == {"rust": fake, "cpp": fake}
    monkeypatch.setenv("SERBENCH_DRIVER_CPP", str(tmp_path / "nowhere"))
    assert find_drivers() == {"rust": fake}
