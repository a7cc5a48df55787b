"""The schemas the builds write from the model definitions (models/schemas.py) compile with
the pinned compilers, their generated C++ compiles with every model in one translation unit,
and they declare exactly the structs, fields, types and order of the definitions, by the
conventions of docs/schemas.md, restated here independently of the generator."""
import re
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import pytest

from conftest import require
from serbench.models import MODEL_ROOTS, MODELS, STRUCTS, Enum, ListOf, Opt, Prim, Ref
from serbench.models.schemas import write

# what every build writes, written once for this module
SCHEMAS = Path(tempfile.mkdtemp(prefix="serbench-schemas-"))
write(SCHEMAS)
IDLS = ("proto", "fbs", "capnp")

# tool -> (Debian package, expected first line of `--version`); the versions are the pins
TOOLS = {
    "protoc": ("protobuf-compiler", "libprotoc 3.21.12"),
    "flatc": ("flatbuffers-compiler", "flatc version 2.0.8"),
    "capnp": ("capnproto", "Cap'n Proto version 0.9.2"),
    "g++": ("g++", None),
    "pkg-config": ("pkg-config", None),
}
# IDL -> (pkg-config module of its C++ runtime, Debian package)
PKG_CONFIG = {"proto": ("protobuf", "libprotobuf-dev"),
              "fbs": ("flatbuffers", "libflatbuffers-dev"),
              "capnp": ("capnp", "libcapnp-dev")}


def tool(name: str) -> str:
    path = shutil.which(name)
    require(path is not None, f"{name} is not on PATH: install the Debian package "
                              f"{TOOLS[name][0]}")
    return path


def run(cmd: list[str]) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} failed:\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def cflags(idl: str) -> list[str]:
    tool("pkg-config")
    module, package = PKG_CONFIG[idl]
    proc = subprocess.run(["pkg-config", "--cflags", module], capture_output=True, text=True)
    require(proc.returncode == 0,
            f"pkg-config does not know {module}: install the Debian package {package}")
    return proc.stdout.split()


def schema(idl: str, model: str) -> Path:
    return SCHEMAS / idl / f"{model}.{idl}"


def generate(idl: str, models: tuple[str, ...], out: Path, *langs: str) -> None:
    """Runs the IDL's compiler on the models' files (and the lists file they may import);
    fails with the compiler's message."""
    lists = [] if not schema(idl, "lists").exists() else ["lists"]
    files = [str(schema(idl, m)) for m in (*models, *lists)]
    src = str(SCHEMAS / idl)
    if idl == "proto":
        run([tool("protoc"), f"-I{src}", *(f"--{lang}_out={out}" for lang in langs), *files])
    elif idl == "fbs":
        for lang in langs:
            run([tool("flatc"), f"--{lang}", "--gen-object-api", "-I", src, "-o", str(out), *files])
    else:
        run([tool("capnp"), "compile", f"-I{src}", f"--src-prefix={src}", f"-oc++:{out}", *files])


@pytest.mark.parametrize("name", TOOLS)
def test_tool_is_installed_at_the_pinned_version(name):
    path = tool(name)
    expected = TOOLS[name][1]
    if expected is not None:
        version = run([path, "--version"]).strip().splitlines()[0]
        assert version == expected, f"{name} is {version!r}, the pin is {expected!r}"


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("idl", IDLS)
def test_schema_compiles(idl, model, tmp_path):
    langs = {"proto": ("cpp", "java"), "fbs": ("cpp", "rust", "java"), "capnp": ()}[idl]
    generate(idl, (model,), tmp_path, *langs)


# ---------------------------------------------------------------- generated C++, all models

HEADER = {"proto": "{}.pb.h", "fbs": "{}_generated.h", "capnp": "{}.capnp.h"}


def cpp_use(idl: str, root: str) -> str:
    """A statement that instantiates the root type's reading (and building) code."""
    if idl == "proto":
        return f"{{ serbench::pb::{root} m; ok &= m.ParseFromArray(data, int(size)); }}"
    if idl == "fbs":
        return (f"{{ flatbuffers::Verifier v(data, size);"
                f" ok &= serbench::fb::Verify{root}Buffer(v);"
                f" std::unique_ptr<serbench::fb::{root}T>"
                f" t(serbench::fb::Get{root}(data)->UnPack());"
                f" ok &= t != nullptr; }}")
    return (f"{{ capnp::MallocMessageBuilder b; b.initRoot<serbench::cp::{root}>();"
            f" ok &= b.getRoot<serbench::cp::{root}>().asReader().totalSize().wordCount > 0; }}")


def translation_unit(idls: tuple[str, ...]) -> str:
    includes = ["#include <cstddef>", "#include <cstdint>", "#include <memory>"]
    if "capnp" in idls:
        includes.append("#include <capnp/message.h>")
    body = []
    for idl in idls:
        includes += [f'#include "{HEADER[idl].format(m)}"' for m in MODELS]
        body += [f"  {cpp_use(idl, MODEL_ROOTS[m][0])}" for m in MODELS]
    return "\n".join(includes + ["", "bool use_all(const std::uint8_t* data, std::size_t size) {",
                                 "  bool ok = true;", *body, "  return ok;", "}", ""])


@pytest.mark.parametrize("idls", [(idl,) for idl in IDLS] + [IDLS], ids=[*IDLS, "together"])
def test_generated_cpp_of_all_models_compiles_in_one_unit(idls, tmp_path):
    # one unit per IDL catches clashes between models; all IDLs together, clashes between IDLs
    flags = []
    for idl in idls:
        generate(idl, MODELS, tmp_path, "cpp")
        flags += cflags(idl)
    unit = tmp_path / "all_models.cpp"
    unit.write_text(translation_unit(idls))
    run([tool("g++"), "-std=c++17", "-c", f"-I{tmp_path}", *flags, str(unit), "-o",
         str(tmp_path / "all_models.o")])


# ---------------------------------------------------------------- schemas mirror the definitions

def snake(name: str) -> str:
    return re.sub(r"([A-Z])", r"_\1", name).lower()


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def enum_name(struct: str, fname: str) -> str:
    return struct + "".join(part.capitalize() for part in fname.split("_"))



PROTO_PRIM = {"i8": "int32", "i16": "int32", "i32": "int32", "i64": "int64", "f64": "double",
              "bool": "bool", "str": "string"}
FBS_PRIM = {"i8": "byte", "i16": "short", "i32": "int", "i64": "long", "f64": "double",
            "bool": "bool", "str": "string"}
CAPNP_PRIM = {"i8": "Int8", "i16": "Int16", "i32": "Int32", "i64": "Int64", "f64": "Float64",
              "bool": "Bool", "str": "Text"}


def is_pointer(t) -> bool:
    return isinstance(t, (Ref, ListOf)) or t == Prim("str")


class Expected:
    """The structs an IDL must declare for one model, derived from the definitions: name -> [(field,
    type as the parser renders it)], plus enums: name -> symbols."""

    def __init__(self, idl: str, root: str):
        self.idl, self.structs, self.enums, self.wrappers = idl, {}, {}, set()
        self.visit(root)

    def visit(self, name: str) -> None:
        if name not in self.structs:
            self.structs[name] = []
            for fname, t in STRUCTS[name].fields:
                self.structs[name].append((fname, self.field(name, fname, t)))

    def wrapper(self, name: str, fname: str, t) -> str:
        if name not in self.structs:
            self.structs[name] = [(fname, self.field(name, fname, t))]
            self.wrappers.add(name)
        return name

    def element(self, struct: str, fname: str, t) -> str:
        """A list's element: a list of lists in proto and fbs holds wrappers, each named after
        its own element with List after it (capnp nests lists natively)."""
        if isinstance(t, ListOf) and self.idl != "capnp":
            inner = self.element(struct, fname, t.inner)
            return self.wrapper(f"{inner[0].upper()}{inner[1:]}List", "values", t)
        return self.field(struct, fname, t)

    def field(self, struct: str, fname: str, t) -> str:
        idl = self.idl
        if isinstance(t, Opt):
            inner = t.inner
            if not is_pointer(inner):
                base = self.field(struct, fname, inner)
                return {"proto": f"optional {base}", "fbs": f"{base} = null",
                        "capnp": f"union({base})"}[idl]
            if idl == "proto" and inner == Prim("str"):
                return "optional string"
            if idl == "proto" and isinstance(inner, ListOf):
                element = self.element(struct, fname, inner.inner)
                return self.wrapper(f"{element[0].upper()}{element[1:]}List", "values", inner) + "?"
            return self.field(struct, fname, inner) + "?"
        if isinstance(t, Prim):
            return {"proto": PROTO_PRIM, "fbs": FBS_PRIM, "capnp": CAPNP_PRIM}[idl][t.kind]
        if isinstance(t, Enum):
            name = enum_name(struct, fname)
            self.enums[name] = list(t.symbols)
            return name
        if isinstance(t, Ref):
            self.visit(t.name)
            return t.name
        element = self.element(struct, fname, t.inner)
        return {"proto": f"repeated {element}", "fbs": f"[{element}]",
                "capnp": f"List({element})"}[idl]


class Parsed:
    """One schema file: its imports, header facts, structs (name -> [(field, type)] and the
    field numbers in declaration order) and enums (name -> symbols, values)."""

    def __init__(self):
        self.imports, self.header, self.structs, self.numbers, self.enums = [], {}, {}, {}, {}


LINE_RULES = {
    "proto": {
        "import": r'import "(\w+)\.proto";',
        "package": r"package ([\w.]+);",
        "option": r"option (\w+) = (.+);",
        "syntax": r'syntax = "proto3";',
        "open": r"(message|enum) (\w+) \{",
        "field": r"(optional |repeated )?(\w+) (\w+) = (\d+);",
        "enumerant": r"([A-Z_]+) = (\d+);",
    },
    "fbs": {
        "import": r'include "(\w+)\.fbs";',
        "package": r"namespace ([\w.]+);",
        "root_type": r"root_type (\w+);",
        "enum": r"enum (\w+) : (\w+) \{ (.*) \}",
        "open": r"(table) (\w+) \{",
        "field": r"(\w+): (\[?\w+\]?)( = null)?;",
    },
    "capnp": {
        "file_id": r"(@0x[0-9a-f]{16});",
        "cxx": r'using Cxx = import "/capnp/c\+\+\.capnp";',
        "package": r'\$Cxx\.namespace\("([\w:]+)"\);',
        "import": r'using import "(\w+)\.capnp"\.\w+;',
        "open": r"(struct|enum) (\w+) \{",
        "field": r"(\w+) @(\d+) :([\w()]+);",
        "union": r"(\w+) :union \{ absent @(\d+) :Void; value @(\d+) :(\w+); \}",
        "enumerant": r"([a-z]\w*) @(\d+);",
    },
}


@cache
def parse(idl: str, model: str) -> Parsed:
    """A strict line parser: every line must be a comment, blank or one known statement."""
    rules, out, current, kind = LINE_RULES[idl], Parsed(), None, None
    for number, raw in enumerate(schema(idl, model).read_text().splitlines(), 1):
        code, _, comment = raw.partition("#" if idl == "capnp" else "//")
        code, optional = code.strip(), comment.strip().startswith("optional")
        where = f"{schema(idl, model).name}:{number}: {raw.strip()!r}"
        if not code:
            continue
        if code == "}":
            assert current is not None, where
            current = None
            continue
        # body statements only inside a struct or enum, the others only outside
        allowed = [(rule, pattern) for rule, pattern in rules.items()
                   if (rule in ("field", "union", "enumerant")) == (current is not None)]
        rule, match = next(((rule, m) for rule, pattern in allowed
                            if (m := re.fullmatch(pattern, code))), (None, None))
        assert match, f"unexpected line {where}"
        if rule == "import":
            out.imports.append(match[1])
        elif rule == "open":
            kind, current = match[1], match[2]
            assert current not in out.structs and current not in out.enums, f"twice: {where}"
            if kind == "enum":
                out.enums[current] = ([], [])
            else:
                out.structs[current], out.numbers[current] = [], []
        elif rule == "enum":
            symbols = [s.split(" = ") for s in match[3].split(", ")]
            out.enums[match[1]] = ([s for s, _ in symbols], [int(v) for _, v in symbols])
            out.header["enum_base"] = match[2]
        elif rule == "enumerant":
            assert kind == "enum", f"enumerant outside an enum: {where}"
            out.enums[current][0].append(match[1])
            out.enums[current][1].append(int(match[2]))
        elif rule in ("field", "union"):
            assert kind != "enum", f"field inside an enum: {where}"
            name, ftype, numbers = field_of(idl, rule, match)
            assert not (optional and (ftype.startswith("optional") or "null" in ftype
                                      or ftype.startswith("union"))), f"doubly optional: {where}"
            out.structs[current].append((name, ftype + ("?" if optional else "")))
            out.numbers[current] += numbers
        elif rule == "option":
            out.header[match[1]] = match[2]
        else:
            out.header[rule] = match[1] if match.groups() else True
    assert current is None, f"{schema(idl, model).name}: unclosed {current}"
    return out


def field_of(idl: str, rule: str, match: re.Match) -> tuple[str, str, list[int]]:
    if idl == "proto":
        return match[3], f"{match[1] or ''}{match[2]}", [int(match[4])]
    if idl == "fbs":
        return match[1], match[2] + (" = null" if match[3] else ""), []
    if rule == "union":
        return snake(match[1]), f"union({match[4]})", [int(match[2]), int(match[3])]
    return snake(match[1]), match[3], [int(match[2])]


def difference(declared: list, expected: list) -> str:
    for i, (got, want) in enumerate(zip(declared, expected)):
        if got != want:
            return f"field {i} is {got}, the definition wants {want}"
    return f"{len(declared)} fields, the definition has {len(expected)}"


def visible(idl: str, model: str) -> dict:
    """Structs and enums declared in a model's file and the files it imports, transitively."""
    seen, todo, decls = set(), [model], {}
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            parsed = parse(idl, name)
            decls.update(parsed.structs)
            decls.update(parsed.enums)
            todo += parsed.imports
    return decls


def files(idl: str) -> list[str]:
    """Every file the generator wrote for an IDL: one per model, and the lists file."""
    return sorted(p.stem for p in (SCHEMAS / idl).glob(f"*.{idl}"))


@pytest.mark.parametrize("idl", IDLS)
def test_every_type_is_declared_once_across_all_files(idl):
    assert set(MODELS) <= set(files(idl)) <= set(MODELS) | {"lists"}
    owner = {}
    for model in files(idl):
        parsed = parse(idl, model)
        for name in [*parsed.structs, *parsed.enums]:
            assert name not in owner, f"{name} declared in both {owner[name]} and {model}"
            owner[name] = model


@pytest.mark.parametrize("idl", IDLS)
def test_file_headers_follow_the_conventions(idl):
    file_ids, outer_classes = set(), set()
    for model in MODELS:
        header = parse(idl, model).header
        if idl == "proto":
            assert header.get("java_package") == '"serbench.pb"', model
            assert header.get("java_multiple_files") == "true", model
            outer = header.get("java_outer_classname", "").strip('"')
            assert outer.endswith("Proto") and outer not in outer_classes, model
            outer_classes.add(outer)
        assert header.get("package") == {"proto": "serbench.pb", "fbs": "serbench.fb",
                                         "capnp": "serbench::cp"}[idl], model
        if idl == "fbs":
            assert header.get("root_type") == MODEL_ROOTS[model][0], model
        if idl == "capnp":
            assert header.get("file_id") and header["file_id"] not in file_ids, model
            file_ids.add(header["file_id"])


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("idl", IDLS)
def test_schema_declares_exactly_the_model(idl, model):
    root = MODEL_ROOTS[model][0]
    own = parse(idl, model)
    assert root in own.structs, f"{schema(idl, model).name} does not declare {root}"
    expected = Expected(idl, root)
    decls = visible(idl, model)
    for name, fields in expected.structs.items():
        assert name in decls, f"{name} is not declared in {model}.{idl} or its imports"
        assert decls[name] == fields, f"{name} in {idl}: {difference(decls[name], fields)}"
    # numbering follows declaration (= canonical) order: proto from 1, capnp from 0
    for name, numbers in own.numbers.items():
        start = 1 if idl == "proto" else 0
        assert numbers in ([], list(range(start, start + len(numbers)))), f"{name} numbering"
    for name, symbols in expected.enums.items():
        names, values = decls[name]
        assert values == list(range(len(symbols))), f"{name} values are not the ordinals"
        assert names == (symbols if idl != "capnp" else [camel(s.lower()) for s in symbols]), name
    if idl == "fbs" and expected.enums:
        assert own.header.get("enum_base") == "byte", "fbs enums are stored in one byte"
    # nothing in the model's own file is unused by its root (but for the wrappers of its
    # structs' lists, declared beside them for any model that needs one)
    stray = set(own.structs) | set(own.enums)
    stray -= set(expected.structs) | set(expected.enums)
    stray = {name for name in stray if not name.endswith("List")}
    assert not stray, f"{model}.{idl} declares types its root does not use: {sorted(stray)}"


USER_MODEL = '''model = "shipment"
key = ["id"]
uses = ["tweet"]
[structs]
Shipment = """id i64, "ship-to" Address?, legs [Leg], grid [[[i32]]]?, status enum{OPEN,IN_TRANSIT}, \
  statuses [enum{A,B}], message str, class i8?, tags [str]?, media [Media]?, tweet Tweet?"""
Address = "city str, zip str?"
Leg = "from str, to str, km f64, next Leg?"
'''


def test_a_users_model_gets_schemas_every_compiler_takes(tmp_path):
    """A shape none of the eight has (keys that are keywords or not words, enums in a list,
    lists of lists of lists, optional lists, a recursive struct, another model's structs):
    its schemas compile with every pinned compiler, beside the built-in ones, into C++ that
    compiles in one unit."""
    from serbench import models
    (tmp_path / "shipment.toml").write_text(USER_MODEL)
    builtin = {m: models.DEFINITIONS[m] for m in models.BUILTIN}
    user = models.load([tmp_path / "shipment.toml"], builtin)
    out = tmp_path / "schemas"
    write(out, {**builtin, **user})
    global SCHEMAS
    kept, SCHEMAS = SCHEMAS, out
    try:
        parse.cache_clear()
        for idl in IDLS:
            generate(idl, (*models.BUILTIN, "shipment"), tmp_path, "cpp")
        assert "ship_to" in (out / "proto" / "shipment.proto").read_text()
        assert "shipTo @" in (out / "capnp" / "shipment.capnp").read_text()
        assert "MediaList" in (out / "proto" / "tweet.proto").read_text()
        unit = tmp_path / "user.cpp"
        unit.write_text("\n".join(
            ["#include <cstddef>", "#include <cstdint>", "#include <memory>",
             "#include <capnp/message.h>",
             *(f'#include "{HEADER[idl].format("shipment")}"' for idl in IDLS),
             "bool use(const std::uint8_t* data, std::size_t size) {", "  bool ok = true;",
             *(f"  {cpp_use(idl, 'Shipment')}" for idl in IDLS), "  return ok;", "}", ""]))
        run([tool("g++"), "-std=c++17", "-c", f"-I{tmp_path}",
             *(flag for idl in IDLS for flag in cflags(idl)), str(unit), "-o",
             str(tmp_path / "user.o")])
    finally:
        SCHEMAS = kept
        parse.cache_clear()
