"""The Rust driver's generated models (drivers/rust/codegen/generate_models.py): the types
and every method's field lists come from the definitions, a user's model like a built-in
one, each field named as rustc, flatc and prost name it. The generated crate itself is
compiled and tested by `cargo test` (the built-in models; a user's with SERBENCH_MODELS set)."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from serbench.models import BUILTIN, DEFINITIONS, load
from serbench.tasks.sizes import is_generated

REPO = Path(__file__).resolve().parents[1]
GENERATOR = REPO / "drivers" / "rust" / "codegen" / "generate_models.py"


@pytest.fixture(scope="module")
def codegen():
    spec = importlib.util.spec_from_file_location("rust_generate_models", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def builtin() -> dict:
    return {model: DEFINITIONS[model] for model in BUILTIN}


def with_user_model(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "event.toml"
    path.write_text(text)
    return {**builtin(), **load([path], builtin())}


EVENT = '''
model = "event"
key = ["event_id"]
[structs]
Event = """event_id f64, "ship to" Site?, type str, userName str, kind enum{NEW,in_flight},
  parent Event?, children [Event], grid [[i32]]?, tags [str]?"""
Site = "city str"
'''


def test_the_generator_writes_one_marked_file_every_build_includes(tmp_path):
    subprocess.run([sys.executable, str(GENERATOR), str(tmp_path), "--builtin"], check=True)
    (out,) = tmp_path.iterdir()
    assert out.name == "models.rs"
    assert is_generated(str(out), out.read_text())


def test_the_built_in_models_keep_their_rust_shape(codegen):
    code = codegen.generate(builtin())
    assert "pub struct Tweet key(id) recursive {" in code
    assert "pub quoted_status: Option<Box<Tweet>> = \"quoted_status\"," in code
    assert "pub r#type: String = \"type\"," in code
    assert 'pub enum OrgType [3] "org type" {\n        Foo = "FOO",' in code
    assert "pub struct LineItem key(orderkey, linenumber) {" in code
    # flatc escapes `type` and `size`, prost writes `type` raw
    assert "Part [ArchivedPart PartArgs Part] { partkey [partkey partkey]," in code
    assert "r#type [type_ r#type], size [size_ size]," in code
    assert 'Arrays [b"\\x12\\x00"] [arrays_capnp::arrays],' in code
    assert "Vec<$crate::types::Media> => MediaList," in code
    assert "Vec<Vec<f64>> => DoubleListList DoubleListListArgs," in code
    assert "ModelId::Lineitem => \"lineitem\"," in code


def test_a_users_model_is_generated_like_a_built_in_one(codegen, tmp_path):
    code = codegen.generate(with_user_model(tmp_path, EVENT))
    assert "pub struct Event key(event_id) recursive {" in code
    assert 'pub ship_to: Option<Site> = "ship to",' in code
    assert 'pub userName: String = "userName",' in code
    # a struct nested in itself: boxed when optional, its levels counted when read
    assert 'pub parent: Option<Box<Event>> = "parent",' in code
    assert ('#[serde(deserialize_with = "crate::nesting::nested")]\n'
            '        #[rkyv(omit_bounds)]\n        pub children: Vec<Event> = "children",'
            in code)
    assert 'pub enum EventKind [2] "event kind" {\n        New = "NEW",\n' \
           '        InFlight = "in_flight",' in code
    assert "EventKind [ArchivedEventKind event_capnp] { New 0, InFlight 1 }" in code
    assert "userName [userName user_name]" in code
    # the all-default root stores its first field explicitly: a double, field 1
    assert 'Event [b"\\x09' + "\\x00" * 8 + '"] [event_capnp::event],' in code
    assert "Vec<i32> => Int32List," in code and "Vec<Vec<i32>> => Int32ListList," in code
    assert "ModelId::BUILTIN" not in code and "ModelId::Event," in code


@pytest.mark.parametrize("key, prost", [("userName", "user_name"), ("HTTPCode", "http_code"),
                                        ("ship to", "ship_to"), ("type", "r#type"),
                                        ("self", "self_"), ("v2x", "v2x")])
def test_fields_are_named_as_prost_names_them(codegen, key, prost):
    assert codegen.prost_field(key) == prost


def test_enum_variants_and_model_variants_stay_distinct(codegen):
    assert codegen.unique([codegen.camel(s) for s in ("FOO", "foo", "_", "Self")]) == \
        ["Foo", "Foo2", "V", "VSelf"]


def test_capnp_glue_learns_each_fields_rust_name(codegen, tmp_path):
    names = codegen.capnp_names(with_user_model(tmp_path, EVENT)).splitlines()
    assert "Part type r#type" in names
    assert "Event userName userName" in names and "Event shipTo ship_to" in names
