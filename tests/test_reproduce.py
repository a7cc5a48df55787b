"""`serbench reproduce`: its plans give every published figure the cells it needs, the
estimate is computed from the plan, and the quick plan runs from data to report with the
fake driver, every figure in the report with a verdict or the reason it has none."""
from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from fake_driver import install, make_dataset
from serbench.drivers import process as driver_module
from serbench import provenance, reproduce
from serbench.cli import cli
from serbench.cli.reproduce import _resumed_cost
from serbench.drivers.process import LANGUAGES, env_var
from serbench.models import MODELS
from serbench.paths import data_root
from serbench.plan import expand, load_embedded, parse_plan
from serbench.tasks import TASKS
from serbench.reproduce.published import FIGURES, CellNeed
from serbench.results import Results
from serbench.cli.reproduce import recipes
from serbench.reproduce import (FULL, QUICK, dataset_sizes, estimate, figure_gaps, java_processes,
                                need_met)
from test_report import markdown_table

PLANS = (FULL, QUICK)


def named_methods(plan) -> set[str]:
    """Every method the plan's groups or the figures' needs name."""
    in_plan = {m for g in plan.groups for m in g.methods or ()}
    needed = {pair.split()[1] for fig in FIGURES for need in fig.cells for pair in need.methods}
    return (in_plan | needed) - {"*"}


def offering(plan, languages=LANGUAGES, net_languages=LANGUAGES) -> dict[str, dict]:
    """Driver infos that offer every task, model and method the plan names: only the plan
    decides which cells exist; `net_languages`: the drivers with network nodes."""
    methods = {m: {"depths": ["materialize", "access"], "variants": [], "models": list(MODELS)}
               for m in named_methods(plan)}
    single = [t for t, spec in TASKS.items() if not spec.net]
    network = [t for t, spec in TASKS.items() if spec.net]
    return {lang: {"language": lang, "models": list(MODELS), "tasks": single,
                   "net_tasks": network if lang in net_languages else [],
                   "methods": methods} for lang in languages}


def planned_cells(name: str, root: Path, **offer):
    plan = load_embedded(name)
    sizes = dataset_sizes(recipes(plan), root)
    return expand(plan, offering(plan, **offer), sizes.count, root, strict=False)


def test_every_published_figure_names_the_cells_it_needs():
    for fig in FIGURES:
        assert fig.cells, f"{fig.key}: a published figure without the cells it needs"
        for need in fig.cells:
            assert need.task in TASKS, fig.key
            assert need.model is None or need.model in MODELS, fig.key
            for pair in need.methods:
                language, method = pair.split()
                assert language in (*LANGUAGES, "*") and method, (fig.key, pair)


@pytest.mark.parametrize("name", PLANS)
def test_the_reproduce_plans_give_every_figure_its_cells(name, tmp_path):
    assert figure_gaps(planned_cells(name, tmp_path)) == {}


@pytest.mark.parametrize("name", PLANS)
def test_every_dataset_a_reproduce_plan_reads_is_one_it_makes(name):
    plan = load_embedded(name)
    made = {(r.dataset, model) for r in recipes(plan) for model in r.counts}
    for group in plan.groups:
        for model in group.models:
            assert (group.params.dataset, model) in made, (group.number, model)


def test_figures_whose_nodes_do_not_exist_yet_say_so(tmp_path):
    # only Rust has network nodes: the figures of C++ or Java nodes are not yet measurable
    gaps = figure_gaps(planned_cells(QUICK, tmp_path, net_languages=("rust",)))
    assert set(gaps) == {"net_fetch_ram_inplace", "aggregate_handcoded_inplace",
                         "aggregate_cpp_java_sparse", "aggregate_bytebuffer_dense"}
    assert gaps["aggregate_handcoded_inplace"] == (
        "not yet measurable: net_aggregate of sparse by cpp handcoded, cpp inplace: "
        "the cpp driver's nodes do not run task net_aggregate")
    # without a C++ driver at all, every figure that reads C++ cells says what is missing
    gaps = figure_gaps(planned_cells(QUICK, tmp_path, languages=("rust", "java")),
                       ("rust", "java"))
    assert gaps["read_seq_inplace"] == ("not measurable here: read_seq of one model by "
                                        "cpp handcoded, cpp inplace: no cpp driver found")


def test_a_need_is_met_in_one_model_one_language_and_enough_sizes(tmp_path):
    plan = parse_plan("""
[datasets]
d = "tpch --sf 0.001"
[params]
rounds_max = 1
dataset = "d"
[[group]]
tasks = ["read_rand"]
models = ["part"]
languages = ["java"]
n = [10, 100]
[[group]]
tasks = ["read_rand"]
models = ["customer"]
languages = ["cpp"]
n = [10]
""", "t.toml", "t")
    infos = offering(plan)
    for info in infos.values():
        info["methods"] = {"handcoded": info["methods"]["handcoded"],
                           "json": info["methods"]["json"]}
    cells = expand(plan, infos, dataset_sizes(recipes(plan), tmp_path).count, tmp_path)
    assert need_met(CellNeed("read_rand", "part", ("java handcoded",), points=2), cells)
    assert not need_met(CellNeed("read_rand", "part", ("java handcoded",), points=3), cells)
    # java in part, cpp in customer: never the same model
    assert not need_met(CellNeed("read_rand", None, ("java *", "cpp *")), cells)
    assert need_met(CellNeed("read_rand", None, ("* json", "* handcoded")), cells)
    assert need_met(CellNeed("read_rand", "customer", ("cpp json", "java json"), least=1),
                    cells)
    assert not need_met(CellNeed("read_rand", "part", ("java json",), "n=5"), cells)


ESTIMATED = """
[datasets]
small = "trade --n 1000"
[params]
rounds_max = 1
dataset = "small"
warmups = 1
repetitions = 3
cold = false
raw = false
[[group]]
tasks = ["read_seq"]
models = ["trade"]
languages = ["rust"]
methods = ["json"]
depths = ["materialize"]
n = [100]
"""


def test_the_estimate_is_computed_from_the_plan(tmp_path, monkeypatch):
    # rates chosen so that each term of the model is a round number of seconds
    monkeypatch.setattr(reproduce, "CELL_S", 0.5)
    monkeypatch.setattr(reproduce, "CODEC_BYTES_PER_S", 89_200)
    monkeypatch.setattr(reproduce, "DISK_BYTES_PER_S", 44_600)
    monkeypatch.setattr(reproduce, "DATA_BYTES_PER_S", 223_000)
    monkeypatch.setitem(reproduce.START_S, "rust", 3.0)
    plan = parse_plan(ESTIMATED, "t.toml", "t")
    made = recipes(plan)
    assert [(r.dataset, r.counts, r.command) for r in made] == [
        ("small", {"trade": 1000}, "serbench data trade --n 1000 --name small")]
    sizes = dataset_sizes(made, tmp_path)
    infos = offering(plan, languages=("rust",))
    cells = expand(plan, infos, sizes.count, tmp_path)
    expected = estimate(cells, sizes, made, tmp_path)
    # one cell: 0.5 s, then 4 passes (1 warm-up, 3 repetitions) over 100 trade objects of 223
    # JSON bytes, warm: 89,200 bytes, 1 s; one Rust process, 3 s; the dataset to make, 1000
    # objects of 223 bytes, 1 s; the batch makes and keeps one file of the whole dataset,
    # encoded (2.5 s) and written (5 s)
    assert expected.seconds_by_task == {"read_seq": pytest.approx(1.5)}
    assert expected.start_seconds == 3.0
    assert expected.data_seconds == pytest.approx(1.0)
    assert expected.files_seconds == pytest.approx(7.5)
    assert expected.data_bytes == 223_000
    assert expected.files_bytes == 223_000
    assert expected.seconds == pytest.approx(13.0)
    # the harness's own cell (sizes) is one untimed round: the file's compression, once,
    # whatever the rounds and warm-ups; its file is the one the reads make
    monkeypatch.setattr(reproduce, "COMPRESS_BYTES_PER_S", 22_300)
    sized = expand(parse_plan(ESTIMATED.replace('tasks = ["read_seq"]',
                                                'tasks = ["read_seq", "sizes"]'), "t.toml", "t"),
                   infos, sizes.count, tmp_path)
    with_sizes = estimate(sized, sizes, made, tmp_path)
    assert with_sizes.seconds_by_task["sizes"] == pytest.approx(0.5 + 10.0)
    assert with_sizes.files_seconds == pytest.approx(7.5)
    # cold: every pass also reads its 100 objects from the disk, 2 s more
    cold = expand(parse_plan(ESTIMATED.replace("cold = false", "cold = true"), "t.toml", "t"),
                  infos, sizes.count, tmp_path)
    assert estimate(cold, sizes, made, tmp_path).seconds_by_task["read_seq"] == \
        pytest.approx(3.5)
    # a made dataset is not made again, and its manifest gives its size
    make_dataset(tmp_path / "small", models=("trade",), copies=2)
    sizes = dataset_sizes(made, tmp_path)
    assert estimate(cells, sizes, made, tmp_path).data_bytes == 0
    assert sizes.count(tmp_path / "small", "trade") == 2 * len(
        (Path(__file__).parents[1] / "vectors" / "trade.jsonl").read_text().splitlines())


JVMS = """
[params]
rounds_max = 1
[[group]]
tasks = ["read_seq", "write"]
models = ["part"]
languages = ["java", "rust"]
methods = ["json", "handcoded", "protobuf"]
n = [10]
[[group]]
tasks = ["read_seq"]
models = ["customer"]
languages = ["java"]
methods = ["json"]
n = [10]
[[group]]
tasks = ["net_fetch"]
models = ["customer"]
languages = ["java"]
methods = ["json", "handcoded"]
n = [10]
sources = ["ram"]
servers = SERVERS
"""


def test_the_memory_estimate_counts_the_jvms_a_batch_keeps_alive(tmp_path):
    def jvms(servers: int, languages=("java", "rust")) -> int:
        plan = parse_plan(JVMS.replace("SERVERS", str(servers)), "t.toml", "t")
        cells = expand(plan, offering(plan, languages=languages), lambda d, m: 100, tmp_path,
                       strict=False)
        return java_processes(cells)

    # part: one process per Java method and the reads' raw floor (Rust's are not JVMs), its
    # two tasks sharing them; customer: three groups (json, its raw floor, handcoded), and a
    # fetch's round: its group's process beside the servers and the client
    assert jvms(6) == 1 + 6 + 1
    assert jvms(1) == 3 + 1
    assert jvms(6, languages=("rust",)) == 0


def test_the_time_left_is_the_estimate_of_the_cells_left_at_the_pace_of_those_done(
        tmp_path, monkeypatch):
    assert reproduce.time_left(600.0, reproduce.PACE_AFTER_S - 1, 30.0) is None, "pace unknown"
    # 120 s of the estimate done in 60 s: this run goes twice as fast, 600 s left take 300
    assert reproduce.time_left(600.0, 120.0, 60.0) == pytest.approx(300.0)
    assert reproduce.time_left(600.0, 120.0, 240.0) == pytest.approx(1200.0)
    monkeypatch.setenv("SERBENCH_HOME", str(tmp_path / "home"))
    plan = parse_plan(ESTIMATED, "t.toml", "t")
    sizes = dataset_sizes(recipes(plan), data_root())
    cells = expand(plan, offering(plan, languages=("rust",)), sizes.count, data_root())
    cost = reproduce.cell_cost(sizes)
    assert cost(cells[0]) == reproduce.cell_seconds(cells[0], sizes) > 0
    assert cost(replace(cells[0], unsupported="no such method")) == 0.0
    # a resumed reproduction costs its cells from its own plan's datasets
    with Results() as results:
        results.begin_run("r", "t", ESTIMATED, 1, {}, {})
    resumed = _resumed_cost("r")
    assert resumed(cells[0]) == pytest.approx(cost(cells[0]))
    assert _resumed_cost("nope") is None, "resuming it says why"


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    """A private SERBENCH_HOME holding the quick plan's datasets, tiny (the golden vectors),
    and fake C++ and Java drivers offering some of the methods the figures compare (the
    rest of the plan's cells are unsupported, as on a machine whose drivers lack them)."""
    home = tmp_path / "home"
    monkeypatch.setenv("SERBENCH_HOME", str(home))
    monkeypatch.setenv("SERBENCH_DATAGEN", str(tmp_path / "no-datagen"))
    monkeypatch.setattr(driver_module, "BUILD_PATHS", {l: tmp_path / "none" for l in LANGUAGES})
    monkeypatch.setattr(provenance, "toolchains", lambda: {"python": "probed elsewhere"})
    # the fakes report times of their own, not the machine's: on a loaded machine real times
    # drift, the cells are judged unsteady and their figures lose the verdicts checked below
    monkeypatch.setenv("FAKE_DRIVER_TIMES", "shift=1")
    plan = load_embedded(QUICK)
    for recipe in recipes(plan):
        make_dataset(home / "data" / recipe.dataset, models=tuple(recipe.counts), copies=2)
    for language in ("cpp", "java"):
        monkeypatch.setenv(env_var(language), str(install(home / "bin", language,
                                                          methods=FAKE_METHODS)))
    monkeypatch.delenv(env_var("rust"), raising=False)
    return home


FAKE_METHODS = "handcoded,inplace,json_gzip,json,protobuf"


def test_quick_runs_from_data_to_a_report_with_every_figure(home, monkeypatch):
    from serbench.cli.run import ProgressBar
    monkeypatch.setattr(ProgressBar, "LOG_EVERY_S", 0.0)  # a progress line after every cell
    monkeypatch.setattr(reproduce, "PACE_AFTER_S", 0.0)   # the pace read from the first cell
    result = CliRunner().invoke(cli, ["reproduce", "--quick", "--run-id", "quick"])
    assert result.exit_code == 0, result.output
    output = result.output
    left = re.findall(r"^\d+/\d+ cells, \d+ s: .*; about (\d+):(\d\d) left at this pace$",
                      output, re.MULTILINE)
    assert left and int(left[-1][0]) * 60 + int(left[-1][1]) <= int(left[0][0]) * 60 + int(
        left[0][1]) + 60, "the time left comes down as the cells are done"
    assert "serbench reproduce: plan reproduce_quick" in output
    assert "data rq_tpch: serbench data tpch --sf 0.005 --name rq_tpch: present" in output
    assert "expected: " in output and "how: every cell's objects" in output
    # the fake drivers have no network nodes: those figures are named before the run
    assert "net_fetch_disk: not yet measurable: net_fetch of customer" in output
    report = Path(output.strip().splitlines()[-1])
    assert report == home / "reports" / "quick" / "report.html" and report.is_file()
    rows = markdown_table((report.parent / "report.md").read_text("utf-8"),
                          "Published and measured")
    assert [r[0] for r in rows] == [fig.subject for fig in FIGURES]
    verdicts = [r for r in rows if r[3] != "—"]
    for row in rows:
        assert row[3] != "—" or row[4].startswith(("not measured in this run: ",
                                                   "not yet measurable: ")), row
    # the fake's numbers mean nothing, but its cells are real cells: sizes and times judged
    by_key = {fig.key: row for fig, row in zip(FIGURES, rows)}
    assert by_key["net_fetch_disk"][4].startswith("not yet measurable: ")
    for key in ("part_method_sizes", "read_seq_cpp_java", "sort_part_inplace", "org_read",
                "managed_unmanaged"):
        assert by_key[key][5] not in ("", "—"), by_key[key]
    assert by_key["sort_customer_kryo"][4].startswith("not measured in this run: ")
    assert len(verdicts) >= 10


def test_impossible_options_are_refused(home):
    result = CliRunner().invoke(cli, ["reproduce", "--quick", "--pin", "4096"])
    assert result.exit_code == 2 and "CPU 4096 is not available here" in result.output
    result = CliRunner().invoke(cli, ["reproduce", "--quick", "--pin", "a"])
    assert result.exit_code == 2 and "must be a CPU list like" in result.output
    result = CliRunner().invoke(cli, ["reproduce", "--quick", "--resume", "r1"])
    assert result.exit_code == 2 and "--resume takes the run's own plan" in result.output
    result = CliRunner().invoke(cli, ["reproduce", "--resume", "nope"])
    assert result.exit_code != 0 and "no run 'nope'" in str(result.exception)
    result = CliRunner().invoke(cli, ["reproduce", "--quick", "--cluster", "node1:8786"])
    assert result.exit_code == 2 and "must be a Dask scheduler address" in result.output
    result = CliRunner().invoke(cli, ["reproduce", "--resume", "r1", "--cluster",
                                      "tcp://10.0.0.1:8786"])
    assert result.exit_code == 2 and "--resume takes the run's own plan" in result.output


def test_the_estimate_alone_runs_nothing(home):
    result = CliRunner().invoke(cli, ["reproduce", "--estimate"])
    assert result.exit_code == 0, result.output
    assert "plan reproduce," in result.output and "expected: " in result.output
    assert "data repro_tpch: serbench data tpch --sf 1" in result.output
    # a log holds each line whole, not wrapped at 80 columns
    assert ("data repro_sort_small: serbench data tpch --sf 0.01 --models lineitem,customer "
            "--replicate 2 --name repro_sort_small: to make") in result.output
    assert not (home / "results.duckdb").exists()


def test_a_run_too_large_for_the_disk_is_refused_but_estimated(home, monkeypatch):
    tiny = shutil.disk_usage(home.parent)._replace(free=10**6)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: tiny)
    estimate_only = CliRunner().invoke(cli, ["reproduce", "--estimate"])
    assert estimate_only.exit_code == 0, estimate_only.output
    assert "warning: the run needs about" in estimate_only.output
    assert "1 MB is free under" in estimate_only.output
    run = CliRunner().invoke(cli, ["reproduce", "--quick"])
    assert run.exit_code == 1 and "1 MB is free under" in run.output
    assert not (home / "results.duckdb").exists()
