"""Your objects: `serbench model infer` proposes a definition from JSON Lines nobody here
shaped, `serbench data import` checks every line against it and writes a canonical dataset
whose manifest the Python reference agrees with; bad input is refused naming the line, the
field and what was expected, and leaves no dataset behind."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from serbench.datasets.imported import ImportRefused, import_jsonl
from serbench.datasets.manifest import data_path, load_manifest, manifest_path
from serbench.models import STRUCTS, load
from serbench.models.checksum import hex64, object_hash, set_checksum
from serbench.models.infer import InferError, infer

# sensor readings: a shape none of the built-in models has (a map-like nested struct, a
# list of floats, a key with a dash, a field that is sometimes absent, an int past 32 bits)
READINGS = [
    {"reading-id": 1, "station": {"name": "Oslo", "elevation": 23}, "values": [1.5, 2],
     "ok": True, "ts": 1_700_000_000_000},
    {"reading-id": 2, "station": {"name": "Bergen", "elevation": 12, "note": "coast"},
     "values": [], "ok": False, "ts": 1_700_000_000_500, "flags": ["late"]},
    {"reading-id": 3, "station": {"name": "Tromsø", "elevation": 10}, "values": [0.25],
     "ok": True, "ts": 1_700_000_001_000, "flags": None},
]


def jsonl(path: Path, objects: list) -> Path:
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects))
    return path


def proposed(tmp_path: Path, objects: list, name: str = "reading") -> str:
    return infer(jsonl(tmp_path / "in.jsonl", objects), name, taken=set(STRUCTS))


def test_infer_widens_nests_and_marks_what_is_sometimes_missing(tmp_path):
    text = proposed(tmp_path, READINGS)
    assert 'key = ["reading-id"]' not in text  # not a plain name: no key proposed for it
    definition = next(iter(load([_written(tmp_path, text)], {}).values()))
    fields = {k: t for k, t in definition.structs["Reading"].fields}
    assert str(fields["reading-id"]) == "Prim(kind='i32')"
    assert str(fields["values"]) == "ListOf(inner=Prim(kind='f64'))"  # 2 widened with 1.5
    assert str(fields["ts"]) == "Prim(kind='i64')"
    assert str(fields["flags"]) == "Opt(inner=ListOf(inner=Prim(kind='str')))"
    station = dict(definition.structs["ReadingStation"].fields)
    assert str(station["note"]) == "Opt(inner=Prim(kind='str'))"
    assert str(station["elevation"]) == "Prim(kind='i32')"


def _written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "def.toml"
    path.write_text(text)
    return path


def test_infer_suggests_a_distinct_required_key_and_avoids_taken_struct_names(tmp_path):
    objects = [{"sku": f"s{i}", "id": i, "qty": 1, "part": {"x": i}} for i in range(5)]
    text = proposed(tmp_path, objects, name="part")
    assert 'key = ["id"]' in text
    assert re.search(r"^Part2 = ", text, re.M) and not re.search(r"^Part = ", text, re.M), \
        "Part is the built-in model's struct"
    duplicated = proposed(tmp_path, objects + [{"sku": "s0", "id": 0, "qty": 2,
                                                "part": {"x": 0}}], name="stock")
    assert "# key = [...]  # no required integer or string field had distinct values" in \
        duplicated


@pytest.mark.parametrize("lines, problem", [
    (['{"a": 1}', '{"a": "x"}'], "a: no one type holds its values: an integer on line 1, a "
                                 "string on line 2"),
    (['{"a": {"b": 1}}', '{"a": [1]}'], "a: no one type holds its values: an object on line "
                                        "1, a list on line 2"),
    (['[1, 2]'], "line 1: a list, not an object"),
    (['{"a": [1, null]}'], "line 1: a[1]: a null inside a list"),
    (['{"a": 1, "a": 2}'], "line 1: not JSON: key 'a' twice in one object"),
    (['{"a": NaN}'], "line 1: not JSON: NaN is not a JSON number"),
    (['{"a": 1e999}'], "line 1: a: a number too large for f64"),
    (['{"a": 99999999999999999999}'], "line 1: a: 99999999999999999999 does not fit 64 bits"),
    (['{"a": ' + "[" * 70 + "]" * 70 + "}"], "line 1: nested deeper than 64 levels"),
    ([], "no objects to infer a model from"),
])
def test_infer_refuses_what_no_definition_holds(tmp_path, lines, problem):
    path = tmp_path / "in.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    with pytest.raises(InferError) as caught:
        infer(path, "m")
    assert str(caught.value).startswith(f"{path}: ") and problem in str(caught.value)


def test_infer_refuses_bytes_that_are_not_utf8(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": "\xff"}\n')
    with pytest.raises(InferError, match=r"line 2: not UTF-8 \(byte 7 of the line\)"):
        infer(path, "m")


@pytest.fixture
def reading_model(tmp_path, monkeypatch):
    """The inferred definition, registered as the harness registers a user's model."""
    from serbench import models
    definition = next(iter(load([_written(tmp_path, proposed(tmp_path, READINGS))],
                                {m: models.DEFINITIONS[m] for m in models.BUILTIN}).values()))
    monkeypatch.setitem(models.DEFINITIONS, "reading", definition)
    monkeypatch.setitem(models.MODEL_ROOTS, "reading", (definition.root, definition.key))
    for name, struct in definition.structs.items():
        monkeypatch.setitem(models.STRUCTS, name, struct)
    from serbench.models import checksum
    checksum.struct_folder.cache_clear()
    yield definition
    checksum.struct_folder.cache_clear()


def test_import_writes_the_canonical_dataset_the_reference_checksums(tmp_path, reading_model):
    source = jsonl(tmp_path / "readings.jsonl", READINGS)
    directory = tmp_path / "data" / "readings"
    manifest = import_jsonl(source, "reading", directory)
    lines = data_path(directory, "reading").read_text().splitlines()
    assert json.loads(lines[0]) == {"reading-id": 1, "station": {"name": "Oslo",
                                                                 "elevation": 23},
                                    "values": [1.5, 2.0], "ok": True, "ts": 1_700_000_000_000}
    assert '"flags"' not in lines[2]  # a null optional is left out
    assert list(json.loads(lines[1])) == ["reading-id", "station", "values", "ok", "ts",
                                          "flags"]
    count, total = set_checksum(object_hash("reading", json.loads(line)) for line in lines)
    assert manifest.set_checksum == {"count": count, "sum": hex64(total)} and count == 3
    assert load_manifest(directory, "reading").generator == "serbench data import"


@pytest.mark.parametrize("line, problem", [
    ('{"reading-id": 4, "station": {"name": "x", "elevation": "high"}, "values": [], '
     '"ok": true, "ts": 1}', "line 2: station.elevation: expected i32, got string"),
    ('{"reading-id": 4, "station": {"name": "x", "elevation": 1}, "values": [], "ok": true}',
     "line 2: ts: missing required field"),
    ('{"reading-id": 9999999999, "station": {"name": "x", "elevation": 1}, "values": [], '
     '"ok": true, "ts": 1}', "line 2: reading-id: 9999999999 out of range for i32"),
    ('{"reading-id": 4, "station": {"name": "x", "elevation": 1}, "values": [1e999], '
     '"ok": true, "ts": 1}', "line 2: values[0]: f64 must be finite"),
    ('{"reading-id": 4, "station": {"name": "x", "elevation": 1}, "values": [], "ok": true, '
     '"ts": 1, "extra": 1}', "line 2: extra: unknown field of Reading"),
    ('{"reading-id": 4, "reading-id": 5}', "line 2: not JSON: key 'reading-id' twice"),
    ('{"values": [NaN]}', "line 2: not JSON: NaN is not a JSON number"),
])
def test_a_line_that_does_not_fit_is_named_and_nothing_is_left(tmp_path, reading_model, line,
                                                               problem):
    source = tmp_path / "bad.jsonl"
    source.write_text(json.dumps(READINGS[0]) + "\n" + line + "\n")
    directory = tmp_path / "data" / "bad"
    with pytest.raises(ImportRefused) as caught:
        import_jsonl(source, "reading", directory)
    assert str(caught.value) == f"{source}: {problem}" or problem in str(caught.value)
    assert not directory.exists()


def test_a_failed_import_removes_the_older_dataset_too(tmp_path, reading_model):
    directory = tmp_path / "data" / "readings"
    import_jsonl(jsonl(tmp_path / "good.jsonl", READINGS), "reading", directory)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(json.dumps(READINGS[0]).encode() + b"\n\xff\n")
    with pytest.raises(ImportRefused, match=r"line 2: not UTF-8 \(byte 0 of the line\)"):
        import_jsonl(bad, "reading", directory)
    assert not manifest_path(directory, "reading").exists()
    assert not data_path(directory, "reading").exists()


def test_the_commands_take_a_users_model_from_their_models_folder(tmp_path):
    """As a user runs them: infer writes the definition into the models folder, the next
    process reads it, import makes the dataset; a broken definition is said, not a crash."""
    env = {**os.environ, "SERBENCH_HOME": str(tmp_path / "home")}
    env.pop("SERBENCH_MODELS", None)
    source = jsonl(tmp_path / "readings.jsonl", READINGS)

    def serbench(*args):
        return subprocess.run([sys.executable, "-c", "from serbench.cli import main; main()",
                               *args], capture_output=True, text=True, env=env)

    made = serbench("model", "infer", str(source), "--name", "reading")
    assert made.returncode == 0, made.stderr
    definition = tmp_path / "home" / "models" / "reading.toml"
    assert made.stdout.strip() == str(definition)
    listed = serbench("model", "list", "--format", "json")
    assert [m["model"] for m in json.loads(listed.stdout)][-1] == "reading"
    imported = serbench("data", "import", str(source), "--model", "reading")
    assert imported.returncode == 0, imported.stderr
    assert (tmp_path / "home" / "data" / "reading" / "reading.manifest.json").exists()
    again = serbench("model", "infer", str(source), "--name", "reading")
    assert again.returncode != 0 and "already a model" in again.stderr
    definition.write_text(definition.read_text().replace(" i64", " int64"))
    broken = serbench("data", "import", str(source), "--model", "reading", "--name", "r2")
    assert broken.returncode == 2 and "Traceback" not in broken.stderr
    assert "unknown type 'int64'" in broken.stderr and str(definition) in broken.stderr
