"""Mixed-language network cells (issue 17 point 2): a plan's `roles` give a network group's
roles their languages, refused before anything runs when a role's driver lacks the task or
method; the runner proves every language pair a group uses with a small fetch before timing
and fails the cells of a pair that does not understand itself, naming it; a real mixed
sort-merge (Java leaves, C++ middle nodes, a Rust root) and fetch (Java servers, a C++
client) run through the runner to ok; a role given several languages has its nodes take them
in turn (a Rust client fetching from a Java and a C++ server in one cell), refused when it
cannot run; `serbench verify`'s network matrix proves every ordered pair of node languages
and names a broken one."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from serbench.drivers import process as driver_module
from serbench.drivers.process import BUILD_PATHS, LANGUAGES, env_var
from serbench.network import exchange as cell_module
from serbench.plan import PlanError, describe, expand, parse_plan
from serbench.results import Results

from conftest import built_driver
from fake_driver import make_dataset
from test_end_to_end import cli_ok
from test_plan import info

MIXED_PLAN = """
name = "mixed"
[params]
rounds_max = 1
prewarm_max_ms = 0      # plumbing: no JIT warm-up (tests/test_prewarm.py)
page_size = 256
warmups = 0
repetitions = 1
timeout_s = 120
servers = 2
n = [1000]
net_page_bytes = 65536
network = "loopback"
[[group]]
tasks = ["net_sort_merge"]
models = ["part"]
methods = ["msgpack"]
languages = ["rust"]
roles = {leaf = "java", middle = "cpp"}
n = [2]
[[group]]
tasks = ["net_fetch"]
models = ["part"]
methods = ["msgpack"]
languages = ["rust"]
sources = ["decode"]
roles = {server = "java", client = "cpp"}
raw = false
"""


def parsed(group: str) -> "Plan":  # noqa: F821
    return parse_plan(f"[[group]]\n{group}\n", "p.toml", "p")


def test_roles_are_parsed_in_the_tasks_role_order():
    plan = parsed('tasks = ["net_sort_merge"]\nroles = {root = "rust", leaf = "java"}')
    assert plan.groups[0].roles == (("leaf", ("java",)), ("root", ("rust",)))
    fetch = parsed('tasks = ["net_fetch"]\nroles = {client = "cpp", server = ["java", "cpp"]}')
    assert fetch.groups[0].roles == (("server", ("java", "cpp")), ("client", ("cpp",)))


@pytest.mark.parametrize("group, problem", [
    ('tasks = ["net_fetch"]\nroles = {leaf = "java"}',
     r"group\[1\].roles: unknown role 'leaf'; the roles of net_fetch: server, client"),
    ('tasks = ["net_fetch"]\nroles = {server = "go"}',
     r"group\[1\].roles.server: unknown language 'go'"),
    ('tasks = ["net_fetch", "write"]\nroles = {server = "java"}',
     r"group\[1\].roles: .*write runs no nodes"),
    ('tasks = ["net_fetch"]\nroles = "java"', r"group\[1\].roles: must be a table"),
    ('tasks = ["net_fetch"]\nroles = {server = ["java", "go"]}',
     r"p.toml: line 3: group\[1\].roles.server: unknown language 'go'"),
    ('tasks = ["net_fetch"]\nroles = {server = ["java", "java"]}',
     r"group\[1\].roles.server: must be a language or a list of distinct languages"),
    ('tasks = ["net_fetch"]\nroles = {server = []}',
     r"group\[1\].roles.server: must be a language or a list of distinct languages"),
])
def test_impossible_roles_are_refused_by_name(group, problem):
    with pytest.raises(PlanError, match=problem):
        parsed(group)


def infos(java_net_tasks=("net_fetch",)) -> dict:
    spec = {"depths": ["materialize"], "variants": [], "models": ["part"]}
    made = {lang: info(lang, {m: spec for m in methods}) for lang, methods in
            (("rust", ("handcoded", "json", "rkyv")), ("java", ("handcoded", "json")),
             ("cpp", ("handcoded", "json", "inplace")))}
    for lang, tasks in (("rust", ("net_fetch", "net_sort_merge")), ("java", java_net_tasks),
                        ("cpp", ("net_fetch", "net_sort_merge"))):
        made[lang]["net_tasks"] = list(tasks)
    return made


def expanded(group: str, **kwargs) -> list:
    plan = parse_plan(f"[params]\nn = [4]\n[[group]]\n{group}\n", "p.toml", "p")
    return expand(plan, kwargs.get("infos") or infos(), lambda d, m: 100, Path("/data"))


def test_a_role_whose_driver_lacks_the_task_or_method_is_refused_naming_the_line():
    with pytest.raises(PlanError, match=r"p.toml: line 7: group\[1\].roles.leaf: the java "
                                        r"driver's nodes do not run net_sort_merge"):
        expanded('tasks = ["net_sort_merge"]\nmodels = ["part"]\nlanguages = ["rust"]\n'
                 'roles = {leaf = "java"}')
    with pytest.raises(PlanError, match=r"line 7: group\[1\].roles.server: the java driver has "
                                        r"no rkyv; only methods both languages offer"):
        expanded('tasks = ["net_fetch"]\nmodels = ["part"]\nmethods = ["rkyv"]\n'
                 'roles = {server = "java"}')
    without_cpp = {lang: i for lang, i in infos().items() if lang != "cpp"}
    with pytest.raises(PlanError, match=r"roles.client: no cpp driver found"):
        expanded('tasks = ["net_fetch"]\nroles = {client = "cpp"}', infos=without_cpp)


@pytest.mark.parametrize("group, problem", [
    # each of a role's languages is checked as a role's one language is
    ('tasks = ["net_fetch"]\nmethods = ["inplace"]\nlanguages = ["cpp"]\n'
     'roles = {server = ["cpp", "java"]}',
     r"line 7: group\[1\].roles.server: the java driver has no inplace; only methods both"),
    ('tasks = ["net_sort_merge"]\nlanguages = ["rust"]\nroles = {leaf = ["cpp", "java"]}',
     r"line 6: group\[1\].roles.leaf: the java driver's nodes do not run net_sort_merge"),
    # a language per node at most: every language the cell names runs
    ('tasks = ["net_fetch"]\nservers = 2\nroles = {server = ["java", "cpp", "rust"]}',
     r"line 6: group\[1\].roles.server: 3 languages for net_fetch's 2 server nodes"),
    ('tasks = ["net_fetch"]\nroles = {client = ["java", "cpp"]}',
     r"roles.client: 2 languages for net_fetch's 1 client node: each language runs a node"),
    ('tasks = ["net_sort_merge"]\ntree_depth = 2\nroles = {leaf = ["java", "cpp", "rust"]}',
     r"roles.leaf: 3 languages for net_sort_merge's 2 leaf nodes"),
])
def test_a_role_of_several_languages_that_cannot_run_is_refused_naming_the_line(group, problem):
    with pytest.raises(PlanError, match=problem):
        expanded(group)


def test_mixed_cells_name_their_roles_and_only_shared_methods_mix():
    cells = expanded('tasks = ["net_fetch"]\nmodels = ["part"]\nlanguages = ["rust", "java"]\n'
                     'sources = ["decode"]\nroles = {server = "java"}')
    by = {(c.language, c.method): c for c in cells}
    # the Java cell's servers are its own: no roles; the Rust cell's are Java's
    assert by["java", "json"].setting == "source=decode servers=4"
    assert by["rust", "json"].setting == "source=decode servers=4 roles=server:java"
    assert by["rust", "json"].roles == {"server": ("java",)}
    assert not by["rust", "json"].unsupported
    # "*" methods: one Java lacks is not mixed but unsupported, with the reason
    assert "rkyv is not shared with java" in by["rust", "rkyv"].unsupported
    trees = expanded('tasks = ["net_sort_merge"]\nmodels = ["part"]\nlanguages = ["rust"]\n'
                     'methods = ["json"]\ntree_depth = 2\n'
                     'roles = {leaf = "rust", middle = "java", root = "java"}',
                     infos=infos(("net_fetch", "net_sort_merge")))
    # a tree of depth 2 has no middle nodes; a role of the cell's own language is no mix
    assert [c.setting for c in trees] == ["tree_depth=2 roles=root:java"]


def test_a_role_of_several_languages_names_them_in_its_cells_setting():
    cells = expanded('tasks = ["net_fetch"]\nmodels = ["part"]\nmethods = "*"\n'
                     'languages = ["rust"]\nsources = ["ram"]\n'
                     'roles = {server = ["java", "cpp"]}')
    by = {c.method: c for c in cells if c.method != "raw"}
    assert by["json"].setting == "source=ram servers=4 roles=server:java+cpp"
    assert by["json"].roles == {"server": ("java", "cpp")} and not by["json"].unsupported
    assert "rkyv is not shared with java" in by["rkyv"].unsupported
    assert "rust/json/part/net_fetch n=4 source=ram servers=4 roles=server:java+cpp" in \
        describe(by["json"])
    # the cell's own language among a role's is a mix too
    own = expanded('tasks = ["net_fetch"]\nmodels = ["part"]\nmethods = ["json"]\n'
                   'languages = ["rust"]\nsources = ["ram"]\n'
                   'roles = {server = ["rust", "cpp"]}')
    assert [c.setting for c in own] == ["source=ram servers=4 roles=server:rust+cpp"]


def test_the_pairs_a_cell_uses_follow_its_links():
    from serbench.tasks.network import pairs_of
    from serbench.network.proof import Pair
    tree, fetch = (expanded(g, infos=infos(("net_fetch", "net_sort_merge")))[0] for g in (
        'tasks = ["net_sort_merge"]\nmodels = ["part"]\nlanguages = ["rust"]\n'
        'methods = ["json"]\nroles = {leaf = "java"}',
        'tasks = ["net_fetch"]\nmodels = ["part"]\nlanguages = ["rust"]\nmethods = ["json"]\n'
        'sources = ["ram"]\nroles = {client = "java"}'))
    assert pairs_of(tree) == {Pair("java", "rust")}  # leaves under Rust middle nodes
    assert pairs_of(fetch) == {Pair("rust", "java")}


def test_a_roles_nodes_take_its_languages_in_turn():
    from serbench.network import aggregate, fetch
    from serbench.network.proof import Pair
    from serbench.tasks.network import pairs_of
    [tree] = expanded('tasks = ["net_sort_merge"]\nmodels = ["part"]\nlanguages = ["rust"]\n'
                      'methods = ["json"]\nroles = {leaf = ["java", "cpp"], middle = "cpp"}',
                      infos=infos(("net_fetch", "net_sort_merge")))
    # node i's parent is (i-1)//2: leaves 3, 4 under middle1, leaves 5, 6 under middle2
    assert aggregate.node_languages(tree) == ["rust", "cpp", "cpp", "java", "cpp", "java",
                                              "cpp"]
    assert pairs_of(tree) == {Pair("java", "cpp"), Pair("cpp", "rust")}
    [servers] = expanded('tasks = ["net_fetch"]\nmodels = ["part"]\nlanguages = ["rust"]\n'
                         'methods = ["json"]\nservers = 3\nsources = ["ram"]\n'
                         'roles = {server = ["java", "cpp"]}')
    assert fetch.node_languages(servers) == (["java", "cpp", "java"], "rust")
    assert pairs_of(servers) == {Pair("java", "rust"), Pair("cpp", "rust")}


@pytest.fixture
def mixed_home(tmp_path: Path, monkeypatch) -> Path:
    """A private SERBENCH_HOME with golden-vector datasets and every real driver."""
    home = tmp_path / "home"
    monkeypatch.setenv("SERBENCH_HOME", str(home))
    monkeypatch.setattr(driver_module, "BUILD_PATHS",
                        {lang: built_driver(lang) for lang in LANGUAGES})
    for lang in LANGUAGES:
        monkeypatch.delenv(env_var(lang), raising=False)
    make_dataset(home / "data" / "default", models=("part",), copies=4)
    return home


def run_cells(home: Path, tmp_path: Path, plan_text: str) -> list[dict]:
    plan = tmp_path / "mixed.toml"
    plan.write_text(plan_text)
    cli_ok("run", str(plan))
    with Results(home / "results.duckdb") as results:
        [run] = results.runs()
        return results.cells(run["run_id"])


def test_mixed_cells_run_through_the_runner_to_ok(mixed_home, tmp_path):
    cells = run_cells(mixed_home, tmp_path, MIXED_PLAN)
    assert {c["setting"]: c["status"] for c in cells} == {
        "tree_depth=3 roles=leaf:java,middle:cpp": "ok",
        "source=decode servers=2 roles=server:java,client:cpp": "ok"}, \
        [c["message"] for c in cells]
    for c in cells:
        assert [c["got_count"], c["got_sum"]] == [c["expected_count"], c["expected_sum"]]
    markdown = next(Path(w) for w in cli_ok("report").split() if w.endswith(".md")).read_text()
    assert "roles=leaf:java,middle:cpp" in markdown
    assert "roles=server:java,client:cpp" in markdown


def test_a_rust_client_fetches_from_a_java_and_a_cpp_server_in_one_cell(mixed_home, tmp_path):
    """From RAM (each server encodes its own objects: two languages' encoders into one
    client) and from disk with decode; the cold Java server's JIT is judged in its cell."""
    params, trees, fetch = MIXED_PLAN.split("[[group]]")
    plan = params + "[[group]]" + fetch.replace(
        'roles = {server = "java", client = "cpp"}', 'roles = {server = ["java", "cpp"]}'
    ).replace('sources = ["decode"]', 'sources = ["ram", "decode"]')
    cells = {c["setting"].split()[0]: c for c in run_cells(mixed_home, tmp_path, plan)}
    assert set(cells) == {"source=ram", "source=decode"}
    for source, cell in cells.items():
        assert cell["status"] == "ok", cell["message"]
        assert (cell["language"], cell["setting"]) == ("rust", f"{source} servers=2 "
                                                               "roles=server:java+cpp")
        assert [cell["got_count"], cell["got_sum"]] == [cell["expected_count"],
                                                        cell["expected_sum"]]
        assert json.loads(cell["counters"])["node_languages"] == {
            "server0": "java", "server1": "cpp", "client": "rust"}
        # no warm-up in a fresh JVM: the Java server's JIT while measured is judged in the
        # cell (how much it compiled depends on the machine's load: 1 ms, under the
        # threshold, in one run of the suite beside another)
        assert re.search(r"node server0: (the )?JIT compiled", cell["steady_note"]), \
            cell["steady_note"]
    decode = cells["source=decode"]
    markdown = next(Path(w) for w in cli_ok("report").split() if w.endswith(".md")).read_text()
    # the report labels the cell exactly when it was judged unsteady
    label = "rust · msgpack · materialize · source=decode servers=2 roles=server:java+cpp"
    assert (f"{label} · unsteady" in markdown) is (decode["steady"] is False)
    assert label in markdown
    assert "server0 (java)" in markdown and "server1 (cpp)" in markdown


def test_a_role_of_more_languages_than_nodes_stops_serbench_run_with_exit_2(
        mixed_home, tmp_path, monkeypatch, capsys):
    from serbench.cli import main
    plan = tmp_path / "p.toml"
    plan.write_text('[[group]]\ntasks = ["net_fetch"]\nmethods = ["msgpack"]\nservers = 2\n'
                    'roles = {server = ["java", "cpp", "rust"]}\n')
    monkeypatch.setattr("sys.argv", ["serbench", "run", str(plan)])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 2
    assert "line 5: group[1].roles.server: 3 languages for net_fetch's 2 server nodes" in \
        capsys.readouterr().err
    with Results(mixed_home / "results.duckdb") as results:
        assert not results.runs()  # refused before any run began


def test_a_pair_that_fails_its_proof_fails_its_cells_untimed_naming_it(mixed_home, tmp_path,
                                                                       monkeypatch):
    real = cell_module.setup_message

    def java_speaks_json(cell, spec):  # a broken Java node: another method on the wire
        message = real(cell, spec)
        return {**message, "method": "json"} if spec.language == "java" else message

    monkeypatch.setattr(cell_module, "setup_message", java_speaks_json)
    cells = run_cells(mixed_home, tmp_path, MIXED_PLAN.replace(
        'roles = {leaf = "java", middle = "cpp"}', 'roles = {middle = "java"}'))
    failed = {c["task"]: c["message"] for c in cells if c["status"] == "failed"}
    assert set(failed) == {"net_sort_merge", "net_fetch"}, cells
    # the tree's Rust leaves send to Java middles, which send to the Rust root
    assert "the java → rust msgpack pair failed its proof before timing" in failed[
        "net_sort_merge"]
    assert "the java → cpp msgpack pair failed its proof" in failed["net_fetch"]
    assert all("node server0" in m and "not 'json'" in m for m in failed.values())


def test_verify_proves_every_ordered_pair_of_node_languages(mixed_home):
    from serbench.run.runner import driver_infos
    from serbench.run.verify import NET_STEPS, verify
    paths = driver_module.find_drivers()
    checks = verify(paths, driver_infos(paths), mixed_home / "data" / "default",
                    methods=("json",), models=("part",), network=True)
    network = {(c.step, c.producer, c.language): c.status for c in checks if c.step in NET_STEPS}
    assert network == {(step, a, b): "ok" for step in NET_STEPS for a in LANGUAGES
                       for b in LANGUAGES if a != b}


def test_verify_names_the_pair_whose_sender_is_broken(mixed_home, monkeypatch):
    from click.testing import CliRunner
    from serbench.cli import cli
    real = cell_module.setup_message

    def java_sends_json(cell, spec):  # Java's sending nodes only: servers and leaves
        message = real(cell, spec)
        sends = spec.role == "server" or spec.name.startswith("leaf")
        return {**message, "method": "json"} if spec.language == "java" and sends else message

    monkeypatch.setattr(cell_module, "setup_message", java_sends_json)
    result = CliRunner().invoke(cli, ["verify", "--method", "msgpack", "--model", "part",
                                      "--language", "java", "--language", "rust"])
    assert result.exit_code == 1, result.output
    failed = [line.split(":")[0] for line in result.output.splitlines()
              if line.startswith("failed ") and "(sent by" in line]
    assert failed == [
        "failed rust msgpack part net_fetch materialize (sent by java)",
        "failed rust msgpack part net_sort_merge materialize (sent by java)"]
    assert "2 of" in result.output and "checks failed" in result.output


def part_dataset(directory: Path, objects: int) -> Path:
    """`objects` golden parts, the four repeated in turn."""
    from fake_driver import write_dataset
    lines = (Path(__file__).resolve().parents[1] / "vectors" / "part.jsonl").read_bytes()
    parts = [line for line in lines.splitlines() if line.strip()]
    return write_dataset(directory, "part", (parts * objects)[:objects], {"objects": objects})


@pytest.mark.parametrize("objects", range(1, 9))
def test_the_proofs_ask_only_for_objects_the_dataset_holds(objects, monkeypatch, tmp_path):
    from serbench.network import proof
    asked = []

    def record(task, cell, drivers, output):  # every proof cell fails: each fallback runs too
        nodes = cell.params.get("servers") or cell.params["nodes"]
        asked.append((cell.task, nodes, cell.params["n"]))
        return "failed"

    monkeypatch.setattr(proof, "_run_problem", record)
    source = proof.Source(part_dataset(tmp_path / "d", objects), "part", "json", tmp_path / "b",
                          4096, list(range(objects)))
    pairs = {proof.Pair(a, b) for a in LANGUAGES for b in LANGUAGES if a != b}
    proof.prove_fetches(source, pairs, {}, tmp_path / "w")
    impossible = proof.trees_impossible(source)
    if impossible is None:
        proof.prove_trees(source, list(LANGUAGES), {}, tmp_path / "w")
    else:
        assert impossible == ("a sort-merge tree needs an object for each of its 3 nodes at "
                              f"least (a root and two leaves); the part dataset holds {objects}")
    assert (impossible is None) == (objects >= 3)
    assert all(1 <= n and nodes * n <= objects for _, nodes, n in asked), asked
    # every pair proved alone at least: one fetch per pair, one 3-node tree per pair
    assert sum(task == "net_fetch" and nodes == 1 for task, nodes, _ in asked) == len(pairs)
    assert sum(task == "net_sort_merge" and nodes == 3 for task, nodes, _ in asked) == (
        len(pairs) if impossible is None else 0)


def test_verify_on_a_one_object_dataset_sizes_its_fetches_and_skips_trees_saying_why(
        mixed_home):
    from serbench.run.runner import driver_infos
    from serbench.run.verify import NET_STEPS, verify
    one = part_dataset(mixed_home / "data" / "one", 1)
    paths = driver_module.find_drivers()
    checks = verify(paths, driver_infos(paths), one, methods=("json",), network=True)
    network = {(c.step, c.producer, c.language): (c.status, c.message)
               for c in checks if c.step in NET_STEPS}
    why = ("a sort-merge tree needs an object for each of its 3 nodes at least (a root and "
           "two leaves); the part dataset holds 1")
    assert network == {(step, a, b): ("ok", "") if step == "net_fetch" else ("skipped", why)
                       for step in NET_STEPS for a in LANGUAGES for b in LANGUAGES if a != b}
    assert {c.status for c in checks} <= {"ok", "skipped", "unsupported"}
