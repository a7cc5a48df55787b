"""The Avro schema the Java build writes from the definitions (the Java-only `avro` method):
one file, the union of every model's root record, declaring exactly the structs, fields,
types and order of the definitions: optional values are unions with null (default null), the
recursive tweet refers to its record by name, and every named type is declared once, where
it first appears."""
import json

import pytest

from serbench.models import DEFINITIONS, MODEL_ROOTS, MODELS, STRUCTS, Enum, ListOf, Opt, Prim, Ref
from serbench.models.schemas import avro_files

UNION = json.loads(avro_files(DEFINITIONS)["models.avsc"])
NAMESPACE = "serbench.avro"
PRIMS = {"i8": "int", "i16": "int", "i32": "int", "i64": "long", "f64": "double",
         "bool": "boolean", "str": "string"}


def load(model: str) -> dict:
    """The model's root record in the union."""
    root = MODEL_ROOTS[model][0]
    return next(record for record in UNION if record["name"] == root)


def declared() -> dict[str, dict]:
    """Every named type of every file, by name; a name declared twice fails."""
    names: dict[str, dict] = {}

    def walk(t):
        if isinstance(t, list):
            for u in t:
                walk(u)
        elif isinstance(t, dict):
            if t["type"] in ("record", "enum"):
                assert t["name"] not in names, f"{t['name']} is declared twice"
                names[t["name"]] = t
            for f in t.get("fields", ()):
                walk(f["type"])
            if t["type"] == "array":
                walk(t["items"])

    walk(UNION)
    return names


def expected(t, owner: str, fname: str):
    if isinstance(t, Prim):
        return PRIMS[t.kind]
    if isinstance(t, Opt):
        return ["null", expected(t.inner, owner, fname)]
    if isinstance(t, ListOf):
        return {"type": "array", "items": expected(t.inner, owner, fname)}
    if isinstance(t, Enum):
        return {"enum": owner + "".join(p.capitalize() for p in fname.split("_")),
                "symbols": list(t.symbols)}
    assert isinstance(t, Ref)
    return t.name


def shape(t):
    """A declared type with named types reduced to their names (compared by `expected`)."""
    if isinstance(t, list):
        return [shape(u) for u in t]
    if isinstance(t, dict):
        if t["type"] == "array":
            return {"type": "array", "items": shape(t["items"])}
        if t["type"] == "enum":
            return {"enum": t["name"], "symbols": t["symbols"]}
        return t["name"]
    return t


@pytest.mark.parametrize("model", MODELS)
def test_root_record_is_the_models_root(model):
    schema = load(model)
    assert (schema["type"], schema["name"], schema["namespace"]) == (
        "record", MODEL_ROOTS[model][0], NAMESPACE)


@pytest.mark.parametrize("struct", STRUCTS)
def test_record_declares_exactly_the_struct(struct):
    record = declared()[struct]
    fields = [(f["name"], shape(f["type"]), f.get("default", "none")) for f in record["fields"]]
    want = [(name, expected(t, struct, name), None if isinstance(t, Opt) else "none")
            for name, t in STRUCTS[struct].fields]
    assert fields == want
