"""Plans from elsewhere: every value a TOML file can hold that the harness cannot honour
(non-finite numbers, values past what a driver keeps, paths out of the data root) is refused
before a run begins, naming the key, the value and the bounds; `--resume` of a run whose
stored plan holds one is refused with the same words."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from fake_driver import write_dataset
from serbench.cli import cli
from serbench.datasets.manifest import DatasetError, data_path, manifest_path
from serbench.params import PARAMS, ParamError, check
from serbench.plan import PlanError, parse_plan
from serbench.results import Results
from serbench.run.runner import resume_plan
from test_runner import home, run, use  # noqa: F401 (home is a fixture)

GROUP = '[[group]]\ntasks = ["write"]\n'


def refusal(line: str, where: str = "group") -> str:
    text = (GROUP + line + "\n") if where == "group" else f"[params]\n{line}\n{GROUP}"
    with pytest.raises(PlanError) as caught:
        parse_plan(text, "p.toml", "p")
    return str(caught.value)


# the cases found by trying, each with the whole message it now gives
FOUND = [
    ("timeout_s = inf", "p.toml: group[1].timeout_s: must be a finite number in (0, 604800], "
                        "got inf"),
    ("min_sample_ms = nan", "p.toml: group[1].min_sample_ms: must be a finite number in "
                            "(0, 60000], got nan"),
    ("min_sample_ms = inf", "p.toml: group[1].min_sample_ms: must be a finite number in "
                            "(0, 60000], got inf"),
    ("timeout_s = nan", "p.toml: group[1].timeout_s: must be a finite number in (0, 604800], "
                        "got nan"),
    ("time_cap_s = nan", "p.toml: group[1].time_cap_s: must be a finite number in (0, 86400], "
                         "got nan"),
    ("repetitions = 9223372036854775807", "p.toml: group[1].repetitions: must be an integer "
                                          "in [1, 1000000], got 9223372036854775807"),
    ("ci_target = nan", "p.toml: group[1].ci_target: must be a finite number in (0, 1], "
                        "got nan"),
    ("densities = [nan]", "p.toml: group[1].densities: must be a finite number in (0, 1], "
                          "got nan"),
    ("warmups = 1e3", "p.toml: group[1].warmups: must be an integer in [0, 100000], got 1000.0"),
    ('dataset = "../../elsewhere"', "p.toml: group[1].dataset: must be a dataset's name under "
                                    "the data root or an absolute path to one: dataset name "
                                    "'../../elsewhere': letters"),
    ('dataset = "/"', "dataset name '': empty"),
    ('dataset = "/data/x\\ny"', r"dataset name 'x\ny': letters"),
    ('pin_cpus = "0\\n1"', r"""must be a CPU list like "0" or "0-1,4", got '0\n1'"""),
    ('network = "1gbit\\n"', r"must be loopback, none (unshaped namespaces) or a link rate "
                             r"such as 1gbit or 100mbit, got '1gbit\n'"),
    ('networks = ["none", "none"]', "must be a list of distinct values"),
]


@pytest.mark.parametrize("line, message", FOUND)
def test_values_found_by_trying_are_refused_with_key_value_and_bounds(line, message):
    assert message in refusal(line)


NUMERIC = [p for p in PARAMS if p.kind in ("int", "float", "[int]", "[float]")]


def outside(param) -> list:
    """Values just past each bound, and the non-finite ones."""
    values = [math.inf, -math.inf, math.nan]
    if param.low is not None:
        values.append(param.low if param.above else param.low - 1)
    if param.high is not None:
        values.append(param.high + 1)
    return values


@pytest.mark.parametrize("param", NUMERIC, ids=lambda p: p.name)
def test_every_number_past_its_bounds_is_refused(param):
    for value in outside(param):
        with pytest.raises(ParamError, match=r"must be (an integer|a (finite )?number) in "
                                             r"[\[(]"):
            check(param, value)
    # and the bounds themselves are taken
    for value in (param.low, param.high):
        if value is not None and not (value == param.low and param.above):
            taken = check(param, value)
            assert taken == ((value,) if param.kind.startswith("[") else value)


@pytest.mark.parametrize("param", NUMERIC, ids=lambda p: p.name)
def test_a_plan_names_the_key_the_value_and_the_bounds(param):
    where = "params" if param.run_wide else "group"
    message = refusal(f"{param.name} = inf", where)
    assert f"{'params' if where == 'params' else 'group[1]'}.{param.name}: must be " in message
    assert param.bounds() in message and "got inf" in message


def test_a_group_cannot_set_a_run_wide_key():
    assert "group[1].cluster: a run-wide key: set it in [params]" in refusal('cluster = ""')


@pytest.mark.parametrize("name", ["a\nb", "../x", "a b"])
def test_a_plan_name_is_an_id(name):
    with pytest.raises(PlanError, match="name: must be a short id"):
        parse_plan(f"name = {name!r}\n{GROUP}".replace("'", '"'), "p.toml", "p")


def test_resume_rechecks_the_stored_plan_with_the_same_words(tmp_path, monkeypatch):
    monkeypatch.setenv("SERBENCH_HOME", str(tmp_path))
    bad = GROUP + "timeout_s = inf\n"
    with Results(tmp_path / "results.duckdb") as results:
        results.begin_run("old", "p", bad, 42, {}, {})
        results.finish_run("old", "failed")
        with pytest.raises(PlanError) as caught:
            resume_plan(results, "old")
    assert str(caught.value) == ("run old's plan: group[1].timeout_s: must be a finite number "
                                 "in (0, 604800], got inf")


def test_an_empty_dataset_is_refused_by_run_and_verify(home, monkeypatch):  # noqa: F811
    use(monkeypatch, home)
    empty = home / "data" / "empty"
    golden = (Path(__file__).parent.parent / "vectors" / "part.jsonl").read_bytes()
    write_dataset(empty, "part", golden.splitlines()[:1], {})  # one object, then emptied
    manifest = json.loads(manifest_path(empty, "part").read_text())
    data_path(empty, "part").write_bytes(b"")
    manifest_path(empty, "part").write_text(json.dumps(
        {**manifest, "count": 0, "distinct_count": 0, "bytes": 0,
         "set_checksum": {"count": 0, "sum": "0" * 16}}))
    message = f"{data_path(empty, 'part')}: holds no part objects; nothing to verify or measure"
    plan = '[params]\ndataset = "empty"\n[[group]]\ntasks = ["write", "read_seq"]\n' \
           'models = ["part"]\n'
    with pytest.raises(DatasetError, match=re.escape(message)):
        run(home, plan)
    result = CliRunner().invoke(cli, ["verify", "--data", str(empty), "--no-network"])
    assert isinstance(result.exception, DatasetError) and message in str(result.exception)
