"""read_par, sort_dedup and memory through the real Java driver: a plan over the golden
vectors (every cell checked by the harness, the sort against the Python total order), and the
sort's memory budget on an input ten times the budget, in a heap smaller than the input."""
from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from conftest import built_driver
from fake_driver import make_dataset
from serbench.drivers import process as driver_module
from serbench.drivers.process import BUILD_PATHS, LANGUAGES, DriverProcess, env_var
from serbench.models.order import sorted_distinct_checksum
from serbench.results import Results

from test_end_to_end import cli_ok

JAVA = BUILD_PATHS["java"]
METHODS = ("handcoded", "kryo", "json_gzip")
TASKS = ("read_par", "sort_dedup", "memory")

PLAN = """
name = "java-tasks"
[params]
rounds_max = 1
n = [5, 1000]          # 1000 is capped at each dataset's count
page_size = 256
warmups = 1
repetitions = 2
threads = [1, 3]
budget_bytes = [4096, 1048576]
timeout_s = 120
prewarm_max_ms = 0
[[group]]
tasks = ["read_par", "sort_dedup", "memory"]
models = ["trade", "part"]
methods = ["handcoded", "kryo", "json_gzip"]
languages = ["java"]
"""


@pytest.fixture
def java_home(tmp_path: Path, monkeypatch) -> Path:
    """A private SERBENCH_HOME with golden-vector datasets; only the real Java driver."""
    built_driver("java")
    home = tmp_path / "home"
    monkeypatch.setenv("SERBENCH_HOME", str(home))
    monkeypatch.setattr(driver_module, "BUILD_PATHS",
                        {lang: JAVA if lang == "java" else tmp_path / "none"
                         for lang in LANGUAGES})
    for language in LANGUAGES:
        monkeypatch.delenv(env_var(language), raising=False)
    make_dataset(home / "data" / "default", models=("trade", "part"), copies=4)
    return home


def test_the_tasks_run_and_check_out_through_the_java_driver(java_home, tmp_path):
    plan = tmp_path / "tasks.toml"
    plan.write_text(PLAN)
    cli_ok("run", str(plan))
    with Results(java_home / "results.duckdb") as results:
        [run] = results.runs()
        cells = results.cells(run["run_id"])
    problems = [(c["method"], c["model"], c["task"], c["depth"], c["setting"], c["status"],
                 c["message"]) for c in cells if c["status"] not in ("ok", "unsupported")]
    assert problems == [], "\n".join(map(str, problems))
    ok = {(c["task"], c["method"]) for c in cells if c["status"] == "ok"}
    assert {(t, m) for t in TASKS for m in METHODS} <= ok
    assert ("read_par", "raw") in ok
    for c in cells:
        if c["status"] == "ok" and c["method"] != "raw":
            assert (c["got_count"], c["got_sum"]) == (c["expected_count"], c["expected_sum"])
    runs = {c["setting"]: json.loads(c["counters"])["runs"] for c in cells
            if (c["task"], c["model"], c["method"]) == ("sort_dedup", "part", "handcoded")}
    assert runs["budget_bytes=4096"] > runs["budget_bytes=1048576"] == 1
    memory = [json.loads(c["counters"]) for c in cells
              if c["task"] == "memory" and c["status"] == "ok"]
    assert memory and all(m["retained_bytes_per_object"] > 0 and m["max_heap_bytes"] > 0
                          and m["accounting"] == "heap_after_gc" for m in memory)


COLD_PLAN = """
name = "java-cold-jit"
[params]
rounds_max = 1
n = [1000]
warmups = 0
repetitions = 3
iterations = 1
forks = 1
buffers = ["fresh"]
timeout_s = 120
prewarm_max_ms = 0
[[group]]
tasks = ["micro"]
models = ["trade"]
methods = ["kryo"]
languages = ["java"]
"""


def test_a_fresh_jvm_timed_without_warm_up_is_labelled_unsteady(java_home, tmp_path):
    """Its first repetitions run while the JIT compiles what they time: every sample carries
    the JVM's compilation time, and the cell is stored as not steady, saying why."""
    plan = tmp_path / "cold.toml"
    plan.write_text(COLD_PLAN)
    cli_ok("run", str(plan))
    with Results(java_home / "results.duckdb") as results:
        [run] = results.runs()
        [cell] = [c for c in results.cells(run["run_id"]) if c["method"] == "kryo"]
        extras = [json.loads(s["extra"]) for s in results.samples(run["run_id"])]
    assert cell["status"] == "ok", cell["message"]
    assert all(type(e.get("jit_ms")) is int and e["jit_ms"] >= 0 for e in extras)
    assert sum(e["jit_ms"] for e in extras) > 0
    assert cell["steady"] is False
    assert "the JIT compiled for" in cell["steady_note"]


def test_warm_ups_that_only_wait_for_the_jit_are_one_summary_not_samples(java_home, tmp_path):
    """A read with warmup_max_ms: the asked warm-up and the measured repetitions are samples;
    the thousands of short reads run while the JIT compiled are summed in the counters."""
    plan = tmp_path / "jit.toml"
    plan.write_text(COLD_PLAN.replace("warmups = 0", "warmups = 1\nwarmup_max_ms = 400")
                    .replace('tasks = ["micro"]', 'tasks = ["read_seq"]')
                    .replace('methods = ["kryo"]', 'methods = ["handcoded"]\ndepths = ["materialize"]')
                    .replace("n = [1000]", "n = [3]"))
    cli_ok("run", str(plan))
    with Results(java_home / "results.duckdb") as results:
        [run] = results.runs()
        [cell] = [c for c in results.cells(run["run_id"]) if c["method"] == "handcoded"]
        samples = results.samples(run["run_id"])
    assert cell["status"] == "ok", cell["message"]
    assert [s["warmup"] for s in samples if s["cell_id"] == cell["cell_id"]] == [True] + [False] * 3
    summary = json.loads(cell["counters"])["jit_warmup"]
    assert set(summary) == {"repetitions", "total_ns", "jit_ms"}
    assert summary["repetitions"] > 10 and summary["total_ns"] > 0


BUDGET = 1 << 20
HEAP = 16 << 20  # smaller than the decoded input: only a sort within its budget fits
# the slack documented in drivers/java/README.md (sort_dedup): the whole (small) heap, which
# the young generation fills with garbage before a collection, plus the JVM's native growth
# (JIT code, metaspace, GC structures) during the task
NATIVE_SLACK = 16 << 20
TRADES = 60_000  # about 14 MiB of decoded trades: more than ten times the budget


def trades(path: Path) -> list[str]:
    rng = random.Random(7)
    lines = [json.dumps({"source_id": rng.randrange(-2**40, 2**40),
                         "special": rng.random() < 0.5,
                         "order_code": rng.randrange(-2**31, 2**31),
                         "priority": rng.randrange(10),
                         "prices": [rng.randrange(10_000) / 100 for _ in range(10)],
                         "quantities": [rng.randrange(1000) for _ in range(10)]},
                        separators=(",", ":")) for _ in range(TRADES)]
    lines += lines[::7]  # duplicates, so that removing them is part of the work
    path.write_text("\n".join(lines) + "\n")
    return lines


def test_sort_dedup_stays_within_its_budget_in_a_heap_smaller_than_the_input(
        tmp_path, monkeypatch):
    built_driver("java")
    source = tmp_path / "trade.jsonl"
    lines = trades(source)
    base, output = tmp_path / "trade", tmp_path / "sorted"
    output.mkdir()
    cell = {"model": "trade", "method": "handcoded", "variant": ""}
    reps = {"warmups": 0, "repetitions": 1, "cold": False}
    with DriverProcess("java", JAVA, timeout_s=300).start() as writer:
        written = writer.request("run", task="write", depth="", **cell,
                                 params={"input": str(source), "output": str(base),
                                         "page_size": 65536, **reps})
    assert written["status"] == "ok", written
    monkeypatch.setenv("SERBENCH_JAVA_OPTS", f"-Xms{HEAP} -Xmx{HEAP}")
    with DriverProcess("java", JAVA, timeout_s=300).start() as small:
        kept = small.request("run", task="memory", depth="materialize", **cell,
                             params={"input": str(base), "n": len(lines), **reps})
        sorted_ = small.request("run", task="sort_dedup", depth="materialize", **cell,
                                params={"input": str(base), "output": str(output),
                                        "budget_bytes": BUDGET, "page_size": 65536, **reps})
    assert kept["status"] == "error", "the whole input must not fit the heap"
    assert sorted_["status"] == "ok", sorted_
    result = sorted_["result"]
    assert result["checksum"] == sorted_distinct_checksum("trade", source)
    counters = result["counters"]
    assert counters["input_objects"] == len(lines) and counters["max_heap_bytes"] <= HEAP
    assert counters["runs"] >= 10 and counters["peak_held_bytes"] <= BUDGET
    grown = counters["peak_rss_bytes"] - counters["rss_start_bytes"]
    assert grown <= BUDGET + HEAP + NATIVE_SLACK, f"{grown:,} bytes over the start"


def test_the_launcher_shares_the_classes_of_this_build_and_names_no_directory():
    """Class Data Sharing (drivers/java/serbench-java): an archive made from this very jar,
    used by every JVM, and reported in info's flags by file name only."""
    built_driver("java")
    info = json.loads(subprocess.run([str(JAVA), "info"], capture_output=True, check=True,
                                     text=True).stdout)
    flags = info["toolchain"]["flags"].split()
    assert "-XX:SharedArchiveFile=serbench-java.jsa" in flags
    assert not [f for f in flags if "/" in f], flags
    target = JAVA.parent / "target"
    archive, jar = target / "serbench-java.jsa", target / "serbench-java.jar"
    assert archive.stat().st_mtime >= jar.stat().st_mtime


def test_the_driver_says_nothing_on_stderr_about_logging():
    """Avro logs through SLF4J: without a provider on the class path every JVM (each node
    too, whose stderr a failed network cell keeps) began its stderr with SLF4J's three
    "no providers" warnings; the pom pins the no-op provider."""
    built_driver("java")
    vectors = Path(__file__).resolve().parents[1] / "vectors" / "part.jsonl"
    requests = [{"id": 1, "op": "info"},
                {"id": 2, "op": "roundtrip", "model": "part", "method": "avro",
                 "depth": "materialize", "variant": "", "params": {"input": str(vectors)}},
                {"id": 3, "op": "shutdown"}]
    done = subprocess.run([str(JAVA), "serve"], capture_output=True, text=True, timeout=120,
                          input="".join(json.dumps(r) + "\n" for r in requests))
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["status"] for a in answers[:2]] == ["ok", "ok"], answers
    assert "SLF4J" not in done.stderr, done.stderr


def test_a_jvm_is_warmed_with_its_own_cells_before_it_is_timed(java_home, tmp_path):
    """The Java driver names its JIT, so its process runs each of its cells unmeasured, pass
    after pass, before the first measured round; every cell says how that went."""
    plan = tmp_path / "prewarm.toml"
    plan.write_text(COLD_PLAN.replace("prewarm_max_ms = 0", "prewarm_max_ms = 1500")
                    .replace("forks = 1", "forks = 0")
                    .replace('tasks = ["micro"]', 'tasks = ["write", "read_seq"]')
                    .replace("n = [1000]", "n = [3]"))
    cli_ok("run", str(plan))
    with Results(java_home / "results.duckdb") as results:
        [run] = results.runs()
        cells = [c for c in results.cells(run["run_id"]) if c["method"] == "kryo"]
    assert {c["task"] for c in cells} == {"write", "read_seq"}
    warmed = [json.loads(c["counters"])["prewarm"] for c in cells]
    assert all(c["status"] == "ok" for c in cells), [c["message"] for c in cells]
    assert len({json.dumps(w, sort_keys=True) for w in warmed}) == 1  # the group's one warm-up
    assert warmed[0]["passes"] >= 1 and isinstance(warmed[0]["quiet"], bool)
