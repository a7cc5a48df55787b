"""THE list of tasks is the harness's (serbench.tasks): every driver's `info` is checked
against it, and every task declares what the run loop, plans and reports need of it."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import serbench
from serbench.driver import DriverProcess
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


HARNESS = Path(serbench.__file__).parent
# each layer may import only the layers below it (the run loop above the tasks above what
# they share), so no import cycle can come back
LAYERS = [
    {"ids", "params", "cell", "checksum", "models", "paths", "paged", "stats", "driver",
     "results"},
    {"expectations", "answers", "tasks", "network", "datasets", "sizes", "order"},
    {"plan"},
    {"rounds", "runner", "noise", "compare", "verify", "reproduce"},
]


def layer_of(module: str) -> int | None:
    top = module.split(".")[0]
    return next((i for i, names in enumerate(LAYERS) if top in names), None)


def imported(path: Path, package: str) -> set[str]:
    """The serbench modules a file imports at run time (not under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            node.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[:len(package.split(".")) - node.level + 1]
            found.add(".".join([*base, node.module or ""]).strip(".").split(".", 1)[-1])
    return found


def test_imports_go_one_way_from_the_run_loop_down_to_the_cell():
    for path in HARNESS.rglob("*.py"):
        module = ".".join(path.relative_to(HARNESS).with_suffix("").parts)
        package = "serbench." + ".".join(path.relative_to(HARNESS).parts[:-1])
        mine = layer_of(module)
        if mine is None:
            continue
        for target in imported(path, package.rstrip(".")):
            theirs = layer_of(target)
            assert theirs is None or theirs <= mine, f"{module} imports {target} from above"
