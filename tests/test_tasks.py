"""THE list of tasks is the harness's (serbench.tasks): every driver's `info` is checked
against it, and every task declares what the run loop, plans and reports need of it."""
from __future__ import annotations


import pytest

from serbench.drivers.process import DriverProcess
from serbench.tasks import TASKS
from serbench.tasks.spec import NO_DEPTH, TaskSpec

from conftest import built_driver

SINGLE = {t for t, spec in TASKS.items() if not spec.net and not spec.by_harness}
NETWORK = {t for t, spec in TASKS.items() if spec.net}


@pytest.mark.parametrize("language", ["rust", "cpp", "java"])
def test_every_drivers_tasks_are_the_harness_s(language):
    with DriverProcess(language, built_driver(language), timeout_s=60) as driver:
        info = driver.info()
        method = next(m for m in info["methods"] if m != "raw")
        # every task of the harness is one the driver knows: the harness's own (sizes) is
        # refused as unsupported, never as an unknown task
        answers = {task: driver.request("run", task=task, model="part", method=method,
                                        depth="", variant="", params={})
                   for task in TASKS if TASKS[task].by_harness}
        unknown = driver.request("run", task="no_such_task", model="part", method=method,
                                 depth="", variant="", params={})
    assert set(info["tasks"]) == SINGLE, "a driver task the harness does not know, or missing"
    assert set(info.get("net_tasks", ())) == NETWORK
    assert {task: a["status"] for task, a in answers.items()} == {
        task: "unsupported" for task in answers}
    assert unknown["status"] == "error" and unknown["error"]["kind"] == "bad_request"


def test_every_task_declares_itself_whole():
    for task, spec in TASKS.items():
        assert isinstance(spec, TaskSpec) and spec.id == task
        assert spec.title and callable(spec.run), task
        if spec.by_harness:
            assert spec.depths == NO_DEPTH and not spec.evicts, "the harness reads no file cold"
        if spec.net:
            assert spec.net.roles and set(spec.net.decoders) <= set(spec.net.roles), task


