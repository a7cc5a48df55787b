"""`serbench data`: manifests, the publish protocol, parameters, determinism, replication.

The generators run for real (serbench-datagen, built on first use); every manifest checksum is
re-derived here with the Python reference checksum, so the native loop cannot drift from it.
"""
import json
from collections import Counter

import pytest
from click.testing import CliRunner

from serbench.models.checksum import hex64, object_hash, set_checksum
from serbench.cli import cli
from serbench.datasets import build
from serbench.datasets.manifest import (DatasetError, data_path, load_manifest, manifest_path,
                                        tmp_path)
from serbench.models import TWEET_KIND_SHARES, tweet_kind
from serbench.datasets.native import NativeError


def reference_checksum(path, model):
    with open(path, encoding="utf-8") as f:
        hashes = [object_hash(model, json.loads(line)) for line in f]
    count, total = set_checksum(hashes)
    return {"count": count, "sum": hex64(total)}, len(set(hashes))


@pytest.fixture(scope="module")
def native_sets(tmp_path_factory):
    """One small dataset of each native family, made once for the module."""
    root = tmp_path_factory.mktemp("data")
    made = {
        "tweet": build.make_native("tweet", {"n": 3000}, 7, root / "tweet"),
        "sparse": build.make_native("sparse", {"n": 5, "dimension": 10_000, "density": 0.01}, 7,
                                    root / "sparse"),
        "trade": build.make_native("trade", {"n": 50}, 7, root / "trade"),
        "org": build.make_native("org", {"n": 40}, 7, root / "org"),
        "arrays": build.make_native("arrays", {"k": 7, "n": 3}, 7, root / "arrays"),
    }
    return root, made


@pytest.mark.parametrize("family", ["tweet", "sparse", "trade", "org", "arrays"])
def test_manifest_matches_python_reference(native_sets, family):
    root, made = native_sets
    manifest = made[family]
    path = data_path(root / family, family)
    checksum, distinct = reference_checksum(path, family)
    assert manifest.set_checksum == checksum
    assert manifest.distinct_count == distinct
    assert manifest.bytes == path.stat().st_size
    assert load_manifest(root / family, family) == manifest


def test_exact_counts(native_sets):
    _, made = native_sets
    assert {f: m.count for f, m in made.items()} == {
        "tweet": 3000, "sparse": 5, "trade": 50, "org": 40, "arrays": 3}


def test_tweet_kinds_in_proportion(native_sets):
    root, made = native_sets
    with open(data_path(root / "tweet", "tweet"), encoding="utf-8") as f:
        kinds = Counter(tweet_kind(json.loads(line)) for line in f)
    assert dict(kinds) == made["tweet"].kinds
    for kind, share in TWEET_KIND_SHARES.items():
        # 3000 draws: 4 standard deviations of a binomial share is below 0.04
        assert abs(kinds[kind] / 3000 - share) < 0.04, kinds


def test_sparse_vectors_are_strictly_increasing_and_exact(native_sets):
    root, _ = native_sets
    with open(data_path(root / "sparse", "sparse"), encoding="utf-8") as f:
        for line in f:
            vec = json.loads(line)
            positions = [e["position"] for e in vec["entries"]]
            assert len(positions) == 100  # 10,000 x 0.01
            assert positions == sorted(set(positions))
            assert 0 <= positions[0] and positions[-1] < vec["dimension"]


def test_trade_reference_instance_is_first(native_sets):
    root, _ = native_sets
    first = json.loads(data_path(root / "trade", "trade").read_text().splitlines()[0])
    assert first["prices"] == [i / 10 for i in range(1, 11)]
    assert first["quantities"] == list(range(1, 11))


def test_org_attribute_counts(native_sets):
    root, _ = native_sets
    with open(data_path(root / "org", "org"), encoding="utf-8") as f:
        counts = [len(json.loads(line)["attributes"]) for line in f]
    assert min(counts) >= 40 and max(counts) <= 70


def test_deterministic_for_a_seed(tmp_path, native_sets):
    root, made = native_sets
    again = build.make_native("tweet", {"n": 3000}, 7, tmp_path / "again")
    assert again.set_checksum == made["tweet"].set_checksum
    assert data_path(tmp_path / "again", "tweet").read_bytes() == \
        data_path(root / "tweet", "tweet").read_bytes()
    other = build.make_native("tweet", {"n": 3000}, 8, tmp_path / "other")
    assert other.set_checksum != made["tweet"].set_checksum


def test_replication_keeps_distinct_count_and_shuffles(tmp_path):
    base = build.make_native("org", {"n": 30}, 3, tmp_path / "base")
    rep = build.make_native("org", {"n": 30}, 3, tmp_path / "rep", replication=4)
    assert rep.count == 120 and rep.distinct_count == 30 == base.distinct_count
    assert rep.replication == 4
    lines = data_path(tmp_path / "rep", "org").read_text().splitlines()
    assert Counter(lines) == Counter({line: 4 for line in
                                      data_path(tmp_path / "base", "org").read_text().splitlines()})
    assert lines[:30] != data_path(tmp_path / "base", "org").read_text().splitlines()


def test_derive_replicated_from_published(tmp_path, native_sets):
    root, made = native_sets
    dup = build.derive_replicated(root / "trade", "trade", 3, 1, tmp_path / "dup")
    assert dup.count == 150 and dup.distinct_count == made["trade"].distinct_count


@pytest.mark.parametrize("family, params, words", [
    ("sparse", {"n": 1, "dimension": 100, "density": 0.0}, "density"),
    ("sparse", {"n": 1, "dimension": 100, "density": 1.5}, "density"),
    ("sparse", {"n": 1, "dimension": 0, "density": 0.5}, "dimension"),
    ("tweet", {"n": -1}, "n >= 1"),
    ("org", {"n": 0}, "n >= 1"),
    ("org", {"n": 2.5}, "integer"),
    ("arrays", {"k": 3}, "missing"),
    ("trade", {"n": "ten"}, "number"),
])
def test_bad_parameters_refused_before_work(tmp_path, family, params, words):
    with pytest.raises(build.ParameterError, match=words):
        build.make_native(family, params, 1, tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_bad_replication_refused(tmp_path):
    with pytest.raises(build.ParameterError, match="replication"):
        build.make_native("org", {"n": 3}, 1, tmp_path / "x", replication=0)


def test_failed_generation_leaves_nothing_complete(tmp_path, monkeypatch):
    good = build.make_native("org", {"n": 5}, 1, tmp_path / "d")
    assert good.count == 5

    def broken(*args):
        tmp_path.joinpath("d", "org.jsonl.tmp").write_text("half")
        raise NativeError("simulated crash of the generator")

    monkeypatch.setattr(build, "run_datagen", broken)
    with pytest.raises(NativeError):
        build.make_native("org", {"n": 5}, 1, tmp_path / "d")
    # the previous version is gone (it no longer describes what was asked) and no .tmp remains
    assert not manifest_path(tmp_path / "d", "org").exists()
    assert not tmp_path_exists(tmp_path / "d", "org")
    with pytest.raises(DatasetError, match="missing or incomplete"):
        load_manifest(tmp_path / "d", "org")


def tmp_path_exists(directory, model):
    return tmp_path(directory, model).exists()


def test_truncated_data_file_is_detected(tmp_path):
    build.make_native("org", {"n": 5}, 1, tmp_path / "d")
    path = data_path(tmp_path / "d", "org")
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(DatasetError, match="truncated"):
        load_manifest(tmp_path / "d", "org")


def test_unknown_model_in_manifest_lookup(tmp_path):
    with pytest.raises(DatasetError, match="unknown model 'widget'"):
        load_manifest(tmp_path, "widget")


def _bad_line_file(tmp_path, text):
    path = tmp_path / "bad.jsonl"
    good = json.dumps({"strings": ["a"], "ints": [1]})
    path.write_text(f"{good}\n{text}\n{good}\n")
    return path


@pytest.mark.parametrize("line, words", [
    ('{"strings": ["a"], "ints": [1]', "2"),            # malformed JSON on line 2
    ('{"strings": ["a"]}', "ints"),                      # missing required field
    ('{"strings": ["a"], "ints": ["x"]}', "ints"),       # wrong type
    ('{"strings": ["a"], "ints": [4294967296]}', "ints"),  # out of range for i32
])
def test_checksum_errors_name_file_line_and_field(tmp_path, line, words):
    from serbench.datasets.manifest import checksum_file

    path = _bad_line_file(tmp_path, line)
    with pytest.raises(NativeError) as err:
        checksum_file("arrays", path)
    message = str(err.value)
    assert "bad.jsonl" in message and ":2:" in message and words in message


def test_cli_check_and_errors(tmp_path, native_sets):
    root, _ = native_sets
    runner = CliRunner()
    ok = runner.invoke(cli, ["data", "check", str(root / "org"), "org"])
    assert ok.exit_code == 0, ok.output
    bad = runner.invoke(cli, ["data", "--root", str(tmp_path), "sparse", "--n", "1",
                              "--density", "2"])
    assert bad.exit_code != 0
    assert isinstance(bad.exception, build.ParameterError)


@pytest.mark.parametrize("command", [["tpch", "--sf", "0.01"], ["tweet", "--n", "3"],
                                     ["tweet", "--ingest", __file__], ["sparse", "--n", "1"]])
@pytest.mark.parametrize("name", ["../escape", "a/b", "/abs", ".hidden", "x..y", ""])
def test_a_dataset_name_with_path_components_is_refused_before_anything_is_written(
        tmp_path, command, name):
    root = tmp_path / "data" / "root"
    result = CliRunner().invoke(cli, ["data", "--root", str(root), *command, "--name", name])
    assert result.exit_code == 2 and f"dataset name {name!r}: " in result.output
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("args, words", [
    (["data", "tpch", "--sf", "-1"], "scale factor"),
    (["data", "tpch", "--sf", "0.01", "--models", "tweet"], "not 'tweet'"),
    (["data", "sparse", "--density", "0"], "density"),
    (["data", "check", ".", "widget"], "unknown model 'widget'"),
])
def test_command_line_errors_are_one_clear_line(tmp_path, args, words):
    """The installed command: exit 2 and one `error:` line, never a traceback."""
    import subprocess
    import sys

    env = {"SERBENCH_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", "from serbench.cli import main; main()",
                           *args], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error:") and words in proc.stderr


def test_ingest_error_names_file_status_and_field(tmp_path):
    import subprocess
    import sys

    bad = tmp_path / "bad.json"
    bad.write_text('{"id": 1}\n')
    proc = subprocess.run([sys.executable, "-c", "from serbench.cli import main; main()",
                           "data", "tweet", "--ingest", str(bad)], capture_output=True,
                          text=True, env={"SERBENCH_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2
    assert "bad.json: status 1 (line 1): created_at: missing required field" in proc.stderr
    assert not list(tmp_path.glob("data/*/*.manifest.json"))
