"""Issue 20.4: a trusting read (Rust rkyv's and C++ inplace's default variant, which casts its
bytes without checks) opens only files its own driver wrote in this run. Every run draws a
stamp (PROTOCOL.md 4.2, index bytes 104..120) that its writers store and its reads carry; a
trusting read of a file stamped by another run, or by none, is `wrong_file` naming the file,
while the `validate` variant reads it. Through the real release drivers (`serbench build`).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import built_driver
from fake_driver import make_dataset
from serbench.drivers import process as driver_module
from serbench.datasets.manifest import data_path, load_manifest
from serbench.drivers.process import LANGUAGES, DriverProcess, env_var, new_run_stamp
from serbench.plan import parse_plan
from serbench.results import Results
from serbench.run.runner import run_plan

TRUSTING = {"rust": "rkyv", "cpp": "inplace"}  # the methods whose default trusts its bytes
PLAN = """
name = "stamped"
[params]
rounds_max = 1
n = [1000]
page_size = 4096
warmups = 0
repetitions = 1
timeout_s = 60
[[group]]
tasks = ["write", "read_seq", "read_rand"]
models = ["trade"]
methods = ["rkyv", "inplace"]
languages = ["rust", "cpp"]
"""


@pytest.mark.parametrize("language", sorted(TRUSTING))
def test_a_trusting_read_opens_only_a_file_of_its_own_run(language, tmp_path):
    method, base = TRUSTING[language], tmp_path / "trade"
    data = make_dataset(tmp_path / "data", models=("trade",), copies=1)
    count = load_manifest(data, "trade").count
    written, other = new_run_stamp(), new_run_stamp()

    def read(stamp: str | None, variant: str = "") -> dict:
        with DriverProcess(language, built_driver(language), timeout_s=30, run_stamp=stamp) as d:
            return d.request("run", task="read_seq", model="trade", method=method,
                             depth="access", variant=variant,
                             params={"input": str(base), "start": 0, "n": count,
                                     "cold": False, "warmups": 0, "repetitions": 1})

    with DriverProcess(language, built_driver(language), timeout_s=30, run_stamp=written) as d:
        encoded = d.request("encode", model="trade", method=method, depth="", variant="",
                            params={"input": str(data_path(data, "trade")),
                                    "output": str(base), "page_size": 4096})
    assert encoded["status"] == "ok", encoded
    assert Path(f"{base}.index").read_bytes()[104:128] == bytes.fromhex(written) + bytes(8)
    assert read(written)["status"] == "ok"
    for stamp, why in ((other, "written by another run"),
                       (None, "the request carries no run_stamp")):
        refused = read(stamp)
        assert refused["status"] == "error" and refused["error"]["kind"] == "wrong_file"
        message = refused["error"]["message"]
        assert message.startswith(f"{base}.index: {why}"), message
        assert "validate variant reads any" in message
        assert read(stamp, "validate")["status"] == "ok"


def test_a_run_reads_its_own_files_through_trusting_reads(tmp_path, monkeypatch):
    """A whole run in one stamp: every rkyv and inplace cell ok, the default variant's too."""
    paths = {language: built_driver(language) if language in TRUSTING else tmp_path / "none"
             for language in LANGUAGES}
    home = tmp_path / "home"
    monkeypatch.setenv("SERBENCH_HOME", str(home))
    monkeypatch.setattr(driver_module, "BUILD_PATHS", paths)
    for language in LANGUAGES:
        monkeypatch.delenv(env_var(language), raising=False)
    make_dataset(home / "data" / "default", models=("trade",), copies=2)
    with Results(home / "results.duckdb") as results:
        run_id = run_plan(parse_plan(PLAN, "stamped.toml", "stamped"), results)
        cells = results.cells(run_id)
    mine = [(c["language"], c["method"]) for c in cells if c["method"] != "raw"]
    assert {("rust", "rkyv"), ("cpp", "inplace")} <= set(mine)
    assert [(c["language"], c["method"], c["task"], c["status"], c["message"])
            for c in cells if c["status"] not in ("ok", "unsupported")] == []
