"""The report's network sections on a run holding Rust, C++ and Java nodes, from a results
database written through the results module: every language side by side, and the studies'
network findings beside this run's ratios, each checked against the ratios of its cells."""
from dataclasses import replace
from pathlib import Path

import pytest

from serbench.plan import Cell as PlanCell
from serbench.report.blocks import Table
from serbench.report.data import load_run
from serbench.report.reproduction import NETWORK_FIGURES, Measured, network_findings_section
from serbench.report.render import build_sections
from serbench.report.units import multiple
from serbench.results import CellResult, Results

RUN = "run-network"
PROVENANCE = {"host": {"cpu_model": "test"}, "toolchains": {"python": "3"}, "drivers": {},
              "git": {"commit": "abc", "dirty": False}}
MS = 1_000_000
RATE = 950_000_000  # the measured link rate, bit/s
BASE = PlanCell(language="rust", task="net_fetch", model="part", method="handcoded", depth="",
                variant="", setting="source=ram servers=2", dataset="default",
                dataset_dir=Path("/data/default"), n=50, threads=1, page_size=262144,
                cold=False, warmups=0, repetitions=3, seed=42, timeout_s=60.0, pin_cpus="")
RAM, DISK = "source=ram servers=2", "source=disk servers=2"
TREE = "tree_depth=3"


def ok(ms: float, received: int, steady: bool | None = None, **counters) -> CellResult:
    """A network cell: each repetition ms, the client (or root) receiving `received` bytes."""
    nodes = {"client": {"total_ns": ms * MS, "cpu_ns": ms * MS / 4, "io_ns": ms * MS * 3 / 4,
                        "bytes_sent": 14, "bytes_received": received},
             "server0": {"total_ns": MS, "cpu_ns": 0, "io_ns": MS, "bytes_sent": received,
                         "bytes_received": 7}}
    samples = [{"rep": i, "warmup": False, "total_ns": int(ms * MS) + i,
                "cpu_ns": int(ms * MS / 4), "io_ns": int(ms * MS * 3 / 4), "nodes": nodes}
               for i in range(3)]
    return CellResult("ok", counters={"network": "namespaces", "link_rate_bit": 10**9,
                                      "measured_bit": {"server0": RATE},
                                      "bytes_moved": received, **counters},
                      samples=samples, steady=steady,
                      steady_note="the times drift up" if steady is False else None)


# (cell changes, result): the fetch from RAM by every language's nodes (C++ in-place the
# fastest, Java's handcoded unsteady), the fetch from disk of BSON and JSON+gzip (BSON 4x the
# bytes), the sort-merge and the aggregation trees
CELLS = [
    (dict(), ok(2.0, 15_000)),
    (dict(language="cpp"), ok(1.5, 15_000)),
    (dict(language="java"), ok(12.0, 15_000, steady=False)),
    (dict(language="cpp", method="inplace"), ok(0.25, 60_000)),
    (dict(language="java", method="inplace"),
     CellResult("unsupported", message="the java driver has no method inplace")),
    (dict(method="rkyv"), ok(1.0, 16_000)),
    (dict(language="java", method="kryo"), ok(10.0, 12_000)),
    *[(dict(language=lang, method="bson", setting=DISK), ok(8.0 * k, 400_000))
      for lang, k in (("rust", 1), ("cpp", 1), ("java", 2))],
    *[(dict(language=lang, method="json_gzip", setting=DISK), ok(2.0 * k, 100_000))
      for lang, k in (("rust", 1), ("cpp", 1), ("java", 2))],
    *[(dict(task="net_sort_merge", model="tweet", language=lang, method=method, depth="materialize",
            setting=TREE), ok(ms, 200_000))
      for lang, method, ms in (("rust", "handcoded", 12), ("cpp", "handcoded", 10),
                               ("java", "handcoded", 25), ("java", "java_builtin", 60),
                               ("cpp", "bson", 200))],
    *[(dict(task="net_aggregate", model="sparse", n=1, language=lang, method=method,
            depth="materialize", setting=TREE), ok(ms, 1_000_000, density=0.01))
      for lang, method, ms in (("rust", "handcoded", 12), ("cpp", "handcoded", 10),
                               ("cpp", "inplace", 11), ("java", "handcoded", 25),
                               ("cpp", "json_gzip", 300))],
]


def built(path: Path, base: PlanCell) -> dict:
    """The report's sections (and their children) by id, of a run of CELLS on `base`."""
    with Results(path) as results:
        results.begin_run(RUN, "network", "[[group]]", 42, PROVENANCE, {})
        for i, (changes, result) in enumerate(CELLS, 1):
            results.add_cell(RUN, replace(base, cell_id=i, **changes), result)
        results.finish_run(RUN, "complete")
    found = {}
    for s in build_sections(load_run(path, RUN)):
        found |= {c.id: c for c in [s, *s.children]}
    return found


@pytest.fixture(scope="module")
def sections(tmp_path_factory) -> dict:
    return built(tmp_path_factory.mktemp("network") / "results.duckdb", BASE)


@pytest.fixture(scope="module")
def at_scale(tmp_path_factory) -> dict:
    """The same cells at the studies' sizes (15M objects: the largest regime a network finding
    needs), so that their findings get verdicts instead of "not measurable at this size"."""
    return built(tmp_path_factory.mktemp("at-scale") / "results.duckdb",
                 replace(BASE, n=15_000_000))


def table(sec, title_start: str) -> Table:
    return next(b for b in sec.blocks if isinstance(b, Table) and b.title.startswith(title_start))


def rows_of(t: Table) -> dict[str, list[str]]:
    return {r.values[0]: r.values[1:] for r in t.rows}


def test_the_fetch_shows_every_language_side_by_side(sections):
    t = table(sections["net_fetch-part"], "net_fetch · part: languages side by side at n = 50")
    assert t.columns == ["method", "rust", "cpp", "java"]
    rows = rows_of(t)
    # an unsteady number keeps its label in its own language's cell, not in the row's name
    assert rows["handcoded · source=ram servers=2"] == ["2.00 ms (1.33x)", "1.50 ms (1.00x)",
                                                       "12.0 ms (8.00x) · unsteady"]
    # in-place: C++ only; Java's driver lacks it, Rust's was not asked for
    assert rows["inplace · source=ram servers=2"] == ["not run", "250 µs (1.00x)",
                                                     "unsupported"]
    # Java's kryo and Rust's rkyv, one language each: ranked, not set side by side
    assert not {"kryo · source=ram servers=2", "rkyv · source=ram servers=2"} & set(rows)
    assert rows["bson · source=disk servers=2"] == ["8.00 ms (1.00x)", "8.00 ms (1.00x)",
                                                   "16.0 ms (2.00x)"]


def test_the_trees_show_every_language_side_by_side(sections):
    merge = rows_of(table(sections["net_sort_merge-tweet"], "net_sort_merge · tweet: languages"))
    assert merge["handcoded · materialize · tree_depth=3"] == [
        "12.0 ms (1.20x)", "10.0 ms (1.00x)", "25.0 ms (2.50x)"]
    assert "java_builtin · materialize · tree_depth=3" not in merge
    aggregate = rows_of(table(sections["net_aggregate-sparse"], "net_aggregate · sparse: "
                                                                "languages"))
    assert aggregate["handcoded · materialize · tree_depth=3"][2] == "25.0 ms (2.50x)"


def test_the_network_table_puts_a_requests_languages_on_adjacent_rows(sections):
    network = table(sections["net_fetch-part"], "net_fetch · part: network")
    rows = network.rows
    # what every row shares is said once, above the rows, not down a column
    assert network.note == ("Every row: n: 50; network: tbf 1 Gbit/s, measured "
                            "0.95–0.95 Gbit/s.")
    assert "network" not in network.columns and "n" not in network.columns
    labels = [r.values[0] for r in rows if not r.kind]
    at = labels.index("rust · handcoded · source=ram servers=2")
    assert labels[at:at + 3] == ["rust · handcoded · source=ram servers=2",
                                 "cpp · handcoded · source=ram servers=2",
                                 "java · handcoded · source=ram servers=2 · unsteady"]
    # bytes into the client at the measured rate: 15,000 B × 8 / 0.95 Gbit/s = 126 µs
    java = next(r for r in rows if r.values[0] == labels[at + 2])
    assert java.values[network.columns.index("× transfer floor")] == multiple((12 * MS + 1) / (15_000 * 8 / RATE * 1e9)) == "95.0x"


def test_a_single_language_run_has_no_side_by_side_table(tmp_path):
    path = tmp_path / "results.duckdb"
    with Results(path) as results:
        results.begin_run(RUN, "network", "[[group]]", 42, PROVENANCE, {})
        results.add_cell(RUN, replace(BASE, cell_id=1), ok(2.0, 15_000))
        results.add_cell(RUN, replace(BASE, cell_id=2, method="rkyv"), ok(1.0, 16_000))
        results.finish_run(RUN, "complete")
    fetch = next(c for s in build_sections(load_run(path, RUN)) for c in s.children
                 if c.id == "net_fetch-part")
    assert not [b for b in fetch.blocks if isinstance(b, Table) and "side by side" in b.title]


def test_the_network_findings_have_a_row_per_network_figure_only_for_a_network_run(sections):
    findings = table(sections["network-findings"], "The studies' network findings").rows
    assert [r.values[0] for r in findings] == [fig.subject for fig in NETWORK_FIGURES]
    assert {fig.task for fig in NETWORK_FIGURES} == {"net_fetch", "net_aggregate",
                                                     "net_sort_merge"}
    assert network_findings_section(Measured({}, {})) is None


def finding(sections, key: str) -> list[str]:
    subject = next(fig.subject for fig in NETWORK_FIGURES if fig.key == key)
    rows = table(sections["network-findings"], "The studies' network findings").rows
    return next(r.values for r in rows if r.values[0] == subject)


def test_in_place_from_ram_against_the_closest_competitor_per_language(sections, at_scale):
    assert finding(sections, "net_fetch_ram_inplace")[5].startswith(
        "not measurable at this size: n = 50 here, at least 1,000 needed")
    measured, note, judged = finding(at_scale, "net_fetch_ram_inplace")[3:6]
    # C++: handcoded 1.5 ms / inplace 0.25 ms; Rust: handcoded 2 ms / rkyv 1 ms
    assert measured == ("cpp inplace 250 µs vs handcoded 1.50 ms: 6.00x; "
                        "rust rkyv 1.00 ms vs handcoded 2.00 ms: 2.00x")
    assert judged == ("same direction, about as large as published (measured 6.00x / published "
                      "6.00x) (cpp inplace); same direction, 3.00x smaller than published "
                      "(measured 2.00x / published 6.00x) "
                      "(rust rkyv)")


def test_the_disk_fetch_is_judged_by_time_over_size(sections):
    measured, note, judged = finding(sections, "net_fetch_disk")[3:6]
    # BSON moves 4x the bytes and takes 4x the time in every language: time follows size
    assert measured.startswith("cpp n = 50/server: size 4.00x, time 4.00x; java n = 50/server")
    assert "published 1.00x at 10,000 objects" in note
    # published on Customer; this run fetched Part, and its row links there
    row = next(r for r in table(sections["network-findings"], "The studies'").rows
               if r.values[0] == finding(sections, "net_fetch_disk")[0])
    assert row.links == (("net_fetch · part", "net_fetch-part"),)
    assert judged == "; ".join(f"{lang}, 100 objects: same: about equal (measured 1.00x)"
                               for lang in ("cpp", "java", "rust"))


def test_the_trees_findings_have_a_sign_and_a_factor(sections, at_scale):
    assert finding(at_scale, "net_aggregate_spread")[3:6] == [
        "up to 30.0x (sparse · density 0.01, n = 1)",
        "cpp · json_gzip 300 ms vs cpp · handcoded 10.0 ms",
        "same direction, 3.33x smaller than published (measured 30.0x / published 100x)"]
    # the dataset's own density (counters), 1 %, is one the study published
    assert finding(at_scale, "aggregate_cpp_java_sparse")[3] == \
        "0.08x (sparse · density 0.01, n = 1)"
    # VLDB: C++ hand-coded < Java hand-coded < Java built-in < C++ BSON, 24.4x apart
    assert finding(sections, "tweet_net_sort_merge_order")[5].startswith(
        "not measurable at this size: n = 50 here")
    measured, _, judged = finding(at_scale, "tweet_net_sort_merge_order")[3:6]
    assert measured == ("C++ hand-coded 10.0 ms, Java ByteBuffer (hand-coded) 25.0 ms, Java "
                        "built-in 60.0 ms, C++ BSON (JSON text) 200 ms")
    assert judged == ("same order (Spearman's ρ = 1.00 over 4 methods); slowest / fastest "
                      "20.0x, published 24.4x: about as large as published")


def cluster_host(worker: str, hostname: str, cores: int) -> dict:
    """A host as the Dask placement records it in a cell's counters (dask_placement)."""
    return {"worker": worker, "address": f"tcp://10.0.0.{cores}:4000", "hostname": hostname,
            "cpu_model": "cluster cpu", "logical_cores": cores, "memory_bytes": 8 * 2**30,
            "kernel": "6.1.0-test"}


def test_cluster_cells_name_their_hosts_and_measured_links(tmp_path):
    path = tmp_path / "results.duckdb"
    placed = {"network": "cluster", "hosts": {"client": cluster_host("w1", "alpha", 2),
                                              "server0": cluster_host("w2", "beta", 4)},
              "measured_bit": {"w1->w2": 940_000_000}}
    with Results(path) as results:
        results.begin_run(RUN, "network", "[[group]]", 42, PROVENANCE, {})
        results.add_cell(RUN, replace(BASE, cell_id=1), ok(2.0, 15_000, **placed))
        results.finish_run(RUN, "complete")
    fetch = next(c for s in build_sections(load_run(path, RUN)) for c in s.children
                 if c.id == "net_fetch-part")
    network = table(fetch, "net_fetch · part: network").rows[0].values
    assert network[4] == "cluster on w1 (alpha), w2 (beta); measured w1->w2 0.94 Gbit/s"
    assert network[6].startswith("client on w1 (alpha) (")  # the busiest node's host
    nodes = table(fetch, "net_fetch · part: every node")
    assert nodes.columns[:3] == ["implementation", "node", "host"]
    assert {r.values[1]: r.values[2] for r in nodes.rows} == {"client": "w1 (alpha)",
                                                              "server0": "w2 (beta)"}
    hosts = rows_of(table(fetch, "net_fetch · part: cluster hosts"))
    assert hosts["w1 (alpha)"] == ["cluster cpu", "2", "8,192 MiB", "6.1.0-test", "client",
                                   "0.94 Gbit/s"]
    assert hosts["w2 (beta)"][5] == "—"  # measured from w1 only
    # one node per host: nothing to add up
    assert not [b for b in fetch.blocks if isinstance(b, Table) and "summed" in b.title]


def test_a_host_running_several_nodes_of_a_cell_has_them_summed(tmp_path):
    path = tmp_path / "results.duckdb"
    alpha = cluster_host("w1", "alpha", 2)
    placed = {"network": "cluster", "hosts": {"client": alpha, "server0": alpha}}
    with Results(path) as results:
        results.begin_run(RUN, "network", "[[group]]", 42, PROVENANCE, {})
        results.add_cell(RUN, replace(BASE, cell_id=1), ok(2.0, 15_000, **placed))
        results.finish_run(RUN, "complete")
    fetch = next(c for s in build_sections(load_run(path, RUN)) for c in s.children
                 if c.id == "net_fetch-part")
    [summed] = [b for b in fetch.blocks if isinstance(b, Table) and "summed" in b.title]
    assert summed.title == "net_fetch · part: cluster hosts at n = 50, their nodes summed"
    # client (0.5 ms cpu, 1.5 ms io, 14 B out, 15,000 B in) and server0 (0 cpu, 1 ms io,
    # 15,000 B out, 7 B in) on w1
    assert [r.values[1:] for r in summed.rows] == [
        ["w1 (alpha)", "client, server0", "0.5", "2.5", "14.7 KiB", "14.7 KiB", "0 B"]]


def test_one_machine_cells_have_no_host_column_or_hosts_table(sections):
    fetch = sections["net_fetch-part"]
    assert "host" not in table(fetch, "net_fetch · part: every node").columns
    assert not [b for b in fetch.blocks if isinstance(b, Table) and "hosts" in b.title]


def test_a_java_nodes_jit_is_in_the_node_table_beside_its_unsteady_cell(tmp_path):
    """A mixed cell whose Java server compiled while measured (steady.py judged it): the node
    table says which node compiled how much, the cell's label says unsteady."""
    path = tmp_path / "results.duckdb"
    result = ok(12.0, 15_000, steady=False)
    for s in result.samples:
        s["nodes"] = {**s["nodes"], "server0": {**s["nodes"]["server0"], "jit_ms": 6,
                                                "jit_cpu_ns": 7_500_000}}
    with Results(path) as results:
        results.begin_run(RUN, "network", "[[group]]", 42, PROVENANCE, {})
        results.add_cell(RUN, replace(BASE, cell_id=1, setting=f"{RAM} roles=server:java"),
                         replace(result, counters={**result.counters, "node_languages": {
                             "client": "rust", "server0": "java"}}))
        results.finish_run(RUN, "complete")
    fetch = next(c for s in build_sections(load_run(path, RUN)) for c in s.children
                 if c.id == "net_fetch-part")
    nodes = table(fetch, "net_fetch · part: every node")
    assert nodes.columns[-1] == "JIT ms (compiled / compiler CPU)"
    assert {r.values[1]: r.values[-1] for r in nodes.rows} == {"client (rust)": "—",
                                                               "server0 (java)": "6 / 7.5"}
    assert all(r.values[0].endswith(" · unsteady") for r in nodes.rows)
