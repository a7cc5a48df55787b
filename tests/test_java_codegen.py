"""Generated code lives apart: the Java generators write packages of their own at build time
(drivers/java/pom.xml), and no committed file in any language is generated."""
import os
import subprocess
import sys
from pathlib import Path

from serbench.tasks.sizes import is_generated

REPO = Path(__file__).resolve().parents[1]
CODEGEN = REPO / "drivers" / "java" / "codegen"
HAND_WRITTEN = REPO / "drivers" / "java" / "src" / "main" / "java"


def packages(root: Path) -> set[str]:
    """The Java packages of the sources under `root`, by their folders."""
    return {".".join(p.parent.relative_to(root).parts) for p in root.rglob("*.java")}


def test_the_java_generators_write_packages_no_hand_written_file_is_in(tmp_path):
    for generator in ("generate_models.py", "generate_schema_codecs.py"):
        subprocess.run([sys.executable, str(CODEGEN / generator), str(tmp_path)], check=True)
    generated = packages(tmp_path)
    assert generated == {"serbench.model", "serbench.methods.convert"}
    assert not generated & packages(HAND_WRITTEN)
    assert all(is_generated(str(p), p.read_text()) for p in tmp_path.rglob("*.java"))


def test_no_committed_file_is_generated():
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                             check=True).stdout.decode().split("\0")
    generated = [name for name in tracked if name and (REPO / name).is_file()
                 and is_generated(name, head(REPO / name))]
    assert generated == []


def head(path: Path) -> str:
    """The first lines of a file, where a generator puts its mark (binary files: none)."""
    with open(path, "rb") as f:
        return f.read(1024).decode("utf-8", errors="replace")


def compile_schemas(out: Path, script: str) -> subprocess.CompletedProcess:
    """Runs codegen/schema_compiler.py with a stand-in compiler: `script` writes into {out}."""
    return subprocess.run([sys.executable, str(CODEGEN / "schema_compiler.py"), str(out),
                           "sh", "-c", script, "sh", "{out}"], capture_output=True, text=True)


def test_a_schema_compiler_rerun_rewrites_only_the_sources_that_changed(tmp_path):
    # protoc and flatc rewrite every file: a run that changed nothing must leave every source
    # at its time, or javac recompiles the whole module on every build
    write = 'mkdir -p "$1/serbench/pb" && echo "class A {}" > "$1/serbench/pb/A.java" && '
    assert compile_schemas(tmp_path, write + 'echo "class B {}" > "$1/serbench/pb/B.java"'
                           ).returncode == 0
    a, b = tmp_path / "serbench/pb/A.java", tmp_path / "serbench/pb/B.java"
    for path in (a, b):
        os.utime(path, (1_000_000_000, 1_000_000_000))
    assert compile_schemas(tmp_path, write + 'echo "class B { int x; }" > "$1/serbench/pb/B.java"'
                           ).returncode == 0
    assert a.stat().st_mtime == 1_000_000_000
    assert b.stat().st_mtime > 1_000_000_000 and b.read_text() == "class B { int x; }\n"
    # a class the compiler no longer makes is removed with it
    assert compile_schemas(tmp_path, write.removesuffix(" && ")).returncode == 0
    assert not b.exists() and a.stat().st_mtime == 1_000_000_000


def test_a_failing_schema_compiler_fails_the_build_and_leaves_the_sources(tmp_path):
    (tmp_path / "serbench/pb").mkdir(parents=True)
    kept = tmp_path / "serbench/pb/A.java"
    kept.write_text("class A {}\n")
    done = compile_schemas(tmp_path, 'echo "bad.proto: syntax error" >&2; exit 3')
    assert done.returncode == 3 and "bad.proto: syntax error" in done.stderr
    assert kept.read_text() == "class A {}\n"


def test_one_java_class_names_sun_misc():
    # the build silences javac's internal-API warning for the whole module (pom.xml), so the
    # one deliberate use (handcoded_unsafe) must stay the only one
    def names_it(path: Path) -> bool:
        code = (line for line in path.read_text().splitlines()
                if not line.lstrip().startswith(("*", "/*", "//")))
        return any("sun.misc" in line for line in code)
    assert sorted(p.name for p in HAND_WRITTEN.rglob("*.java") if names_it(p)) == [
        "UnsafeAccess.java"]


def test_a_users_model_is_generated_under_the_names_the_schema_compilers_give(tmp_path):
    """A user's model (from their models folder) gets its classes and converters, each field
    accessed by the name protoc, flatc and Avro derive from the schema's field (`ship to` is
    `ship_to` there: setShipTo, addShipTo), not from the JSON key."""
    models = tmp_path / "models"
    models.mkdir()
    (models / "shipment.toml").write_text(
        'model = "shipment"\n[structs]\n'
        'Shipment = "id i64, \\"ship to\\" Address?, kind enum{A,B}, legs [[f64]]"\n'
        'Address = "city str"\n')
    out = tmp_path / "out"
    env = {**os.environ, "SERBENCH_MODELS": str(models)}
    for generator in ("generate_models.py", "generate_schema_codecs.py"):
        subprocess.run([sys.executable, str(CODEGEN / generator), str(out)], check=True, env=env)
    model = (out / "serbench/model/Shipment.java").read_text()
    assert "public Address shipTo;" in model
    convert = {name: (out / f"serbench/methods/convert/{name}Convert.java").read_text()
               for name in ("Proto", "Flat", "Avro")}
    assert "setShipTo(" in convert["Proto"] and "setShipTo(" in convert["Avro"]
    assert "addShipTo(" in convert["Flat"] and "serbench.pb.DoubleList" in convert["Proto"]
    assert not any("ship to" in text.replace('"ship to"', "") for text in convert.values())
