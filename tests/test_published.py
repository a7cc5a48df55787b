"""Every published figure has a comparison, a row in the report and, on the fixture run of
test_report, a measured outcome or the reason it has none; verdicts and Spearman's rank
correlation on cases worked out by hand."""
import pytest

from serbench.published import FIGURES, STUDY_METHODS, PublishedFigure
from serbench.report import render_run
from serbench.report.reference import (COMPARISONS, Measured, Pick, missing_reason, spearman,
                                       time_pair, verdict)
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
def published_rows(tmp_path_factory):
    root = tmp_path_factory.mktemp("published")
    make_results_db(root / "results.duckdb")
    _, md = render_run(root / "results.duckdb", RUN, root / "out")
    return md.read_text("utf-8")


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
    assert "- **every task: fastest Java / fastest C++**: same direction, factor 0.83 " \
           "(measured 1.67x / published 2.00x)" in summary


def test_verdicts_by_hand():
    assert verdict(3.0, 4.0) == "same direction, factor 0.75 (measured 3.00x / published 4.00x)"
    assert verdict(0.5, 2.0).startswith("reversed, factor 0.25")
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
    return PublishedFigure("k", "s", "f", "the reference study", model=model, task="read_seq",
                           values={"ratio": ratio})


def test_time_pair_same_direction_reversed_and_missing(read_seq):
    tasks = {"read_seq": [read_seq["trade"]]}
    # trade at n = 10,000, materialize: java handcoded 300 ns, cpp handcoded 180 ns per object
    java_over_cpp = time_pair(Pick("java", ("handcoded",)), Pick("cpp", ("handcoded",)))
    same = java_over_cpp(figure(2), Measured({}, tasks))
    assert same.measured == "1.67x (trade, n = 10,000)"
    assert same.verdict == "same direction, factor 0.83 (measured 1.67x / published 2.00x)"
    cpp_over_java = time_pair(Pick("cpp", ("handcoded",)), Pick("java", ("handcoded",)))
    assert cpp_over_java(figure(2), Measured({}, tasks)).verdict.startswith(
        "reversed, factor 0.30")
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
