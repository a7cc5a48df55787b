"""Plans: parsing, every validation error, and expansion into cells."""
from __future__ import annotations

from itertools import groupby
from pathlib import Path

import pytest

from serbench.models import MODELS
from serbench.cell import setting_values
from serbench.plan import RAW, PlanError, expand, load_embedded, load_plan, parse_plan

GROUP = '[[group]]\ntasks = ["write", "read_seq", "read_rand"]\n'


def info(language: str = "rust", methods=None, tasks=("write", "read_seq", "read_rand")) -> dict:
    methods = methods or {
        "handcoded": {"depths": ["materialize", "access"], "variants": ["reuse"],
                      "models": list(MODELS)},
        "json": {"depths": ["materialize"], "variants": [], "models": ["part", "trade"]},
        RAW: {"depths": [], "variants": [], "models": list(MODELS)},
    }
    return {"language": language, "models": list(MODELS), "tasks": list(tasks),
            "methods": methods}


def counts(sizes: dict[str, int] | None = None):
    sizes = sizes or {}
    return lambda directory, model: sizes.get(model, 2000)


def plan_of(text: str, name: str = "p.toml"):
    return parse_plan(text, name, "p")


def cells_of(text: str, infos=None, sizes=None):
    infos = {"rust": info()} if infos is None else infos
    return expand(plan_of(text), infos, counts(sizes), Path("/data"))


def test_embedded_plans_load():
    default = load_plan(None)
    assert default.name == "default" and default.source == "embedded:default"
    assert default.params.cold is True and default.params.raw is True
    group = default.groups[0]
    assert group.tasks == ("write", "sizes")
    assert group.methods is None  # "*"
    assert group.models == ("part", "customer", "tweet", "trade")
    full = load_embedded("full")
    assert full.name == "full" and len(full.groups) > 1
    every = {t for plan in (default, full) for g in plan.groups for t in g.tasks}
    # both plans measure every task; the default one also the network tasks, small
    assert every == set(ALL_TASKS) | {"net_fetch", "net_aggregate", "net_sort_merge"}
    figures = load_embedded("figures")
    warm_reads = [g for g in figures.groups if "read_seq" in g.tasks]
    assert warm_reads and not any(g.params.cold for g in warm_reads)
    assert {t for g in figures.groups for t in g.tasks} == {"read_seq", "micro", "sizes"}
    network = load_embedded("network")
    assert {t for g in network.groups for t in g.tasks} == {"net_fetch", "net_aggregate",
                                                            "net_sort_merge"}
    assert all(g.params.network == "1gbit" for g in network.groups)


def test_the_default_plan_can_show_steady_state_where_the_studies_depend_on_it():
    """Reads, micro and the sort: enough repetitions to judge a drift, and a JIT warmed while
    it compiles (issue: the default report's Java figures came from a cold JIT; issue 21:
    the reads' too)."""
    from serbench.steady import MIN_TREND
    studied = [g for g in load_plan(None).groups
               if {"read_seq", "read_rand", "micro", "sort_dedup"} & set(g.tasks)]
    assert {t for g in studied for t in g.tasks} >= {"read_seq", "read_rand", "micro",
                                                     "sort_dedup"}
    for g in studied:  # every round measures at least `repetitions`
        assert g.params.rounds_min * g.params.repetitions >= MIN_TREND, g.tasks
        assert g.params.warmup_max_ms > 0, g.tasks


def test_the_default_plan_runs_every_network_task_in_every_language():
    """Every node is a fresh process (a JVM for Java), so within the run's 5 minutes: the
    fetch of every Rust and C++ method (the in-place finding needs its closest competitor),
    and otherwise the methods the studies' network findings compare, each a study method's
    counterpart in its language (Rust's zero-copy rkyv standing for C++'s in-place)."""
    from serbench.reproduce.published import STUDY_METHODS
    studied = {m.method for m in STUDY_METHODS.values()} | {"rkyv"}
    network = [g for g in load_plan(None).groups if g.tasks[0].startswith("net_")]
    for task in ("net_fetch", "net_aggregate", "net_sort_merge"):
        groups = [g for g in network if task in g.tasks]
        assert {lang for g in groups for lang in g.languages} == {"rust", "cpp", "java"}, task
        for g in groups:
            if task == "net_fetch" and "java" not in g.languages:
                assert g.methods is None  # "*"
            else:
                assert g.methods and set(g.methods) <= studied, g.methods
                if "java" in g.languages:
                    assert set(g.methods) <= {m.method for m in STUDY_METHODS.values()
                                              if m.language == "java"}, g.methods
            assert g.params.network == "1gbit"
    # the trees' ends of every finding in Rust and C++: hand-coded and JSON+gzip
    for g in network:
        if g.tasks[0] != "net_fetch" and "java" not in g.languages:
            assert {"handcoded", "json_gzip"} <= set(g.methods), g.tasks


def test_plan_file_and_default_name(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(GROUP)
    plan = load_plan(path)
    assert plan.name == "mine" and plan.source == str(path) and plan.toml == GROUP


def test_group_params_override_plan_params():
    plan = plan_of('[params]\nwarmups = 3\nn = 7\n' + GROUP + 'repetitions = 9\n')
    assert plan.params.warmups == 3 and plan.params.n == (7,)
    assert plan.groups[0].params.warmups == 3 and plan.groups[0].params.repetitions == 9


ERRORS = [
    ('name = "x"\n[[group]\n', "TOML syntax error", "line 2"),
    ('nmae = "x"\n' + GROUP, "nmae", "unknown key"),
    ('[params]\nwarmup = 1\n' + GROUP, "params.warmup", "unknown key"),
    (GROUP + 'model = ["part"]\n', "group[1].model", "unknown key"),
    ('[[group]]\nmodels = ["part"]\n', "group[1].tasks", "required"),
    ('[[group]]\ntasks = ["reed"]\n', "group[1].tasks", "unknown task 'reed'"),
    (GROUP + 'modes = ["seq", "zigzag"]\n', "group[1].modes", "seq, rand"),
    (GROUP + 'buffers = []\n', "group[1].buffers", "fresh, reused"),
    (GROUP + 'budget_bytes = [100]\n', "group[1].budget_bytes",
     "an integer in [4096, 2^63-1], got 100"),
    ('[[group]]\ntasks = ["sort_dedup"]\nbudget_bytes = [65536]\n', "group[1].budget_bytes",
     "below three pages of page_size 262144"),
    ('[params]\npage_size = 4096\nbudget_bytes = [8192, 65536]\n[[group]]\ntasks = ["sort_dedup"]\n',
     "group[1].budget_bytes", "give at least 12288"),
    (GROUP + 'iterations = 0\n', "group[1].iterations", "an integer in [1, 1000000], got 0"),
    (GROUP + 'sweep_k = []\n', "group[1].sweep_k", "at least one"),
    (GROUP + 'models = ["part", "order"]\n', "group[1].models", "unknown id 'order'"),
    (GROUP + 'depths = ["deep"]\n', "group[1].depths", "unknown id 'deep'"),
    (GROUP + 'languages = ["go"]\n', "group[1].languages", "unknown id 'go'"),
    (GROUP + 'methods = ["Proto Buf"]\n', "group[1].methods", "not a snake_case id"),
    (GROUP + 'methods = ["raw"]\n', "group[1].methods", "raw = true"),
    (GROUP + 'models = []\n', "group[1].models", "non-empty list"),
    (GROUP + 'models = [1]\n', "group[1].models", "must be strings"),
    ('[params]\nn = [10, -5]\n' + GROUP, "params.n", "must be an integer in [1, 2^31-1], got -5"),
    ('[params]\nn = 0\n' + GROUP, "params.n", "in [1, 2^31-1], got 0"),
    ('[params]\nn = []\n' + GROUP, "params.n", "at least one"),
    ('[params]\nn = [1.5]\n' + GROUP, "params.n", "must be an integer"),
    (GROUP + 'repetitions = 0\n', "group[1].repetitions", "in [1, 1000000], got 0"),
    (GROUP + 'warmups = -1\n', "group[1].warmups", "in [0, 100000], got -1"),
    (GROUP + 'warmup_ms = -1\n', "group[1].warmup_ms", "in [0, 3600000], got -1"),
    (GROUP + 'warmup_ms = 0.5\n', "group[1].warmup_ms", "must be an integer"),
    (GROUP + 'read_forks = -1\n', "group[1].read_forks", "in [0, 1000], got -1"),
    (GROUP + 'floor_rounds = -1\n', "group[1].floor_rounds", "in [0, 1000], got -1"),
    (GROUP + 'ci_target = 1.5\n', "group[1].ci_target", "a number in (0, 1]"),
    (GROUP + 'ci_target = 0\n', "group[1].ci_target", "a number in (0, 1]"),
    (GROUP + 'time_cap_s = 0\n', "group[1].time_cap_s", "a number in (0, 86400], got 0"),
    (GROUP + 'min_sample_ms = -1\n', "group[1].min_sample_ms",
     "a number in (0, 60000], got -1"),
    (GROUP + 'rounds_min = 0\n', "group[1].rounds_min", "in [1, 1000], got 0"),
    (GROUP + 'rounds_max = 0\n', "group[1].rounds_max", "in [1, 1000], got 0"),
    (GROUP + 'warmups = "one"\n', "group[1].warmups",
     "must be an integer in [0, 100000], got a string"),
    (GROUP + 'cold = "yes"\n', "group[1].cold", "true or false"),
    (GROUP + 'raw = 1\n', "group[1].raw", "true or false"),
    (GROUP + 'page_size = 16\n', "group[1].page_size", "in [64, 2^31-1], got 16"),
    (GROUP + 'page_size = 4294967296\n', "group[1].page_size", "in [64, 2^31-1], got 4294967296"),
    (GROUP + 'threads = 0\n', "group[1].threads", "in [1, 1024], got 0"),
    (GROUP + 'seed = -1\n', "group[1].seed", "in [0, 2^63-1], got -1"),
    (GROUP + 'timeout_s = 0\n', "group[1].timeout_s", "a number in (0, 604800], got 0"),
    (GROUP + 'pin_cpus = "zero"\n', "group[1].pin_cpus", "CPU list"),
    (GROUP + 'dataset = ""\n', "group[1].dataset", "empty"),
    (GROUP + 'dataset = 3\n', "group[1].dataset", "must be a string"),
    ('name = "x"\n', "group", "at least one"),
    ('group = 3\n', "group", "at least one"),
    ('group = [3]\n', "group[1]", "must be a table"),
    ('params = 3\n' + GROUP, "params", "must be a table"),
    ('name = 3\n' + GROUP, "name", "must be a string"),
    ('name = "a b"\n' + GROUP, "name", "short id"),
    (GROUP + GROUP + 'bogus = 1\n', "group[2].bogus", "unknown key"),
]


@pytest.mark.parametrize("text, key, problem", ERRORS)
def test_plan_errors_name_file_and_key(text, key, problem):
    with pytest.raises(PlanError) as caught:
        plan_of(text, "plans/bad.toml")
    message = str(caught.value)
    assert message.startswith("plans/bad.toml: ")
    assert key in message and problem in message


def test_unreadable_plan_file(tmp_path):
    with pytest.raises(PlanError, match="cannot read"):
        load_plan(tmp_path / "absent.toml")


def test_unknown_embedded_plan():
    with pytest.raises(PlanError, match="embedded plans: default, full"):
        load_embedded("huge")


def test_expansion_caps_n_and_numbers_cells():
    cells = cells_of('[params]\nn = [10, 100, 5000]\n' + GROUP + 'models = ["trade"]\n'
                     'methods = ["json"]\n', sizes={"trade": 1000})
    assert [c.cell_id for c in cells] == list(range(1, len(cells) + 1))
    reads = [c for c in cells if c.task == "read_seq" and c.method == "json"]
    assert [c.n for c in reads] == [10, 100, 1000]  # 5000 capped at the 1000 objects
    write = [c for c in cells if c.task == "write"]
    assert [(c.n, c.depth, c.method) for c in write] == [(1000, "", "json")]


def test_star_resolves_against_info_and_raw_floor_reads_each_file():
    cells = cells_of('[params]\nn = 5\n' + GROUP + 'models = ["trade"]\n')
    methods = {c.method for c in cells}
    assert methods == {"handcoded", "json", RAW}
    hand_reads = {(c.depth, c.variant) for c in cells
                  if c.method == "handcoded" and c.task == "read_seq"}
    assert hand_reads == {(d, v) for d in ("materialize", "access") for v in ("", "reuse")}
    raw = [c for c in cells if c.method == RAW]
    assert {(c.task, c.variant, c.depth) for c in raw} == {
        (t, m, "") for t in ("read_seq", "read_rand") for m in ("handcoded", "json")}
    assert all(c.unsupported is None for c in cells)


def test_floor_rounds_reach_the_reads_of_methods_only():
    cells = cells_of('[params]\nn = 5\nfloor_rounds = 3\n' + GROUP + 'models = ["trade"]\n')
    rounds = {(c.task, c.method == RAW): c.floor_rounds for c in cells}
    assert rounds == {("write", False): 0, ("read_seq", False): 3, ("read_rand", False): 3,
                      ("read_seq", True): 0, ("read_rand", True): 0}
    without_raw = cells_of('[params]\nn = 5\nfloor_rounds = 3\nraw = false\n' + GROUP)
    assert {c.floor_rounds for c in without_raw} == {0}, "no raw floor, nothing to pair"


def test_unsupported_cells_are_kept_with_reasons():
    cells = cells_of('[params]\nn = 5\nraw = false\n' + GROUP +
                     'models = ["trade", "tweet"]\nmethods = ["json", "handcoded"]\n'
                     'depths = ["materialize", "access"]\nvariants = ["", "reuse"]\n')
    reasons = {(c.model, c.method, c.task, c.depth, c.variant): c.unsupported for c in cells}
    assert reasons[("trade", "json", "read_seq", "materialize", "")] is None
    assert "does not support depth access" in reasons[("trade", "json", "read_seq", "access", "")]
    assert "has no variant reuse" in reasons[("trade", "json", "read_seq", "materialize", "reuse")]
    assert "does not support model tweet" in reasons[("tweet", "json", "write", "", "")]
    assert reasons[("tweet", "handcoded", "read_seq", "access", "reuse")] is None


@pytest.mark.parametrize("line, key, named", [
    ('methods = ["json", "bson"]', "methods", "'bson'"),
    ('variants = ["", "fast"]', "variants", "'fast'"),
    ('depths = ["key"]', "depths", "'key'"),
    ('methods = ["json"]\ndepths = ["access"]', "depths", "'access'"),  # handcoded's only
    ('tasks = ["micro"]', "tasks", "'micro'"),
])
def test_a_name_no_driver_of_the_group_offers_is_refused_naming_its_line(line, key, named):
    group = line if key == "tasks" else GROUP + line
    text = '[params]\nn = 5\n[[group]]\n' + group.removeprefix("[[group]]\n") + '\n'
    with pytest.raises(PlanError) as caught:
        cells_of(text)
    number = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith(key))
    assert str(caught.value).startswith(
        f"p.toml: line {number}: group[1].{key}: {named} offered by no driver of this group "
        "(rust; offered: ")


def test_driver_without_a_task_or_raw():
    methods = {"json": {"depths": ["materialize"], "variants": [], "models": ["trade"]}}
    cells = cells_of('[params]\nn = 5\n' + GROUP + 'models = ["trade"]\n',
                     infos={"rust": info(methods=methods, tasks=("write", "read_seq")),
                            "cpp": info("cpp")})
    by_key = {(c.language, c.method, c.task): c.unsupported for c in cells}
    assert by_key[("rust", "json", "write")] is None
    assert "does not run task read_rand" in by_key[("rust", "json", "read_rand")]
    assert "has no method raw" in by_key[("rust", RAW, "read_seq")]
    assert by_key[("cpp", "json", "read_rand")] is None


def test_run_order_writes_first_raw_last_groups_contiguous():
    infos = {"rust": info(), "cpp": info("cpp")}
    cells = cells_of('[params]\nn = [5, 50]\n' + GROUP + 'models = ["part", "trade"]\n',
                     infos=infos)
    keys = [c.group_key for c in cells]
    seen = [k for k, _ in groupby(keys)]
    assert len(seen) == len(set(seen)), "each driver process group appears once"
    for _, batch in groupby(cells, key=lambda c: c.group_key[:3]):
        batch = list(batch)
        first_raw = next(i for i, c in enumerate(batch) if c.method == RAW)
        assert all(c.method == RAW for c in batch[first_raw:]), "raw after every method"
        assert {c.language for c in batch[:first_raw]} == {"rust", "cpp"}
    for _, group in groupby(cells, key=lambda c: c.group_key):
        tasks = [c.task for c in group]
        if "write" in tasks:
            assert tasks.index("write") == 0


def test_identical_cells_from_two_groups_merge_and_conflicts_fail():
    text = '[params]\nn = 5\n' + GROUP + 'models = ["trade"]\n' + GROUP + 'models = ["trade"]\n'
    assert len(cells_of(text)) == len(cells_of('[params]\nn = 5\n' + GROUP +
                                               'models = ["trade"]\n'))
    with pytest.raises(PlanError, match=r"group\[1\] and group\[2\]"):
        cells_of(text + 'warmups = 4\n')


def test_languages_must_have_drivers():
    with pytest.raises(PlanError, match=r"group\[1\].languages: no java driver"):
        cells_of(GROUP + 'languages = ["java"]\n')
    with pytest.raises(PlanError, match="no driver found"):
        cells_of(GROUP, infos={})


def test_datasets_resolve_under_the_data_root_or_absolute():
    text = GROUP + 'models = ["trade"]\n' + GROUP + 'models = ["part"]\ndataset = "/abs/dir"\n'
    cells = cells_of(text)
    assert {(c.model, c.dataset_dir, c.dataset) for c in cells} == {
        ("trade", Path("/data/default"), "default"), ("part", Path("/abs/dir"), "dir")}


def test_empty_dataset_has_a_write_but_no_reads():
    cells = cells_of(GROUP + 'models = ["trade"]\nmethods = ["json"]\n', sizes={"trade": 0})
    assert [(c.task, c.n) for c in cells] == [("write", 0)]


ALL_TASKS = ("write", "read_seq", "read_rand", "read_par", "sort_dedup", "memory", "micro",
             "sizes")


def new_task_cells(model: str = "trade", **params):
    text = ("[params]\nn = [5, 50]\nthreads = [1, 2]\nbudget_bytes = [8192, 65536]\n"
            "page_size = 2048\n"
            'sweep_k = [100, 1000]\n' + "".join(f"{k} = {v}\n" for k, v in params.items())
            + f'[[group]]\ntasks = {list(ALL_TASKS)!r}\nmodels = ["{model}"]\n'.replace("'", '"'))
    return cells_of(text, infos={"rust": info(tasks=ALL_TASKS[:-1])}, sizes={model: 20})


def test_read_par_cells_cover_modes_threads_and_the_raw_floor():
    cells = [c for c in new_task_cells() if c.task == "read_par"]
    hand = {(c.depth, c.n, c.setting, c.threads) for c in cells
            if c.method == "handcoded" and c.variant == ""}
    assert hand == {(d, n, f"mode={m}", t) for d in ("materialize", "access") for n in (5, 20)
                    for m in ("seq", "rand") for t in (1, 2)}
    raw = {(c.variant, c.setting, c.threads) for c in cells if c.method == RAW}
    assert ("json", "mode=rand", 2) in raw
    assert len({c.identity for c in cells}) == len(cells)


def test_sort_dedup_memory_and_sizes_cells():
    cells = new_task_cells()
    sort = {(c.method, c.depth, c.n, c.setting) for c in cells
            if c.task == "sort_dedup" and c.variant == ""}
    assert sort == {(m, "materialize", 20, f"budget_bytes={b}") for m in ("handcoded", "json")
                    for b in (8192, 65536)}
    memory = {(c.depth, c.n) for c in cells if c.task == "memory" and c.method == "json"}
    assert memory == {("materialize", 5), ("materialize", 20)}
    sizes = [c for c in cells if c.task == "sizes"]
    # the harness computes sizes: a driver that does not list the task still gets the cells
    assert {(c.method, c.depth, c.n, c.unsupported) for c in sizes if c.variant == ""} == {
        ("handcoded", "", 20, None), ("json", "", 20, None)}
    assert not any(c.method == RAW for c in cells if c.task in ("sort_dedup", "memory", "micro",
                                                                "sizes"))


def test_micro_cells_have_buffers_and_arrays_sweeps_k():
    trade = {(c.depth, c.n, c.setting) for c in new_task_cells() if c.task == "micro"
             and c.method == "json"}
    assert trade == {("materialize", n, f"buffer={b}") for n in (5, 20)
                     for b in ("fresh", "reused")}
    arrays = {c.settings["k"] for c in new_task_cells("arrays", buffers='["reused"]')
              if c.task == "micro"}
    assert arrays == {100, 1000}
    assert setting_values("buffer=fresh k=100") == {"buffer": "fresh", "k": 100}
    assert setting_values("") == {}
