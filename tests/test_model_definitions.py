"""A model is one definition file: the built-in eight are read from theirs, and a definition
that cannot be a model is refused naming the file, the struct, the field and what is wrong.
The names of the generated code (naming.py) are one mapping for every target."""
from __future__ import annotations

from pathlib import Path

import pytest

from serbench import models
from serbench.models import definition, naming
from serbench.models.definition import Enum, ListOf, ModelError, Opt, Prim, Ref, parse


def defined(structs: str, head: str = 'model = "m"\n') -> definition.Definition:
    return parse(head + "[structs]\n" + structs, "m.toml")


def refusal(structs: str, head: str = 'model = "m"\n') -> str:
    with pytest.raises(ModelError) as caught:
        defined(structs, head)
    return str(caught.value)


def test_the_builtin_models_are_read_from_their_files():
    assert models.BUILTIN == ("part", "lineitem", "customer", "tweet", "sparse", "trade", "org",
                              "arrays")
    files = sorted(p.stem for p in models.BUILTIN_DIR.glob("*.toml"))
    assert files == sorted(models.BUILTIN)
    assert models.MODEL_ROOTS["lineitem"] == ("LineItem", ("orderkey", "linenumber"))
    order = dict(models.STRUCTS["Order"].fields)
    assert order["lineitems"] == ListOf(Ref("LineItem"))  # customer uses lineitem's structs
    tweet = dict(models.STRUCTS["Tweet"].fields)
    assert tweet["quoted_status"] == Opt(Ref("Tweet")) and tweet["id"] == Prim("i64")
    assert dict(models.STRUCTS["Org"].fields)["type"] == Enum(("FOO", "BAR", "BAZ"))


def test_a_definition_with_every_kind_of_type():
    d = defined('OrderEvent = "event_id i64, kind enum{CREATED,PAID}, \\"ship to\\" Address?, '
                'items [Item], tags [str]?, next OrderEvent?"\n'
                'Address = "city str, zip str?"\nItem = "sku str, qty i32, price f64"\n',
                'model = "order_event"\nkey = ["event_id"]\n')
    assert (d.model, d.root, d.key, d.dataset) == ("order_event", "OrderEvent", ("event_id",),
                                                   "import")
    fields = dict(d.structs["OrderEvent"].fields)
    assert fields["ship to"] == Opt(Ref("Address")) and fields["items"] == ListOf(Ref("Item"))
    assert fields["next"] == Opt(Ref("OrderEvent"))


@pytest.mark.parametrize("structs, head, problem", [
    ('R = "a int"', "", "struct R, field 'a': unknown type 'int'"),
    ('R = "a i32, a str"', "", "struct R: field 'a' is defined twice"),
    ('R = "a i32, next R"', "", "struct R nests itself through required fields only"),
    ('R = "s S"\nS = "r R"', "", "struct R nests itself through required fields only"),
    ('R = "a i32"', 'model = "m"\nkey = ["b"]\n', "key 'b' is not a field of the root R"),
    ('R = "a i32?"', 'model = "m"\nkey = ["a"]\n', "key 'a' must be a required primitive or enum"),
    ('R = "a i32??"', "", "an optional of an optional"),
    ('R = "a [i32?]"', "", "a list holds values, not optional ones"),
    ('R = "a enum{}"', "", "an enum lists 1 to 256 distinct symbols"),
    ('R = "a enum{X,X}"', "", "an enum lists 1 to 256 distinct symbols"),
    ('R = "first-name str"', "", "is not `name type`"),
    ('R = "\\"a b\\" str, a_b str"', "", "fields 'a b' and 'a_b' would have one name"),
    ('r = "a i32"', "", "struct 'r': a struct name is CamelCase"),
    ('String = "a i32"', "", "struct String: the name of a type the generated code uses"),
    ('R = ""', "", "struct R: no fields"),
    ('R = "a [i32]"', 'model = "M-1"\n', "model 'M-1': a model id is snake_case"),
    ('R = "a i32"', 'model = "m"\nbogus = 1\n', "unknown key 'bogus'"),
])
def test_a_definition_that_cannot_be_a_model_is_refused_by_name(structs, head, problem):
    message = refusal(structs + "\n", head or 'model = "m"\n')
    assert message.startswith("m.toml: ") and problem in message


def test_nesting_past_what_every_reader_takes_is_refused():
    chain = "\n".join(f'S{i} = "next S{i + 1}"' for i in range(64)) + '\nS64 = "x i32"'
    assert "every object of m nests 65 levels, more than the 64" in refusal(chain)
    fits = "\n".join(f'S{i} = "next S{i + 1}"' for i in range(63)) + '\nS63 = "x i32"'
    assert defined(fits).root == "S0"
    # through a list or an optional a chain may stop early: no refusal
    assert defined("\n".join(f'S{i} = "next [S{i + 1}]"' for i in range(80))
                   + '\nS80 = "x i32"').root == "S0"


def test_files_that_use_each_other(tmp_path):
    (tmp_path / "a.toml").write_text('model = "a"\n[structs]\nA = "x i32"\n')
    (tmp_path / "b.toml").write_text('model = "b"\nuses = ["a"]\n[structs]\nB = "a A"\n')
    loaded = models.load(sorted(tmp_path.glob("*.toml")), {})
    assert list(loaded) == ["a", "b"] and dict(loaded["b"].structs["B"].fields)["a"] == Ref("A")
    (tmp_path / "c.toml").write_text('model = "c"\nuses = ["nowhere"]\n[structs]\nC = "x i32"\n')
    with pytest.raises(ModelError, match=r"c\.toml: uses nowhere, which no definition file"):
        models.load(sorted(tmp_path.glob("*.toml")), {})
    (tmp_path / "c.toml").write_text('model = "a"\n[structs]\nC = "x i32"\n')
    with pytest.raises(ModelError, match=r"model a is already defined by .*a\.toml"):
        models.load(sorted(tmp_path.glob("*.toml")), {})
    (tmp_path / "c.toml").write_text('model = "c"\n[structs]\nA = "x i32"\n')
    with pytest.raises(ModelError, match=r"struct A is already defined by .*a\.toml"):
        models.load(sorted(tmp_path.glob("*.toml")), {})


def test_a_user_model_beside_the_builtin_ones_must_not_take_their_names(tmp_path):
    builtin = {m: models.DEFINITIONS[m] for m in models.BUILTIN}
    (tmp_path / "o.toml").write_text('model = "orders"\n[structs]\nOrder = "x i32"\n')
    with pytest.raises(ModelError, match="struct Order is already defined by .*customer.toml"):
        models.load([tmp_path / "o.toml"], builtin)
    (tmp_path / "o.toml").write_text('model = "orders"\nuses = ["customer"]\n[structs]\n'
                                     'Orders = "all [Order]"\n')
    assert models.load([tmp_path / "o.toml"], builtin)["orders"].root == "Orders"


@pytest.mark.parametrize("key, rust, cpp, java, proto", [
    ("type", "r#type", "type", "type_", "type"),
    ("protected", "protected", "protected_", "protected_", "protected"),
    ("class", "class", "class_", "class_", "class"),
    ("self", "self_", "self", "self", "self"),
    ("first name", "first_name", "first_name", "firstName", "first_name"),
    ("sensor-id", "sensor_id", "sensor_id", "sensorId", "sensor_id"),
    ("3d", "f_3d", "f_3d", "f3d", "f_3d"),
    ("message", "message", "message", "message", "message_"),
    ("hash", "hash_", "hash_", "hash_", "hash_"),
])
def test_one_mapping_names_a_field_in_every_target(key, rust, cpp, java, proto):
    assert [naming.ident(key, t) for t in ("rust", "cpp", "java", "proto")] == \
        [rust, cpp, java, proto]


def test_the_definitions_folder_holds_only_definitions():
    assert {p.suffix for p in Path(models.BUILTIN_DIR).iterdir()} == {".toml"}
