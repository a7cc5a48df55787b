"""compare: two runs matched cell by cell, median of measured samples, ratio B / A."""
from __future__ import annotations

import statistics

import pytest
from click.testing import CliRunner

from serbench.cli import cli
from serbench.compare import compare_runs, label
from serbench.results import Results, ResultsError
from test_runner import PLAN, StopAfter, home, run, use  # noqa: F401  (home is a fixture)

SMALL = PLAN.replace('["trade", "part"]', '["trade"]')


def medians(results: Results, run_id: str) -> dict[int, float]:
    by_cell: dict[int, list[int]] = {}
    for s in results.samples(run_id):
        if not s["warmup"]:
            by_cell.setdefault(s["cell_id"], []).append(s["total_ns"])
    return {cell: statistics.median(times) for cell, times in by_cell.items()}


def test_compare_matches_cells_and_ranks_by_ratio(home, monkeypatch):
    use(monkeypatch, home)
    a, *_ = run(home, SMALL, run_id="a")
    b, *_ = run(home, SMALL, run_id="b")
    with Results(home / "results.duckdb", read_only=True) as results:
        comparison = compare_runs(results, a, b)
        cells = results.cells(a)
        median_a, median_b = medians(results, a), medians(results, b)
    assert len(comparison.rows) == len(cells)  # the same plan: every cell matched
    assert comparison.only_a == comparison.only_b == 0 and comparison.not_ok == []
    ratios = [row.ratio for row in comparison.rows]
    assert ratios == sorted(ratios, reverse=True)
    ids = {(c["task"], c["method"], c["depth"], c["variant"], c["n"]): c["cell_id"] for c in cells}
    for row in comparison.rows:
        key = tuple(row.identity[k] for k in ("task", "method", "depth", "variant", "n"))
        assert row.median_a == median_a[ids[key]]
        assert row.ratio == pytest.approx(median_b[ids[key]] / median_a[ids[key]])
    assert comparison.geometric_mean > 0
    assert label(comparison.rows[0].identity).startswith("rust/")


def test_unmatched_and_not_ok_cells_are_counted_not_compared(home, monkeypatch):
    use(monkeypatch, home)
    a, *_ = run(home, SMALL, run_id="a")
    use(monkeypatch, home, mode="bad_checksum", on="op=run,task=read_seq,depth=access")
    b, *_ = run(home, SMALL.replace("n = [5, 100]", "n = [5, 6]"), run_id="b")
    with Results(home / "results.duckdb", read_only=True) as results:
        comparison = compare_runs(results, a, b)
    assert comparison.only_a > 0 and comparison.only_b > 0  # n = 8 vs n = 6
    assert comparison.not_ok
    assert all((sa, sb) == ("ok", "invalid") for _, sa, sb in comparison.not_ok)
    assert all(row.identity["depth"] != "access" or row.identity["task"] != "read_seq"
               for row in comparison.rows)


def test_incomplete_runs_are_refused_unless_allowed(home, monkeypatch):
    use(monkeypatch, home)
    a, *_ = run(home, SMALL, run_id="a")
    with pytest.raises(KeyboardInterrupt):
        run(home, SMALL, run_id="cut", listener=StopAfter(4, KeyboardInterrupt()))
    with Results(home / "results.duckdb", read_only=True) as results:
        with pytest.raises(ResultsError, match="cut is interrupted"):
            compare_runs(results, a, "cut")
        partial = compare_runs(results, a, "cut", allow_incomplete=True)
    assert len(partial.rows) == 4 and partial.only_a > 0  # the cells done before Ctrl-C


def test_compare_cli(home, monkeypatch):
    use(monkeypatch, home)
    run(home, SMALL, run_id="a")
    run(home, SMALL, run_id="b")
    result = CliRunner().invoke(cli, ["compare", "a", "b", "--limit", "3"])
    assert result.exit_code == 0, result.output
    assert "B / A" in result.output and "cells compared" in result.output


def test_cells_measured_under_another_protocol_are_flagged_and_left_out_of_the_mean(
        home, monkeypatch):
    use(monkeypatch, home)
    run(home, SMALL, run_id="a")
    run(home, SMALL.replace("repetitions = 2", "repetitions = 4"), run_id="b")
    with Results(home / "results.duckdb", read_only=True) as results:
        same = compare_runs(results, "a", "a")
        changed = compare_runs(results, "a", "b")
    assert same.rows and not any(row.protocol for row in same.rows)
    assert changed.rows and all(row.protocol == ["repetitions 2 -> 4"] for row in changed.rows)
    assert changed.geometric_mean is None  # nothing was measured the same way
    result = CliRunner().invoke(cli, ["compare", "a", "b"])
    assert result.exit_code == 0, result.output
    assert (f"(over the 0 measured the same way; {len(changed.rows)} measured differently)"
            in " ".join(result.output.split()))


@pytest.mark.parametrize("b, verdict", [
    ([200, 202, 199, 205, 201], "slower"),         # twice the time, no overlap
    ([50, 51, 49, 52, 50], "faster"),
    ([101, 99, 103, 100, 102], "no difference"),   # the same distribution
    ([80, 130, 95, 120, 100], "no difference"),    # wide spread around the same median
])
def test_each_ratio_has_a_bootstrap_interval_and_a_verdict(b, verdict):
    from serbench.compare import Row, ratio_interval
    a = [100, 102, 98, 101, 99]
    row = Row({}, a, b)
    low, high = row.interval
    assert low <= row.ratio <= high
    assert row.verdict == verdict
    assert ratio_interval(a, b) == ratio_interval(a, b), "seeded: the same interval each time"


def test_runs_from_different_hosts_are_flagged(home, monkeypatch):
    use(monkeypatch, home)
    run(home, SMALL, run_id="a")
    run(home, SMALL, run_id="b")
    with Results(home / "results.duckdb") as results:
        results.con.execute("UPDATE runs SET host = json_object('hostname', 'other') "
                            "WHERE run_id = 'b'")
        assert compare_runs(results, "a", "b").hosts[1] == "other"
        assert compare_runs(results, "a", "a").hosts is None
    result = CliRunner().invoke(cli, ["compare", "a", "b"])
    assert result.exit_code == 0, result.output
    assert "the runs are from different hosts" in " ".join(result.output.split())


def test_the_geometric_mean_per_task_leaves_out_pairs_measured_differently():
    from serbench.compare import Comparison, Row

    def row(task, a, b, protocol=()):
        return Row({"task": task}, [a] * 3, [b] * 3, list(protocol))

    comparison = Comparison("a", "b", rows=[
        row("read_seq", 10, 20), row("read_seq", 10, 80), row("write", 100, 50),
        row("write", 10, 1000, ["repetitions 2 -> 4"])])
    means = comparison.task_means()
    assert means == {"read_seq": pytest.approx(4.0), "write": pytest.approx(0.5)}
    assert comparison.geometric_mean == pytest.approx((2 * 8 * 0.5) ** (1 / 3))


def test_a_report_compares_its_run_with_a_baseline(home, monkeypatch, tmp_path):
    from serbench.report import ReportError, render_run
    from serbench.report.units import multiple

    use(monkeypatch, home)
    run(home, SMALL, run_id="a")
    run(home, SMALL, run_id="b")
    db = home / "results.duckdb"
    with Results(db, read_only=True) as results:
        comparison = compare_runs(results, "a", "b")
    _, md = render_run(db, "b", tmp_path / "out", baseline="a")
    text = md.read_text("utf-8")
    assert "## Against baseline run a" in text
    assert f"of {len(comparison.rows):,} cells compared" in text
    for task, mean in comparison.task_means().items():
        assert f"| {task} | {multiple(mean)} |" in text
    with pytest.raises(ReportError, match="baseline: no run 'nope'"):
        render_run(db, "b", tmp_path / "out", baseline="nope")
