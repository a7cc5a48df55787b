"""The C++ driver's model code is generated at build time (drivers/cpp/codegen), for the
built-in models and a user's own: its headers live apart from the hand-written ones, carry
the generated mark, name every field as the schema compilers do, and compile."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from serbench.tasks.sizes import is_generated

REPO = Path(__file__).resolve().parents[1]
GENERATOR = REPO / "drivers" / "cpp" / "codegen" / "generate_models.py"
HAND_WRITTEN = REPO / "drivers" / "cpp" / "src"
# a user's model with what a C++ name cannot be: a key with a space, a C++ keyword, an enum,
# a struct that nests itself through an optional (a pointer) and through a list
SHIPMENT = ('model = "shipment"\nkey = ["id"]\n[structs]\n'
            'Shipment = "id i64, \\"ship to\\" Address?, kind enum{A,B}, legs [[f64]], '
            'struct str, next Shipment?, parts [Shipment]"\n'
            'Address = "city str, Zip i32?"\n')


def generate(out: Path, models: Path | None = None) -> dict[str, str]:
    env = {**os.environ, "SERBENCH_MODELS": str(models or out / "no-models")}
    subprocess.run([sys.executable, str(GENERATOR), str(out)], check=True, env=env,
                   capture_output=True)
    return {str(p.relative_to(out)): p.read_text() for p in out.rglob("*.h")}


def users_model(tmp_path: Path) -> Path:
    models = tmp_path / "models"
    models.mkdir()
    (models / "shipment.toml").write_text(SHIPMENT)
    return models


def test_the_generated_headers_are_marked_and_apart_from_the_hand_written_ones(tmp_path):
    headers = generate(tmp_path / "out")
    assert set(headers) == {"model/models.h", "model/model_list.h", "methods/schema_fields.h",
                            "methods/protobuf_messages.h", "methods/flatbuffers_tables.h",
                            "methods/capnp_structs.h"}
    assert not any((HAND_WRITTEN / name).exists() for name in headers)
    assert all(is_generated(name, text) for name, text in headers.items())
    assert "shipment" not in headers["model/model_list.h"]


def test_a_users_model_is_named_as_the_schema_compilers_name_it(tmp_path):
    headers = generate(tmp_path / "out", users_model(tmp_path))
    models, fields = headers["model/models.h"], headers["methods/schema_fields.h"]
    assert 'field("ship to", &Self::ship_to)' in models
    assert 'field("struct", &Self::struct_)' in models
    assert "Box<P, ShipmentT<P>> next;" in models and "Vec<P, ShipmentT<P>> parts;" in models
    assert "enum class ShipmentKind : uint8_t { A, B };" in models
    assert "X(ship_to, ship_to, ShipTo)" in fields
    assert "X(struct_, struct_, StructField)" in fields  # capnp's keyword escape, naming.py
    assert "X(zip, Zip, Zip)" in fields  # protoc lowercases, flatc keeps the case
    assert "ModelId::shipment" in headers["model/model_list.h"]
    assert '#include "pb/shipment.pb.h"' in headers["methods/protobuf_messages.h"]


@pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler")
def test_a_users_model_compiles_with_the_drivers_reflection(tmp_path):
    out = tmp_path / "out"
    generate(out, users_model(tmp_path))
    check = tmp_path / "check.cpp"
    check.write_text('#include "model/model_list.h"\n'
                     "namespace serbench {\n"
                     "static_assert(field_count<ShipmentT<Native>> == 7);\n"
                     "static_assert(Model<ShipmentT<Native>>::id == ModelId::shipment);\n"
                     "static_assert(shape_v<decltype(ShipmentT<Native>::next)> == "
                     "Shape::optional);\n"
                     "}\n")
    subprocess.run(["g++", "-std=c++20", "-fsyntax-only", f"-I{HAND_WRITTEN}", f"-I{out}",
                    str(check)], check=True)
