"""The schema files of the schema-compiled methods, written from the model definitions at
build time: Protocol Buffers (`proto/<model>.proto`), FlatBuffers (`fbs/<model>.fbs`), Cap'n
Proto (`capnp/<model>.capnp`) and Avro (`avro/models.avsc`). Every driver's build runs

    python3 harness/serbench/models/schemas.py OUT_DIR

(the Python of any machine that builds: standard library only) and compiles what it writes;
nothing generated is committed. The conventions (schemas/README.md) are the same for a
built-in model and a user's own:

- one file per model per IDL, its structs in definition order, the root's file importing the
  files of the models it uses; the fields in canonical order (proto numbers 1, 2, ...; fbs
  ids by position; capnp ordinals 0, 1, ..., an optional scalar taking two);
- an enum is named after its struct and field (`OrgType`), its values the ordinals;
- what an IDL cannot say directly is a wrapper named after its element, declared once in
  `lists.proto` / `lists.fbs`: an optional list in proto (`Int32List`: a repeated field
  cannot be absent), a list of lists in proto and fbs (`DoubleList`, `DoubleListList`);
- optional scalars keep their presence (proto `optional`, fbs `= null`, a capnp union whose
  first member `absent` is the default); optional strings, structs and lists are absent when
  not written (a null pointer).
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script by a driver's build
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from serbench.models import BUILTIN, DEFINITIONS, Enum, ListOf, Opt, Prim, Ref, Struct
    from serbench.models.naming import field_ident, ident
else:
    from . import BUILTIN, DEFINITIONS, Enum, ListOf, Opt, Prim, Ref, Struct
    from .naming import field_ident, ident

PROTO_PRIM = {"i8": "int32", "i16": "int32", "i32": "int32", "i64": "int64", "f64": "double",
              "bool": "bool", "str": "string"}
FBS_PRIM = {"i8": "byte", "i16": "short", "i32": "int", "i64": "long", "f64": "double",
            "bool": "bool", "str": "string"}
CAPNP_PRIM = {"i8": "Int8", "i16": "Int16", "i32": "Int32", "i64": "Int64", "f64": "Float64",
              "bool": "Bool", "str": "Text"}
AVRO_PRIM = {"i8": "int", "i16": "int", "i32": "int", "i64": "long", "f64": "double",
             "bool": "boolean", "str": "string"}
HEADER = "Model `{model}`: generated from its definition ({file}) by serbench at build time."


def enum_name(struct: str, field: str) -> str:
    """An enum's type: its struct's name and its field's, CamelCase (`OrgType`)."""
    return struct + "".join(p[:1].upper() + p[1:] for p in field_ident(field).split("_"))


def is_pointer(kind) -> bool:
    return isinstance(kind, (Ref, ListOf)) or kind == Prim("str")


def owner(definitions: dict, struct: str) -> str:
    """The model whose file declares `struct`."""
    return next(m for m, d in definitions.items() if struct in d.structs)


def wrapper_name(list_kind: ListOf, idl: str, enum: str = "") -> str:
    """The wrapper message (proto) or table (fbs) that holds one list of `list_kind`'s
    elements: named after the element's type in the IDL (`Int32List`, `MediaList`,
    `DoubleListList`); `enum` names an enum element's type."""
    return _capital(_element_text(list_kind.inner, idl, enum)) + "List"


def _element_text(kind, idl: str, enum: str) -> str:
    if isinstance(kind, ListOf):
        return wrapper_name(kind, idl, enum)
    if isinstance(kind, Prim):
        return (PROTO_PRIM if idl == "proto" else FBS_PRIM)[kind.kind]
    return enum if isinstance(kind, Enum) else kind.name


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


class Wrappers:
    """The wrapper messages or tables an IDL needs (name -> element type, in the order first
    needed), and the file each belongs in: a wrapper of a struct's or an enum's elements in
    the file that declares them (the two refer to each other: they cannot be apart), one of
    scalars in the lists file."""

    def __init__(self, scalars: set[str], homes: dict[str, str]):
        self.scalars, self.homes, self.found = scalars, homes, {}

    def of(self, element: str) -> str:
        """The wrapper holding a list of `element` (its IDL type text), named after it."""
        name = _capital(element) + "List"
        self.found.setdefault(name, element)
        self.homes.setdefault(name, "lists" if element in self.scalars else self.homes[element])
        return name

    def at(self, home: str) -> dict[str, str]:
        return {name: element for name, element in self.found.items()
                if self.homes[name] == home}


def homes(definitions: dict) -> dict[str, str]:
    """Each struct's and enum's model (the file that declares it)."""
    found = {}
    for model, d in definitions.items():
        for struct in d.structs.values():
            found[struct.name] = model
            for name, kind in struct.fields:
                while isinstance(kind, (Opt, ListOf)):
                    kind = kind.inner
                if isinstance(kind, Enum):
                    found[enum_name(struct.name, name)] = model
    return found


# -- Protocol Buffers ----------------------------------------------------------------------


def proto_files(definitions: dict) -> dict[str, str]:
    wrappers = Wrappers(set(PROTO_PRIM.values()), homes(definitions))
    files = {m: _proto_file(definitions, m, wrappers) for m in definitions}
    out = {}
    for model, text in files.items():
        out[f"{model}.proto"] = text + "".join(_proto_wrapper(name, element) for name, element
                                               in wrappers.at(model).items())
    lists = wrappers.at("lists")
    if lists:
        out["lists.proto"] = _proto_head("the lists no repeated field can hold", "Lists",
                                         []) + "".join(_proto_wrapper(n, e)
                                                       for n, e in lists.items())
        for name, text in out.items():
            if name != "lists.proto" and any(f" {w} " in text for w in lists):
                out[name] = text.replace("\noption java_package",
                                         'import "lists.proto";\n\noption java_package', 1)
    return out


def _proto_wrapper(name: str, element: str) -> str:
    return f"\nmessage {name} {{\n  repeated {element} values = 1;\n}}\n"


def _proto_head(what: str, outer: str, imports: list[str]) -> str:
    lines = [f"// {what}", 'syntax = "proto3";', "", "package serbench.pb;", ""]
    lines += [f'import "{name}.proto";' for name in imports]
    if imports:
        lines.append("")
    lines += ['option java_package = "serbench.pb";', "option java_multiple_files = true;",
              f'option java_outer_classname = "{outer}Proto";', ""]
    return "\n".join(lines)


def _proto_file(definitions: dict, model: str, wrappers: Wrappers) -> str:
    d = definitions[model]
    imports = list(d.uses)
    text = _proto_head(HEADER.format(model=model, file=Path(d.file).name), d.root, imports)
    for struct in d.structs.values():
        enums, fields = [], []
        for number, (name, kind) in enumerate(struct.fields, 1):
            fields.append(_proto_field(struct, name, kind, number, enums, wrappers))
        for enum, symbols in enums:
            values = "".join(f"  {s} = {i};\n" for i, s in enumerate(symbols))
            text += f"\nenum {enum} {{\n{values}}}\n"
        text += f"\nmessage {struct.name} {{\n" + "".join(fields) + "}\n"
    return text


def _proto_field(struct: Struct, name: str, kind, number: int, enums: list,
                 wrappers: Wrappers) -> str:
    field = ident(name, "proto")
    optional = isinstance(kind, Opt)
    inner = kind.inner if optional else kind
    note = ""
    if isinstance(inner, Prim) and inner.kind in ("i8", "i16"):
        note = f"  // {inner.kind}"
    if isinstance(inner, ListOf):
        element = _proto_element(struct, name, inner.inner, enums, wrappers)
        if optional:
            return f"  {wrappers.of(element)} {field} = {number};  // optional\n"
        return f"  repeated {element} {field} = {number};\n"
    text = _proto_type(struct, name, inner, enums)
    if optional and not isinstance(inner, Ref):
        return f"  optional {text} {field} = {number};{note}\n"
    return f"  {text} {field} = {number};" + ("  // optional" if optional else note) + "\n"


def _proto_type(struct: Struct, name: str, kind, enums: list) -> str:
    if isinstance(kind, Prim):
        return PROTO_PRIM[kind.kind]
    if isinstance(kind, Enum):
        enums.append((enum_name(struct.name, name), kind.symbols))
        return enum_name(struct.name, name)
    return kind.name


def _proto_element(struct: Struct, name: str, kind, enums: list, wrappers: Wrappers) -> str:
    if isinstance(kind, ListOf):  # repeated fields cannot nest: a wrapper per level
        return wrappers.of(_proto_element(struct, name, kind.inner, enums, wrappers))
    return _proto_type(struct, name, kind, enums)


# -- FlatBuffers ---------------------------------------------------------------------------


def fbs_files(definitions: dict) -> dict[str, str]:
    wrappers = Wrappers(set(FBS_PRIM.values()), homes(definitions))
    files = {m: _fbs_file(definitions, m, wrappers) for m in definitions}
    out = {}
    for model, text in files.items():
        head, _, tail = text.rpartition("root_type ")
        out[f"{model}.fbs"] = head + "".join(_fbs_wrapper(n, e) for n, e
                                             in wrappers.at(model).items()) + "root_type " + tail
    lists = wrappers.at("lists")
    if lists:
        out["lists.fbs"] = ("// the lists a vector cannot hold: vectors of vectors\n"
                            "namespace serbench.fb;\n\n"
                            + "".join(_fbs_wrapper(n, e) for n, e in lists.items()))
        for name, text in out.items():
            if name != "lists.fbs" and any(f"[{w}]" in text for w in lists):
                first, _, rest = text.partition("\n")
                out[name] = f'{first}\ninclude "lists.fbs";\n{rest}'
    return out


def _fbs_wrapper(name: str, element: str) -> str:
    return f"table {name} {{\n  values: [{element}];\n}}\n\n"


def _fbs_file(definitions: dict, model: str, wrappers: Wrappers) -> str:
    d = definitions[model]
    lines = [f"// {HEADER.format(model=model, file=Path(d.file).name)}"]
    lines += [f'include "{name}.fbs";' for name in d.uses]
    lines += ["", "namespace serbench.fb;", ""]
    for struct in d.structs.values():
        enums, fields = [], []
        for name, kind in struct.fields:
            fields.append(_fbs_field(struct, name, kind, enums, wrappers))
        for enum, symbols in enums:
            base = "byte" if len(symbols) <= 127 else "short"
            values = ", ".join(f"{s} = {i}" for i, s in enumerate(symbols))
            lines.append(f"enum {enum} : {base} {{ {values} }}\n")
        lines += [f"table {struct.name} {{", *fields, "}", ""]
    lines.append(f"root_type {d.root};")
    return "\n".join(lines) + "\n"


def _fbs_field(struct: Struct, name: str, kind, enums: list, wrappers: Wrappers) -> str:
    field = ident(name, "fbs")
    optional = isinstance(kind, Opt)
    inner = kind.inner if optional else kind
    if isinstance(inner, ListOf):
        text = f"[{_fbs_element(struct, name, inner.inner, enums, wrappers)}]"
    elif isinstance(inner, Prim):
        text = FBS_PRIM[inner.kind]
    elif isinstance(inner, Enum):
        text = enum_name(struct.name, name)
        enums.append((text, inner.symbols))
    else:
        text = inner.name
    if optional and not is_pointer(inner):
        return f"  {field}: {text} = null;"
    return f"  {field}: {text};" + ("  // optional" if optional else "")


def _fbs_element(struct: Struct, name: str, kind, enums: list, wrappers: Wrappers) -> str:
    if isinstance(kind, ListOf):  # vectors of vectors are not allowed: a wrapper per level
        return wrappers.of(_fbs_element(struct, name, kind.inner, enums, wrappers))
    if isinstance(kind, Prim):
        return FBS_PRIM[kind.kind]
    if isinstance(kind, Enum):
        enums.append((enum_name(struct.name, name), kind.symbols))
        return enum_name(struct.name, name)
    return kind.name


# -- Cap'n Proto ---------------------------------------------------------------------------


def capnp_files(definitions: dict) -> dict[str, str]:
    return {f"{m}.capnp": _capnp_file(definitions, m) for m in definitions}


def capnp_id(model: str) -> str:
    """A file id of its own per model (capnp wants the top bit set), the same every build."""
    digest = int.from_bytes(hashlib.sha256(f"serbench capnp {model}".encode()).digest()[:8],
                            "big")
    return f"@0x{digest | (1 << 63):016x};"


def _capnp_file(definitions: dict, model: str) -> str:
    d = definitions[model]
    lines = [f"# {HEADER.format(model=model, file=Path(d.file).name)}", capnp_id(model), "",
             'using Cxx = import "/capnp/c++.capnp";', '$Cxx.namespace("serbench::cp");', ""]
    imported = sorted({ref for s in d.structs.values() for ref in _refs(s)
                       if ref not in d.structs}, key=lambda r: (owner(definitions, r), r))
    lines += [f'using import "{owner(definitions, r)}.capnp".{r};' for r in imported]
    if imported:
        lines.append("")
    for struct in d.structs.values():
        enums, fields, ordinal = [], [], 0
        for name, kind in struct.fields:
            text, ordinal = _capnp_field(struct, name, kind, ordinal, enums)
            fields.append(text)
        for enum, symbols in enums:
            lines += [f"enum {enum} {{",
                      *(f"  {_capnp_symbol(s)} @{i};" for i, s in enumerate(symbols)), "}", ""]
        lines += [f"struct {struct.name} {{", *fields, "}", ""]
    return "\n".join(lines)


def _refs(struct: Struct):
    for _, kind in struct.fields:
        while isinstance(kind, (Opt, ListOf)):
            kind = kind.inner
        if isinstance(kind, Ref):
            yield kind.name


def _capnp_symbol(symbol: str) -> str:
    """A capnp enumerant: lowerCamelCase, no underscore (capnp allows none)."""
    words = [w for w in symbol.split("_") if w]
    return words[0].lower() + "".join(w[:1].upper() + w[1:].lower() for w in words[1:])


def _capnp_field(struct: Struct, name: str, kind, ordinal: int, enums: list) -> tuple[str, int]:
    field = ident(name, "capnp")
    optional = isinstance(kind, Opt)
    inner = kind.inner if optional else kind
    text = _capnp_type(struct, name, inner, enums)
    if optional and not is_pointer(inner):
        return (f"  {field} :union {{ absent @{ordinal} :Void; value @{ordinal + 1} :{text}; }}",
                ordinal + 2)
    return f"  {field} @{ordinal} :{text};" + ("  # optional" if optional else ""), ordinal + 1


def _capnp_type(struct: Struct, name: str, kind, enums: list) -> str:
    if isinstance(kind, Prim):
        return CAPNP_PRIM[kind.kind]
    if isinstance(kind, ListOf):
        return f"List({_capnp_type(struct, name, kind.inner, enums)})"
    if isinstance(kind, Enum):
        enums.append((enum_name(struct.name, name), kind.symbols))
        return enum_name(struct.name, name)
    return kind.name


# -- Avro ----------------------------------------------------------------------------------


def avro_files(definitions: dict) -> dict[str, str]:
    """One file whose schema is the union of every model's root record: each named type is
    defined once, where it first appears, and named after that (no import order)."""
    declared: set[str] = set()
    roots = [_avro_record(definitions[m].root, declared, definitions, top=True)
             for m in definitions]
    return {"models.avsc": json.dumps([r for r in roots if not isinstance(r, str)], indent=2)
            + "\n"}


def _avro_record(name: str, declared: set[str], definitions: dict, top: bool = False):
    if name in declared:
        return name
    declared.add(name)
    struct = next(d.structs[name] for d in definitions.values() if name in d.structs)
    fields = []
    for fname, kind in struct.fields:
        field = {"name": ident(fname, "avro"),
                 "type": _avro_type(struct, fname, kind, declared, definitions)}
        if isinstance(kind, Opt):
            field["default"] = None
        fields.append(field)
    record = {"type": "record", "name": name, "fields": fields}
    if top:  # each root of the union names its namespace; what it nests inherits it
        record = {"type": "record", "name": name, "namespace": "serbench.avro",
                  "fields": fields}
    return record


def _avro_type(struct: Struct, fname: str, kind, declared: set[str], definitions: dict):
    if isinstance(kind, Opt):
        return ["null", _avro_type(struct, fname, kind.inner, declared, definitions)]
    if isinstance(kind, Prim):
        return AVRO_PRIM[kind.kind]
    if isinstance(kind, ListOf):
        return {"type": "array",
                "items": _avro_type(struct, fname, kind.inner, declared, definitions)}
    if isinstance(kind, Enum):
        name = enum_name(struct.name, fname)
        if name in declared:
            return name
        declared.add(name)
        return {"type": "enum", "name": name, "symbols": list(kind.symbols)}
    return _avro_record(kind.name, declared, definitions)


# -- the files -----------------------------------------------------------------------------

GENERATORS = {"proto": proto_files, "fbs": fbs_files, "capnp": capnp_files, "avro": avro_files}


def write(out: Path, definitions: dict | None = None) -> list[Path]:
    """Every schema file under `out/<idl>/`; a file whose text is unchanged keeps its time
    (the builds recompile what is newer). Returns the files written."""
    written = []
    for idl, generate in GENERATORS.items():
        directory = out / idl
        directory.mkdir(parents=True, exist_ok=True)
        files = generate(definitions or DEFINITIONS)
        for stale in directory.iterdir():
            if stale.name not in files:
                stale.unlink()
        for name, text in files.items():
            path = directory / name
            if not path.is_file() or path.read_text() != text:
                path.write_text(text)
                written.append(path)
    return written


def main(argv: list[str]) -> int:
    """`schemas.py OUT_DIR [--builtin]`: every model's schemas, or the built-in models' only
    (for a driver whose own types are not yet generated from the definitions)."""
    if len(argv) not in (1, 2) or argv[1:] not in ([], ["--builtin"]):
        print("usage: schemas.py OUT_DIR [--builtin]", file=sys.stderr)
        return 2
    chosen = DEFINITIONS
    if argv[1:] == ["--builtin"]:
        chosen = {model: DEFINITIONS[model] for model in BUILTIN}
    write(Path(argv[0]), chosen)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
