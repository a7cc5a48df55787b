"""A model definition file, read and checked: one model (its root struct, the key its total
order compares first, the structs it nests) in the notation of the brief.

```toml
# what the model is, in a line or two
model = "order_event"            # the model's id: snake_case
key = ["event_id"]               # optional: root fields the total order compares first
dataset = "import"               # optional: the `serbench data` generator that makes it
uses = ["part"]                  # optional: other models whose structs this one nests

[structs]                        # the root first; each struct's fields in canonical order
OrderEvent = "event_id i64, kind enum{CREATED,PAID}, \"ship to\" Address?, items [Item]"
Address = "city str, zip str?"
Item = "sku str, qty i32, price f64"
```

A field is `name type`; a name that is not a plain word (a JSON key with a space or a dash)
is written in double quotes. Types: i8 i16 i32 i64 f64 bool str, `T?` optional (absent or
null), `[T]` list, `enum{A,B}` (ordinal = position), or a struct's name; structs may nest
themselves, through an optional or a list (else no object could end).

Everything here is a pure function of the text: `parse` gives a `Definition` or raises
`ModelError` naming the file, the struct, the field and what is wrong.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

from . import naming

PRIMITIVES = ("i8", "i16", "i32", "i64", "f64", "bool", "str")
# The deepest a canonical object's JSON text may nest, each object and list one level
# (PROTOCOL.md 2.1); a model whose every object nests deeper is refused.
MAX_NESTING = 64
MODEL_ID = re.compile(r"[a-z][a-z0-9_]{0,47}")
STRUCT_NAME = re.compile(r"[A-Z][A-Za-z0-9]{0,63}")
PLAIN_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ENUM_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TABLE_KEYS = {"model", "key", "dataset", "uses", "structs"}


@dataclass(frozen=True)
class Prim:
    kind: str


@dataclass(frozen=True)
class Opt:
    inner: "Type"


@dataclass(frozen=True)
class ListOf:
    inner: "Type"


@dataclass(frozen=True)
class Enum:
    symbols: tuple[str, ...]


@dataclass(frozen=True)
class Ref:
    """A reference to a named struct, resolved through the registry (structs may recurse)."""

    name: str


Type = Prim | Opt | ListOf | Enum | Ref


@dataclass
class Struct:
    name: str
    fields: list[tuple[str, Type]]


@dataclass(frozen=True)
class Definition:
    """One model file: its id, root struct, key fields, generator, the models whose structs
    it uses, and the structs it defines (each with its source text, root first)."""

    model: str
    root: str
    key: tuple[str, ...]
    dataset: str
    uses: tuple[str, ...]
    structs: dict[str, Struct]
    sources: dict[str, str]
    file: str


class ModelError(ValueError):
    """A definition that cannot be a model; the message names the file and what is wrong."""


def parse(text: str, file: str, known: dict[str, Struct] | None = None,
          default_dataset: str = "import") -> Definition:
    """The definition in `text` (the file named `file`), its struct references resolved
    against its own structs and `known` (the structs of the models it uses)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ModelError(f"{file}: not TOML: {exc}") from None
    unknown = set(doc) - TABLE_KEYS
    if unknown:
        raise ModelError(f"{file}: unknown key {sorted(unknown)[0]!r}; a definition has "
                         f"{', '.join(sorted(TABLE_KEYS))}")
    model = _text(doc.get("model"), file, "model")
    if not MODEL_ID.fullmatch(model):
        raise ModelError(f"{file}: model {model!r}: a model id is snake_case (a-z, 0-9, _), "
                         "starting with a letter, at most 48 characters")
    structs_table = doc.get("structs")
    if not isinstance(structs_table, dict) or not structs_table:
        raise ModelError(f"{file}: [structs] must define at least the root struct")
    sources = {}
    for name, source in structs_table.items():
        if not STRUCT_NAME.fullmatch(name):
            raise ModelError(f"{file}: struct {name!r}: a struct name is CamelCase (A-Z, a-z, "
                             "0-9), starting with a capital, at most 64 characters")
        if name in naming.RESERVED_TYPES:
            raise ModelError(f"{file}: struct {name}: the name of a type the generated code "
                             "uses itself; give it another name")
        sources[name] = _text(source, file, f"structs.{name}")
    visible = {**(known or {})}
    for name in sources:
        if name in visible:
            raise ModelError(f"{file}: struct {name} is already defined by a model this one "
                             "uses; give it another name")
        visible[name] = Struct(name, [])
    structs = {name: Struct(name, _fields(source, f"{file}: struct {name}", visible))
               for name, source in sources.items()}
    visible.update(structs)
    root = next(iter(structs))
    key = tuple(_text(k, file, "key") for k in _list(doc.get("key", []), file, "key"))
    _check_key(key, structs[root], file)
    uses = tuple(_text(u, file, "uses") for u in _list(doc.get("uses", []), file, "uses"))
    dataset = _text(doc.get("dataset", default_dataset), file, "dataset")
    definition = Definition(model, root, key, dataset, uses, structs, sources, file)
    check_shape(definition, visible)
    return definition


def _text(value, file: str, key: str) -> str:
    if not isinstance(value, str):
        raise ModelError(f"{file}: {key} must be a string, got {type(value).__name__}")
    return value


def _list(value, file: str, key: str) -> list:
    if not isinstance(value, list):
        raise ModelError(f"{file}: {key} must be a list, got {type(value).__name__}")
    return value


def _fields(source: str, where: str, visible: dict[str, Struct]) -> list[tuple[str, Type]]:
    fields: list[tuple[str, Type]] = []
    seen = set()
    for item in split_fields(source):
        name, type_text = _name_and_type(item, where)
        if name in seen:
            raise ModelError(f"{where}: field {name!r} is defined twice")
        seen.add(name)
        fields.append((name, parse_type(type_text, f"{where}, field {name!r}", visible)))
    if not fields:
        raise ModelError(f"{where}: no fields")
    clash = naming.clashes([name for name, _ in fields])
    if clash:
        raise ModelError(f"{where}: fields {clash[0]!r} and {clash[1]!r} would have one name in "
                         "generated code (naming.py); rename one of them")
    return fields


def _name_and_type(item: str, where: str) -> tuple[str, str]:
    """`name type` or `"a name" type`."""
    if item.startswith('"'):
        end = item.find('"', 1)
        if end <= 1 or not item[end + 1:].strip():
            raise ModelError(f"{where}: {item!r} is not `\"name\" type`")
        name, rest = item[1:end], item[end + 1:]
        if any(ord(c) < 32 for c in name):
            raise ModelError(f"{where}: field {name!r}: a name holds no control character")
        return name, rest.strip()
    name, _, rest = item.partition(" ")
    if not PLAIN_FIELD.fullmatch(name) or not rest.strip():
        raise ModelError(f"{where}: {item!r} is not `name type` (a name with other "
                         "characters than letters, digits and _ is written in double quotes)")
    return name, rest.strip()


def split_fields(source: str) -> list[str]:
    """The comma-separated items of a struct's source; commas inside enum{...} or inside a
    quoted name do not separate."""
    parts, depth, quoted, current = [], 0, False, ""
    for ch in source:
        if ch == '"':
            quoted = not quoted
        elif not quoted:
            depth += ch == "{"
            depth -= ch == "}"
        if ch == "," and depth == 0 and not quoted:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


def parse_type(text: str, where: str, visible: dict[str, Struct]) -> Type:
    text = text.strip()
    if text.endswith("?"):
        inner = parse_type(text[:-1], where, visible)
        if isinstance(inner, Opt):
            raise ModelError(f"{where}: {text!r}: an optional of an optional")
        return Opt(inner)
    if text.startswith("[") and text.endswith("]"):
        inner = parse_type(text[1:-1], where, visible)
        if isinstance(inner, Opt):
            raise ModelError(f"{where}: {text!r}: a list holds values, not optional ones (no "
                             "format here keeps a null inside a list)")
        return ListOf(inner)
    if text.startswith("enum{") and text.endswith("}"):
        symbols = tuple(s.strip() for s in text[5:-1].split(","))
        if not symbols or any(not ENUM_SYMBOL.fullmatch(s) for s in symbols) \
                or len(set(symbols)) != len(symbols) or len(symbols) > 256:
            raise ModelError(f"{where}: {text!r}: an enum lists 1 to 256 distinct symbols "
                             "(letters, digits, _)")
        return Enum(symbols)
    if text in PRIMITIVES:
        return Prim(text)
    if text in visible:
        return Ref(text)
    raise ModelError(f"{where}: unknown type {text!r}; types are {', '.join(PRIMITIVES)}, T?, "
                     "[T], enum{...} or a struct of this model (or of a model it uses)")


def _check_key(key: tuple[str, ...], root: Struct, file: str) -> None:
    fields = dict(root.fields)
    for name in key:
        kind = fields.get(name)
        if kind is None:
            raise ModelError(f"{file}: key {name!r} is not a field of the root {root.name}")
        if not isinstance(kind, (Prim, Enum)):
            raise ModelError(f"{file}: key {name!r} must be a required primitive or enum "
                             "field (the total order compares it first)")
    if len(set(key)) != len(key):
        raise ModelError(f"{file}: key names a field twice")


def check_shape(definition: Definition, visible: dict[str, Struct]) -> None:
    """Every struct can end (a struct that needs itself through required fields alone has no
    finite object), and the least any object of the model nests is within MAX_NESTING."""
    least: dict[str, int | None] = {}

    def minimum(name: str, path: tuple[str, ...]) -> int | None:
        """The least nesting of an object of `name`; None when none can end."""
        if name in path:
            return None
        if name in least:
            return least[name]
        deepest = 1
        for _, kind in visible[name].fields:
            inner = _least_inside(kind, lambda ref: minimum(ref, (*path, name)))
            if inner is None:
                least[name] = None
                return None
            deepest = max(deepest, 1 + inner)
        least[name] = deepest
        return deepest

    for name in definition.structs:
        found = minimum(name, ())
        if found is None:
            raise ModelError(f"{definition.file}: struct {name} nests itself through required "
                             "fields only, so no object of it can end; make one of them "
                             "optional (T?) or a list ([T])")
    depth = minimum(definition.root, ())
    if depth > MAX_NESTING:
        raise ModelError(f"{definition.file}: every object of {definition.model} nests "
                         f"{depth} levels, more than the {MAX_NESTING} every reader takes "
                         "(PROTOCOL.md 2.1)")


def _least_inside(kind: Type, of_struct) -> int | None:
    """The least extra nesting a field of `kind` adds: 0 for a primitive or an absent
    optional, 1 for an empty list, an object's own for a required struct."""
    if isinstance(kind, (Prim, Enum)) or isinstance(kind, Opt):
        return 0
    if isinstance(kind, ListOf):
        return 1
    return of_struct(kind.name)
