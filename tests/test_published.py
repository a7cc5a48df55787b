"""Every published figure has a comparison, a row in the report and, on the fixture run of
test_report, a measured outcome or the reason it has none; verdicts and Spearman's rank
correlation on cases worked out by hand."""
from dataclasses import replace
from types import SimpleNamespace

import pytest

from serbench.reproduce.published import FIGURES, REFERENCE_STUDY, STUDY_METHODS, PublishedFigure
from serbench.report.published_plot import points, published_figure
from serbench.report import render_run
from serbench.report.data import Cell, Run, Stat
from serbench.report.plots import Palette
from serbench.report.reasons import reasons, shared_facts
from serbench.report.size_views import size_entries
from serbench.report.tasks import task_models
from serbench.report.reproduction import (COMPARISONS, Measured, Outcome, Pick, missing_reason,
                                        spearman, time_pair, verdict)
from serbench.report.data import load_run
from serbench.report.render import run_tasks
from test_report import RUN, make_results_db, markdown_table


def test_every_figure_has_a_comparison_and_every_comparison_a_figure():
    keys = [fig.key for fig in FIGURES]
    assert len(keys) == len(set(keys))
    assert set(keys) == set(COMPARISONS)
    assert len({fig.subject for fig in FIGURES}) == len(FIGURES)  # one row each, by subject


def test_every_study_method_name_maps_to_a_method():
    for fig in FIGURES:
        if fig.key.endswith(("_method_sizes", "_order")):
            assert set(fig.values) <= set(STUDY_METHODS), fig.key


@pytest.fixture(scope="module")
def rendered_chapter(tmp_path_factory):
    root = tmp_path_factory.mktemp("published")
    make_results_db(root / "results.duckdb")
    html, md = render_run(root / "results.duckdb", RUN, root / "out")
    return html.read_text("utf-8"), md.read_text("utf-8")


@pytest.fixture(scope="module")
def published_rows(rendered_chapter):
    return rendered_chapter[1]


def test_one_row_per_figure_each_measured_or_with_its_reason(published_rows):
    rows = markdown_table(published_rows, "Published and measured")
    assert [r[0] for r in rows] == [fig.subject for fig in FIGURES]
    for row in rows:
        measured, note = row[3], row[4]
        assert measured != "—" or note.startswith(("not measured in this run: this run has "
                                                   "no measured ", "not yet measurable: ")), row
    by_subject = {r[0]: r for r in rows}
    # the fixture's part sizes beside Table 1: java_builtin 410 B against 298 B
    sizes = by_subject["Part: bytes per object, per method"]
    assert "Java Default (built-in) 410 B (+38%)" in sizes[3]
    assert "not in this run: Java BSON" in sizes[4]
    # a network finding is listed, not left out, with what it needs
    fetch = by_subject["networked requests from disk: time follows size (BSON / JSON+gzip, "
                       "Customer)"]
    assert fetch[4].startswith("not yet measurable: ") and "Customer" in fetch[4]
    tweets = by_subject["tweet: write, methods in order of time"]
    assert "published at 10M objects" in tweets[4]


def test_the_summary_lists_measured_figures_and_counts_the_rest(published_rows):
    summary = published_rows[published_rows.index("## Summary"):]
    summary = summary[:summary.index("\n## ", 5)]
    unmeasured = sum(r[3] == "—" for r in markdown_table(published_rows,
                                                         "Published and measured"))
    assert f"{unmeasured} listed with the cells they need" in summary
    assert "- **every task: fastest Java / fastest C++**: same direction, about as large as " \
           "published (measured 1.67x / published 2.00x)" in summary


def test_verdicts_by_hand():
    # this run's ratio against the published one in words: 3 / 4 is 1.33x smaller, 0.8 to 1.25
    # about as large; a measured ratio under 1 reverses a published one over 1
    assert verdict(3.0, 4.0) == ("same direction, 1.33x smaller than published (measured "
                                 "3.00x / published 4.00x)")
    assert verdict(8.0, 2.0).startswith("same direction, 4.00x larger than published")
    assert verdict(2.4, 2.0).startswith("same direction, about as large as published")
    assert verdict(0.5, 2.0) == "reversed (measured 0.50x / published 2.00x)"
    assert verdict(1.5, None) == "same direction (measured 1.50x)"
    assert verdict(1.1, 1).startswith("same: about equal")
    assert verdict(2.0, 1).startswith("differs: not about equal")


@pytest.fixture(scope="module")
def read_seq(tmp_path_factory):
    root = tmp_path_factory.mktemp("cells")
    make_results_db(root / "results.duckdb")
    tasks = run_tasks(load_run(root / "results.duckdb", RUN))
    return {tm.model: tm for tm in tasks["read_seq"]}


def figure(ratio, model="trade"):
    return PublishedFigure("k", "s", "f", REFERENCE_STUDY, model=model, task="read_seq",
                           values={"ratio": ratio})


def test_time_pair_same_direction_reversed_and_missing(read_seq):
    tasks = {"read_seq": [read_seq["trade"]]}
    # trade at n = 10,000, materialize: java handcoded 300 ns, cpp handcoded 180 ns per object
    java_over_cpp = time_pair(Pick("java", ("handcoded",)), Pick("cpp", ("handcoded",)))
    same = java_over_cpp(figure(2), Measured({}, tasks))
    assert same.measured == "1.67x (trade, n = 10,000)"
    assert same.verdict == ("same direction, about as large as published (measured 1.67x / "
                            "published 2.00x)")
    cpp_over_java = time_pair(Pick("cpp", ("handcoded",)), Pick("java", ("handcoded",)))
    assert cpp_over_java(figure(2), Measured({}, tasks)).verdict.startswith(
        "reversed (measured 0.60x")
    # no cpp inplace in the run: no outcome, and the row gives the reason
    missing = time_pair(Pick("java", ("handcoded",)), Pick("cpp", ("inplace",)))
    assert missing(figure(2), Measured({}, tasks)) is None
    assert time_pair(Pick("java"), Pick("cpp"))(figure(2), Measured({}, {})) is None
    assert missing_reason(figure(2), Measured({}, {})) == (
        "not measured in this run: this run has no measured read_seq cells of trade")
    # the fixture's java_builtin read of trade ran unsteady: said, not called missing
    assert missing_reason(figure(2), Measured({}, tasks)).endswith(
        "at steady state (read_seq cells of trade that ran unsteady are left out of verdicts)")


def test_an_unsteady_cell_is_never_one_side_of_a_verdict(read_seq):
    # read_seq trade java java_builtin at n = 10,000 was measured before steady state
    outcome = time_pair(Pick("java", ("java_builtin",)), Pick("cpp"))(
        figure(None), Measured({}, {"read_seq": [read_seq["trade"]]}))
    assert outcome is None


def test_spearman_by_hand():
    # d = 1, 1, 1, 1: 1 - 6 * 4 / (4 * 15)
    assert spearman([1, 2, 3, 4], [2, 1, 4, 3]) == pytest.approx(0.6)
    assert spearman([1, 2, 3], [30, 20, 10]) == pytest.approx(-1.0)
    # ties share their mean rank: ranks 1, 2.5, 2.5, 4 against 1, 2, 3, 4
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(0.9486833)


# --- the reason column, on hand-made cells ---------------------------------------------------

def made_cell(language, method, task="read_seq", model="tweet", depth="materialize", n=1000,
              ms=1.0, steady=True, counters=None, cold_note="", trusting=False):
    """A measured cell; a sizes cell, as the sizes task records it, has no samples."""
    timed = task != "sizes"
    return Cell(0, language, task, model, method, depth, "", "default", n, 1, 262144,
                task != "write", "ok", "", "", "", n, "", n, "", "", counters or {},
                reps=5 if timed else 0, total=Stat(ms * 1e6, ms * 1e6, ms * 1e6) if timed
                else None, steady=steady if timed else None, cold_note=cold_note,
                trusting=trusting)


def made_run(cores=16):
    drivers = {"java": {"info": {"toolchain": {"java": "21.0.5"}}},
               "cpp": {"info": {"toolchain": {"standard": "c++17", "compiler": "g++ 12.2.0"}}}}
    return Run("r", "complete", None, None, "p", "", 1, "abc", False,
               {"logical_cores": cores, "cpu_model": "Test CPU"}, {}, drivers, {})


def measured_from(cells):
    sizes = size_entries(cells)
    return Measured(sizes, task_models(cells, Palette({c.method for c in cells})))


def reason_ids(fig, cells, run=None):
    """The figure's reasons, the libraries of the methods its outcome compares among them."""
    measured = measured_from(cells)
    outcome = COMPARISONS[fig.key](fig, measured)
    return {r.id: r.text for r in reasons(fig, measured, run,
                                          outcome.compared if outcome else frozenset())}


TWEET_READ = next(fig for fig in FIGURES if fig.key == "tweet_read_seq_order")


def test_a_lazy_study_read_against_materialized_cells_is_a_reason():
    cells = [made_cell("java", "protobuf"), made_cell("cpp", "flatbuffers"),
             made_cell("java", "json"), made_cell("java", "protobuf", depth="access")]
    found = reason_ids(TWEET_READ, cells)
    # Java Protocol Buffers and C++ FlatBuffers read lazily in the study; Java JSON did not
    assert found["lazy_read"] == ("equal depth: this run materialized Java Protocol Buffers, "
                                  "C++ FlatBuffers, which the study read lazily (depth access)")
    # only access cells of the lazy methods: the same depth as the study's, no reason
    lazy_only = [made_cell("java", "protobuf", depth="access"), made_cell("java", "json")]
    assert "lazy_read" not in reason_ids(TWEET_READ, lazy_only)
    # an unsteady materialized read is left out of the comparison, so it is no reason either
    unsteady = [made_cell("java", "protobuf", steady=False), made_cell("java", "json")]
    assert "lazy_read" not in reason_ids(TWEET_READ, unsteady)


def test_json_text_and_data_size_come_from_the_run():
    cells = [made_cell("cpp", "bson", n=10_000), made_cell("java", "kryo", n=1000)]
    found = reason_ids(TWEET_READ, cells, made_run())
    assert found["json_text"] == ("C++ BSON (JSON text) stored JSON text; this run's cpp bson "
                                  "stores the format's own bytes")
    assert found["data_size"] == ("data size: the study 10,000,000 objects, this run "
                                  "n = 10,000 at most (1,000x fewer)")
    inplace = next(fig for fig in FIGURES if fig.key == "read_seq_inplace")
    cpp = [made_cell("cpp", "handcoded", model="part"), made_cell("cpp", "inplace", model="part")]
    assert "data_size" not in reason_ids(inplace, cpp, made_run(cores=4))  # the study gives none


def test_the_hardware_and_toolchains_are_said_once_for_every_row():
    # this run's and the SoCC'17 study's; the articles and the VLDB draft name neither
    assert shared_facts(made_run(cores=4)) == (
        "The same for every row, so not in its reasons: this run on Test CPU (4 logical "
        "cores) with cpp standard c++17, compiler g++ 12.2.0, java java 21.0.5; the SoCC'17 "
        "study on c3.4xlarge, SSD (16 cores) with Java 8, C++11; the other sources name "
        "neither hardware nor toolchains.")
    assert shared_facts(None) == ""


def test_gzip_mode_gives_the_other_mode_where_the_run_has_it():
    table_1 = next(fig for fig in FIGURES if fig.key == "part_method_sizes")
    size = {"avg_object_bytes": 150, "gzip_bytes": 90_000}  # 90 B per object over 1000
    cells = [made_cell("java", "json_gzip", "sizes", "part", "", counters=size),
             made_cell("java", "json", "sizes", "part", "", counters={**size,
                                                                      "gzip_bytes": 60_000})]
    assert reason_ids(table_1, cells)["gzip_mode"] == (
        "the study gzipped each object alone (json_gzip), as the compared figure does; "
        "gzipping the whole file (the json file's gzip): 60 B (java) per object")
    # no json_gzip cells: nothing compared in the study's mode, no reason
    assert "gzip_mode" not in reason_ids(table_1, cells[1:])


def test_the_library_versions_of_the_figures_methods_come_from_the_drivers_info():
    run = made_run()
    run.drivers["java"]["info"]["methods"] = {
        "kryo": {"libraries": {"kryo": "5.6.2", "objenesis": "3.4"}},
        "json": {"libraries": {"jackson-databind": "2.17.2"}}}
    run.drivers["cpp"]["info"]["methods"] = {"bson": {"libraries": {"libbson": "1.23.1"}},
                                              "handcoded": {"libraries": {}}}
    cells = [made_cell("java", "kryo"), made_cell("cpp", "bson"), made_cell("cpp", "handcoded")]
    assert reason_ids(TWEET_READ, cells, run)["libraries"] == (
        "libraries now (the study names no versions): cpp bson: libbson 1.23.1; "
        "java kryo: kryo 5.6.2, objenesis 3.4")  # not json: no cell of it; handcoded: none
    assert "libraries" not in reason_ids(TWEET_READ, cells, made_run())  # none in info


def test_labelled_cells_are_counted_and_a_clean_run_has_no_reason():
    fig = next(fig for fig in FIGURES if fig.key == "read_seq_cpp_java")
    cells = [made_cell("java", "handcoded", model="part", steady=False),
             made_cell("cpp", "inplace", model="part", cold_note="cold unproven", trusting=True)]
    found = reason_ids(fig, cells)
    assert found["unsteady"] == "1 of the 2 cells it needs ran unsteady (left out of the verdict)"
    assert found["cold_unproven"] == "1 of the 2 cells it needs not shown to be cold"
    assert found["trusting"] == "1 of the 2 cells it needs read bytes without checking them"
    clean = [made_cell("java", "handcoded", model="part"), made_cell("cpp", "inplace",
                                                                     model="part")]
    assert reason_ids(fig, clean) == {}


def test_the_chapter_has_a_reason_column_and_says_what_every_row_shares_once(published_rows):
    rows = {r[0]: r for r in markdown_table(published_rows, "Published and measured")}
    assert rows["every task: fastest Java / fastest C++"][6] == (
        "1 of the 60 cells it needs ran unsteady (left out of the verdict)")
    assert rows["org: JSON / Protocol Buffers data size"][6] == "—"  # not measured: none
    chapter = published_rows[published_rows.index("## Published figures beside this run"):]
    caption = chapter[:chapter.index("**Published and measured**")]
    # the fixture's drivers: g++ 12.2.0 (its Java driver's info reports the same toolchain)
    assert "with rust rustc 1.95.0, cpp compiler g++ 12.2.0, java compiler g++ 12.2.0; the " \
           "SoCC'17 study on c3.4xlarge, SSD (16 cores) with Java 8, C++11" in caption
    assert not any(text in row[6] for row in rows.values()
                   for text in ("toolchain", "hardware", "g++", "c3.4xlarge"))


def test_the_page_gives_each_reason_in_a_few_words_and_its_detail_on_hover(rendered_chapter):
    page, _ = rendered_chapter  # the Markdown keeps the detail (the test above)
    chapter = page[page.index('id="published"'):]
    assert ('<td title="1 of the 60 cells it needs ran unsteady (left out of the verdict)">'
            "unsteady cells left out</td>") in chapter


def test_a_lazy_study_read_shows_access_beside_materialize_each_labelled():
    cells = [made_cell("java", "protobuf", ms=3.0), made_cell("java", "protobuf", depth="access"),
             made_cell("java", "json", ms=9.0), made_cell("java", "kryo", ms=2.0),
             made_cell("cpp", "flatbuffers", ms=4.0)]  # no access cell: not shown lazily
    outcome = COMPARISONS["tweet_read_seq_order"](TWEET_READ, measured_from(cells))
    assert outcome.measured == (
        "equal depth (materialize), judged: Java Kryo 2.00 ms, Java Protocol Buffers 3.00 ms, "
        "C++ FlatBuffers 4.00 ms, Java JSON 9.00 ms. Read lazily, as the study did: Java "
        "Protocol Buffers access 1.00 ms (materialize 3.00 ms)")
    # the verdict stays on equal depth: the access cell never swaps in
    equal_only = COMPARISONS["tweet_read_seq_order"](TWEET_READ, measured_from(
        [c for c in cells if c.depth == "materialize"]))
    assert equal_only.verdict == outcome.verdict
    assert equal_only.measured == ("Java Kryo 2.00 ms, Java Protocol Buffers 3.00 ms, "
                                   "C++ FlatBuffers 4.00 ms, Java JSON 9.00 ms")


def test_a_need_with_a_setting_counts_only_its_cells():
    dense = next(fig for fig in FIGURES if fig.key == "aggregate_bytebuffer_dense")  # 0.1
    cells = [made_cell("java", "handcoded", "net_aggregate", "sparse", n=1,
                       counters={"density": 0.098}, steady=False),  # made at about 0.1
             made_cell("cpp", "handcoded", "net_aggregate", "sparse", n=1,
                       counters={"density": 0.01}, steady=False)]
    assert reason_ids(dense, cells)["unsteady"].startswith("1 of the 1 cells it needs ")


# --- the reason column names the libraries of the methods each figure compares, no others ---

def timed(language, method, ms, task="read_seq", model="part", n=1000, **fields):
    return replace(made_cell(language, method, task, model, n=n, ms=ms), **fields)


def sized(language, method, avg, model="part", **counters):
    return made_cell(language, method, "sizes", model, "", counters={"avg_object_bytes": avg,
                                                                      **counters})


def micro(method, encode_ns, k=None, model="trade", n=100, language="java", **counters):
    setting = "buffer=fresh" + (f" k={k}" if k else "")
    return replace(made_cell(language, method, "micro", model, n=n),
                   setting=setting, extra={"encode_ns": encode_ns * n, "decode_ns": 10 * n},
                   counters=counters)


def aggregated(language, method, ms, density):
    return timed(language, method, ms, "net_aggregate", "sparse", n=1,
                 counters={"density": density})


SORTS = [timed("java", "kryo", 4, "sort_dedup"), timed("java", "json", 9, "sort_dedup"),
         timed("cpp", "inplace", 2, "sort_dedup"), timed("cpp", "bson", 8, "sort_dedup")]
# per figure: cells that include methods it needs but does not compare, and the
# (language, method) pairs its outcome compares
COMPARED = {
    "part_size": ([sized("rust", "bincode", 100), sized("java", "java_builtin", 410),
                   sized("cpp", "inplace", 174), sized("java", "kryo", 114)],
                  {"rust bincode", "java java_builtin"}),
    "trade_plain_binary": ([sized("cpp", "handcoded", 185, "trade"),
                            sized("java", "handcoded", 190, "trade"),
                            sized("java", "kryo", 150, "trade")],
                           {"cpp handcoded", "java handcoded"}),
    "org_size": ([sized("java", "json", 6000, "org"), sized("java", "protobuf", 2500, "org"),
                  sized("java", "kryo", 2000, "org")], {"java json", "java protobuf"}),
    "org_read": ([timed("java", "json", 20, model="org"), timed("java", "protobuf", 4, model="org"),
                  timed("java", "kryo", 3, model="org")], {"java json", "java protobuf"}),
    "org_memory": ([timed("java", m, 1, "memory", "org",
                          counters={"retained_bytes_per_object": b})
                    for m, b in (("json", 5000), ("protobuf", 6000), ("kryo", 100))],
                   {"java json", "java protobuf"}),
    "arrays_size": ([sized("java", m, b, "arrays")
                     for m, b in (("xml", 60), ("protobuf", 15), ("handcoded", 10), ("kryo", 12))],
                    {"java xml", "java protobuf", "java handcoded"}),
    "read_seq_spread": ([timed("cpp", "inplace", 1), timed("java", "json_gzip", 50),
                         timed("java", "kryo", 3), timed("rust", "bincode", 2)],
                        {"cpp inplace", "java json_gzip"}),
    "read_seq_inplace": ([timed("cpp", "handcoded", 3), timed("cpp", "inplace", 2),
                          timed("cpp", "bson", 9)], {"cpp handcoded", "cpp inplace"}),
    "read_rand_spread": ([timed("cpp", "inplace", 1), timed("java", "json_gzip", 50),
                          timed("java", "kryo", 3), timed("cpp", "inplace", 5, "read_rand"),
                          timed("java", "kryo", 8, "read_rand"),
                          timed("java", "json", 7, "read_rand")],
                         {"cpp inplace", "java json_gzip", "java kryo"}),
    "read_rand_java_small": ([timed(lang, method, ms, "read_rand", n=n)
                              for n in (10, 1000) for lang, method, ms in (
                                  ("java", "kryo", 3), ("java", "json", 9),
                                  ("cpp", "inplace", 1), ("cpp", "bson", 7))],
                             {"java kryo", "cpp inplace"}),
    "read_par_java_cpp": ([timed(lang, method, ms, "read_par", threads=4, setting="mode=seq")
                           for lang, method, ms in (("java", "kryo", 3), ("java", "json", 9),
                                                    ("cpp", "inplace", 1), ("cpp", "bson", 7))],
                          {"java kryo", "cpp inplace"}),
    "sort_java_cpp": (SORTS, {"java kryo", "cpp inplace"}),
    "sort_spread": (SORTS, {"cpp inplace", "java json"}),
    "aggregate_cpp_java_sparse": ([aggregated("java", "handcoded", 2, 0.01),
                                   aggregated("java", "json", 9, 0.01),
                                   aggregated("cpp", "inplace", 1, 0.01),
                                   aggregated("cpp", "json_gzip", 7, 0.01),
                                   aggregated("cpp", "bson", 5, 0.01)],
                                  {"java handcoded", "cpp json_gzip"}),
    "net_aggregate_spread": ([aggregated("java", "json_gzip", 9, 0.01),
                              aggregated("cpp", "json_gzip", 7, 0.01),
                              aggregated("cpp", "inplace", 1, 0.01),
                              aggregated("java", "kryo", 3, 0.01)],
                             {"java json_gzip", "cpp inplace"}),
    "managed_unmanaged": ([timed("java", "handcoded", 2), timed("java", "json", 5),
                           timed("cpp", "inplace", 1), timed("cpp", "boost_text", 3),
                           timed("java", "kryo", 4, "write"), timed("java", "json", 6, "write"),
                           timed("cpp", "protobuf", 2, "write"), timed("cpp", "bson", 8, "write"),
                           timed("rust", "bincode", 1, "write")],
                          {"java handcoded", "cpp inplace", "java kryo", "cpp protobuf"}),
    "part_method_sizes": ([sized("java", "java_builtin", 410), sized("java", "kryo", 114),
                           sized("cpp", "inplace", 174), sized("rust", "bincode", 100)],
                          {"java java_builtin", "java kryo", "cpp inplace"}),
    "tweet_read_seq_order": ([timed("java", "kryo", 2, model="tweet"),
                              timed("java", "json", 9, model="tweet"),
                              timed("cpp", "flatbuffers", 4, model="tweet"),
                              timed("rust", "rkyv", 1, model="tweet")],
                             {"java kryo", "java json", "cpp flatbuffers"}),
    "trade_buffers": ([micro("handcoded_unsafe", 80), micro("handcoded_be", 400),
                       micro("kryo", 300)], {"java handcoded_unsafe", "java handcoded_be"}),
    "arrays_builtin_overhead": ([micro(m, 50, k, "arrays", encoded_bytes=b * k)
                                 for k in (10, 100) for m, b in (("java_builtin", 2000),
                                                                 ("handcoded", 1900),
                                                                 ("kryo", 1950))],
                                {"java java_builtin", "java handcoded"}),
}


def every_library_run():
    """Each driver names a library of its own for every method: `lib-<method> <language>-1`."""
    run = made_run()
    run.drivers["rust"] = {"info": {}}
    methods = {m for cells, _ in COMPARED.values() for c in cells for m in [c.method]}
    for language, driver in run.drivers.items():
        driver["info"]["methods"] = {m: {"libraries": {f"lib-{m}": f"{language}-1"}}
                                     for m in methods}
    return run


@pytest.mark.parametrize("key", COMPARED)
def test_the_reason_names_the_libraries_of_the_methods_a_figure_compares(key):
    fig = next(fig for fig in FIGURES if fig.key == key)
    cells, compared = COMPARED[key]
    text = reason_ids(fig, cells, every_library_run())["libraries"]
    assert text.startswith("libraries now (the study names no versions): ")
    named = {item.split(":")[0] for item in text.split(": ", 1)[1].split("; ")}
    assert named == compared
    for item in text.split(": ", 1)[1].split("; "):
        language, method = item.split(":")[0].split()
        assert item == f"{language} {method}: lib-{method} {language}-1"


def test_a_figure_is_judged_only_inside_the_regime_it_was_published_for():
    """The in-place fetch finding (requests of 10^4 objects per server): at 50 objects per
    server fixed costs dominate, so no verdict, the size needed instead; at 2,000 a verdict."""
    from serbench.report.reproduction import in_regime
    fig = next(f for f in FIGURES if f.key == "net_fetch_ram_inplace")
    judged = Outcome("C++ in-place 1.2x faster", verdict="same direction, 5.00x smaller than "
                                                         "published")

    def at(n: int):
        tm = SimpleNamespace(task="net_fetch", model="part", n=n)
        return in_regime(fig, Measured({}, {"net_fetch": [tm]}), judged)

    small = at(50)
    assert small.measured == judged.measured and small.verdict.startswith(
        "not measurable at this size: n = 50 here, at least 1,000 needed")
    assert "10^4 objects per server" in small.verdict
    assert at(2_000) == judged
    assert in_regime(fig, Measured({}, {}), None) is None


def test_every_figure_with_a_regime_states_its_published_size():
    bounded = [f for f in FIGURES if f.least_objects is not None]
    assert {f.key for f in bounded} >= {"net_fetch_ram_inplace", "net_fetch_disk", "org_write"}
    assert all(f.scale for f in bounded)


def test_the_builtin_overhead_is_signed_and_a_varying_one_differs():
    from serbench.report.reproduction import builtin_overhead
    fig = next(f for f in FIGURES if f.key == "arrays_builtin_overhead")
    # per object: java_builtin 1 B less than the hand-coded layout per element (u16 string
    # lengths and a tag against 4-byte lengths), beside a constant 150 B header
    cells = [micro(method, 50, k, "arrays", n=10, encoded_bytes=10 * (18 * k + extra))
             for k in (100, 1000) for method, extra in (("handcoded", 8), ("java_builtin",
                                                                          158 - k))]
    outcome = builtin_overhead(fig, measured_from(cells))
    assert outcome.measured == "+50 B at k = 100, -850 B at k = 1,000"
    assert outcome.verdict == "differs (varies by 900 B across k)"
    constant = [micro(method, 50, k, "arrays", n=10, encoded_bytes=10 * (18 * k + extra))
                for k in (100, 1000) for method, extra in (("handcoded", 8),
                                                           ("java_builtin", 158))]
    assert builtin_overhead(fig, measured_from(constant)).verdict == "same direction (constant)"


def test_the_aggregation_spread_compares_methods_within_one_density():
    from serbench.report.reproduction import method_over_fastest
    fig = next(f for f in FIGURES if f.key == "net_aggregate_spread")

    def at(language, method, ms, density):
        return replace(aggregated(language, method, ms, density),
                       setting=f"tree_depth=3 density={density}")
    # across densities Java JSON+gzip at 1 % over Rust bincode at 0.1 % would be 180x
    cells = [at("java", "json_gzip", 1540, 0.01), at("rust", "bincode", 128, 0.01),
             at("java", "json_gzip", 115, 0.001), at("rust", "bincode", 8.5, 0.001)]
    outcome = method_over_fastest("json_gzip")(fig, measured_from(cells))
    assert outcome.measured == "up to 13.5x (sparse · density 0.001, n = 1)"
    assert outcome.note == "java · json_gzip 115 ms vs rust · bincode 8.50 ms"


def test_the_chapter_draws_each_judged_ratio_against_the_published_one():
    """The picture reads its dots from the verdicts the table shows: every ratio a verdict
    names, published across and measured up, same direction and reversed apart."""
    assert points("same direction, 3.33x smaller than published (measured 30.0x / published "
                  "100x)") == [(30.0, 100.0, True)]
    assert points("model a: reversed (measured 0.50x / published 2.00x); model b: same "
                  "direction, about as large as published (measured 1,250x / published "
                  "1,100x)") == [(0.5, 2.0, False), (1250.0, 1100.0, True)]
    assert points("same direction (measured 1.50x)") == []  # nothing published to set it by
    figure = published_figure([("a", "same direction, 3.33x smaller than published (measured "
                                     "30.0x / published 100x)"),
                               ("b", "reversed (measured 0.50x / published 2.00x)")])
    dots = {t["name"]: t for t in figure["data"] if t["mode"] == "markers"}
    assert (dots["same direction"]["x"], dots["same direction"]["y"]) == ([100.0], [30.0])
    assert (dots["reversed"]["x"], dots["reversed"]["y"], dots["reversed"]["text"]) == (
        [2.0], [0.5], ["b"])
    assert figure["layout"]["xaxis"]["type"] == figure["layout"]["yaxis"]["type"] == "log"
    assert published_figure([("c", "same direction (measured 1.50x)")]) is None
    # every verdict that names a published ratio is read back whole
    for measured, published in ((3.0, 4.0), (0.5, 2.0), (1234.0, 10.0), (1.01, 1.02)):
        assert len(points(verdict(measured, published))) == 1
