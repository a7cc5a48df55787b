"""`serbench model infer`: a definition proposed from a user's JSON Lines, for them to review.

One pass over the objects, whatever their number, keeping per field path only what decides
its type: the kinds of JSON value seen there, the integer range, whether it was ever absent
or null, and (for the root's candidate keys) whether its values were distinct so far. Types
widen across objects: an integer field that ever holds a fraction is f64, one beyond 32 bits
i64; a field absent from some object or null in some is optional; objects become structs
and arrays lists of their elements' widened type. A field whose values no single type holds
(a string here, a number there) is refused with the lines that disagree, as is a line that
is not a JSON object.

The key suggested is a required integer or string field of the root whose values were all
distinct, preferring one named `id` or ending in `id`; the structs are named after the
model and the keys they sit under (`OrderEvent`, `OrderEventShipTo`).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import INT_RANGES
from .definition import STRUCT_NAME, parse
from .jsonl import LineError, read_line


# the most distinct key values remembered per candidate (8-byte hashes): past it, a field
# is still a candidate, judged by what was seen (a user reviews the proposal anyway)
KEY_MEMORY = 4_000_000
I32_LOW, I32_HIGH = INT_RANGES["i32"]
I64_LOW, I64_HIGH = INT_RANGES["i64"]


class InferError(ValueError):
    """The file cannot give a definition; the message names the file, the line and why."""


@dataclass
class Node:
    """What was seen at one field path."""

    kinds: set = field(default_factory=set)  # int, float, bool, str, object, list
    low: int | None = None  # the integers' range
    high: int | None = None
    nullable: bool = False  # null, or absent from some object holding its parent
    present: int = 0  # objects of the parent that held it (null included)
    first_line: dict = field(default_factory=dict)  # kind -> the first line it was seen on
    fields: dict[str, "Node"] = field(default_factory=dict)  # an object's, in first order
    objects: int = 0  # objects seen at this path
    element: "Node | None" = None  # a list's elements
    values: set | None = None  # a root field's distinct values (key candidates only)


def infer(path: Path, model: str, taken: set[str] = frozenset()) -> str:
    """The proposed definition file's text for the JSON Lines at `path`, its struct names
    other than `taken` (the structs of the models already defined)."""
    root, count = Node(), 0
    with open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            value = _parse(path, number, raw)
            if not isinstance(value, dict):
                raise InferError(f"{path}: line {number}: a {_kind(value)}, not an object "
                                 "(each line of JSON Lines is one object)")
            _see(root, value, number, path, "", is_root=True)
            count += 1
    if not count:
        raise InferError(f"{path}: no objects to infer a model from")
    text = _render(root, model, count, path, set(taken))
    parse(text, str(path))  # what it proposes must be a definition serbench reads
    return text


def _parse(path: Path, number: int, raw: bytes):
    try:
        return read_line(raw)
    except LineError as exc:
        raise InferError(f"{path}: line {number}: {exc}") from None


def _kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    return {float: "float", str: "str", dict: "object", list: "list"}[type(value)]


def _see(node: Node, value, line: int, path: Path, where: str, is_root: bool = False) -> None:
    kind = _kind(value)
    if kind == "null":
        node.nullable = True
        return
    node.first_line.setdefault(kind, line)
    node.kinds.add(kind)
    if kind == "int":
        if not I64_LOW <= value <= I64_HIGH:
            raise InferError(f"{path}: line {line}: {where or 'the object'}: {value} does not "
                             "fit 64 bits")
        node.low = value if node.low is None else min(node.low, value)
        node.high = value if node.high is None else max(node.high, value)
    elif kind == "float" and not math.isfinite(value):
        raise InferError(f"{path}: line {line}: {where}: a number too large for f64")
    elif kind == "object":
        _see_object(node, value, line, path, where, is_root)
    elif kind == "list":
        node.element = node.element or Node()
        for i, item in enumerate(value):
            if item is None:
                raise InferError(f"{path}: line {line}: {where}[{i}]: a null inside a list; a "
                                 "model's list holds values, not optional ones")
            _see(node.element, item, line, path, f"{where}[{i}]")
    _check_compatible(node, path, where)


def _see_object(node: Node, value: dict, line: int, path: Path, where: str,
                is_root: bool) -> None:
    node.objects += 1
    for key, item in value.items():
        child = node.fields.get(key)
        if child is None:
            child = node.fields[key] = Node()
            if node.objects > 1:  # absent from the objects before this one
                child.nullable = True
            if is_root:
                child.values = set()
        child.present += 1
        _see(child, item, line, path, f"{where}.{key}" if where else key)
        if child.values is not None:
            _remember(child, item)
    for key, child in node.fields.items():
        if key not in value:
            child.nullable = True


def _remember(node: Node, value) -> None:
    """A root field's value, while it can still be a key (distinct, integer or string)."""
    if not isinstance(value, (int, str)) or isinstance(value, bool):
        node.values = None
    elif len(node.values) < KEY_MEMORY:
        digest = hash((type(value), value))
        if digest in node.values:
            node.values = None
        else:
            node.values.add(digest)


def _check_compatible(node: Node, path: Path, where: str) -> None:
    kinds = node.kinds
    numbers = {"int", "float"}
    if len(kinds) > 1 and not kinds <= numbers:
        a, b = sorted(kinds, key=lambda k: node.first_line[k])[:2]
        raise InferError(f"{path}: {where or 'the objects'}: no one type holds its values: "
                         f"{_article(a)} on line {node.first_line[a]}, {_article(b)} on line "
                         f"{node.first_line[b]}; make them agree, or leave the field out")


def _article(kind: str) -> str:
    return {"int": "an integer", "float": "a number", "bool": "a boolean", "str": "a string",
            "object": "an object", "list": "a list"}[kind]


# -- the definition text ---------------------------------------------------------------------


def struct_name(*parts: str) -> str:
    """CamelCase of the words of `parts` (a model id, then keys)."""
    words = [w for part in parts for w in re.split(r"[^A-Za-z0-9]+", part) if w]
    name = "".join(w[:1].upper() + w[1:] for w in words) or "Struct"
    return name if STRUCT_NAME.fullmatch(name) else "S" + name[:63]


def _render(root: Node, model: str, count: int, path: Path, taken: set[str]) -> str:
    structs: dict[str, str] = {}
    _struct(root, struct_name(model), structs, taken)
    key = _key(root)
    lines = [f"# Proposed by `serbench model infer` from {path.name} ({count:,} objects): review",
             "# it (field types, optional fields, the key), then `serbench data import`.",
             f'model = "{model}"']
    if key:
        lines.append(f'key = ["{key}"]  # a required field whose values were all distinct')
    else:
        lines.append("# key = [...]  # no required integer or string field had distinct values")
    lines += ['dataset = "import"', "", "[structs]  # the root first; fields in the order seen"]
    for name, source in structs.items():
        lines.append(f"{name} = {json.dumps(source)}")
    return "\n".join(lines) + "\n"


def _struct(node: Node, name: str, structs: dict[str, str], taken: set[str]) -> str:
    """Adds the struct of an object node under `name` (suffixed when taken); its name."""
    chosen, suffix = name, 2
    while chosen in structs or chosen in taken:
        chosen, suffix = f"{name}{suffix}", suffix + 1
    structs[chosen] = ""  # its place, the parent before its children
    items = []
    for key, child in node.fields.items():
        optional = child.nullable or child.present < node.objects
        kind = _type(child, chosen, key, structs, taken)
        items.append(f"{_name(key)} {kind}{'?' if optional else ''}")
    structs[chosen] = ", ".join(items)
    return chosen


def _name(key: str) -> str:
    plain = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key)
    return key if plain else '"' + key.replace('"', "'") + '"'


def _type(node: Node, parent: str, key: str, structs: dict[str, str], taken: set[str]) -> str:
    kinds = node.kinds
    if not kinds:
        return "str"  # only ever null: a string until the user knows better
    if "object" in kinds:
        return _struct(node, struct_name(parent, key), structs, taken)
    if "list" in kinds:
        element = node.element
        if element is None or not element.kinds:
            return "[str]"  # only empty lists seen
        return f"[{_type(element, parent, key, structs, taken)}]"
    if "float" in kinds:
        return "f64"
    if "int" in kinds:
        return "i32" if I32_LOW <= node.low and node.high <= I32_HIGH else "i64"
    return {"bool": "bool", "str": "str"}[next(iter(kinds))]


def _key(root: Node) -> str | None:
    candidates = [key for key, child in root.fields.items()
                  if child.values is not None and not child.nullable
                  and child.present == root.objects and child.kinds <= {"int", "str"}
                  and len(child.kinds) == 1 and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key)]
    preferred = [k for k in candidates if k.lower() == "id" or k.lower().endswith("id")]
    return (preferred or candidates or [None])[0]
