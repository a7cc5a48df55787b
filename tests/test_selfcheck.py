"""`serbench selfcheck` through the fake driver: two runs of a plan, this machine's noise per
task saved as its profile and recorded by later runs, and the agreement of the two reports."""
from __future__ import annotations

import json

from click.testing import CliRunner

from serbench.compare import noise
from serbench.cli import cli
from serbench.report import render_run
from serbench.results import Results
from test_compare import METHODS, NOISE, NOISY_PLAN
from test_runner import home, run, use  # noqa: F401 (home is a fixture)


def test_selfcheck_measures_the_noise_and_later_runs_rank_with_it(home, monkeypatch, tmp_path):
    use(monkeypatch, home, methods=METHODS, times=f"seed=5,{NOISE}")
    plan = tmp_path / "noisy.toml"
    plan.write_text(NOISY_PLAN)
    result = CliRunner().invoke(cli, ["selfcheck", str(plan), "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout[result.stdout.index("{"):])
    tasks = {row["task"]: row for row in document["tasks"]}
    assert set(tasks) == {"read_seq", "read_rand", "micro"}
    for row in tasks.values():
        # the fake's processes differ by 2 % and its repetitions by 3 %: a few % per run
        assert 0 <= row["noise"] < 0.1 and row["cells"] >= 8
        assert 0 < row["smallest_ranked_difference"] < 1
    # one trial of a few dozen cells: bounds a correct 5 % rate passes but for one time in
    # a thousand (the rates themselves are tested on many simulated runs, test_compare)
    agreed = document["agreement"]
    assert agreed["leaders_agree"] >= 0.8 * agreed["entries"] > 0
    assert agreed["pairs_reversed"] <= 0.1 * agreed["pairs_apart"]
    assert agreed["cells_flagged"] <= 0.15 * agreed["cells"]
    saved = noise.measured_here()
    assert {task: saved.sigma[task] for task in tasks} == {
        task: row["noise"] for task, row in tasks.items()}
    assert {key for key in saved.sigma if "/" in key} == {
        f"{task}/rust" for task, row in tasks.items() if row["noise_by_language"]}
    assert document["runs"][0] in saved.source
    later, *_ = run(home, NOISY_PLAN, run_id="later")
    with Results(home / "results.duckdb", read_only=True) as results:
        recorded = json.loads(results.run("later")["params"])["noise"]
    assert noise.from_json(recorded).sigma == saved.sigma
    _, markdown = render_run(home / "results.duckdb", "later", tmp_path / "report")
    header = markdown.read_text().split("## Provenance")[0]
    low = min(v for k, v in saved.sigma.items() if "/" not in k)
    assert f"**run-to-run noise**: {low:.1%}" in header
    assert document["runs"][1] in header, "the line names the self-check it comes from"
    assert f"Run-to-run noise of read_seq: {saved.sigma['read_seq']:.1%}" in markdown.read_text(), \
        "each ranking says the noise it was ranked with"
