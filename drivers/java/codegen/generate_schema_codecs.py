#!/usr/bin/env python3
"""Generates the converters between the Java model classes and the classes protoc and flatc
generate from schemas/ (the `protobuf` and `flatbuffers` methods), and the `msgpack_arrays`
writer and reader, which follow the model's field order as a schema.

For every struct of harness/serbench/models/__init__.py: `put` (model -> message / table), `take`
(message / table -> model, depth materialize) and `visit` (folds the checksum through the
generated accessors, depth access), following the conventions of docs/schemas.md (optional
values, wrapper messages, absent required values). The converters make up package
serbench.methods.convert alone and call the hand-written serbench.methods.schema.

The Java build runs it (drivers/java/pom.xml, generate-sources) into
target/generated-sources/codegen, beside generate_models.py's classes; never committed.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "harness"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_models import (HEADER as MODEL_HEADER, Emitter, camel, field_name,  # noqa: E402
                             used, write_package)
from serbench.models import MODEL_ROOTS, STRUCTS, Enum, ListOf, Opt, Prim, Struct, resolve  # noqa: E402
from serbench.models.schemas import wrapper_name  # noqa: E402

PACKAGE = "serbench.methods.convert"
# the hand-written classes the converters call, imported where they use them
RUNTIME = tuple(f"serbench.methods.schema.{name}" for name in
                ("AvroRoot", "FlatIn", "FlatOut", "FlatRoot", "MsgpackIn", "ProtoIn", "ProtoRoot"))
HEADER = MODEL_HEADER.replace("generate_models.py", "generate_schema_codecs.py")

PRIM = {"i8": "byte", "i16": "short", "i32": "int", "i64": "long", "f64": "double",
        "bool": "boolean", "str": "String"}
FB_WIDTH = {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "f64": 8, "bool": 1, "str": 4}
FB_VECTOR = {"i32": "com.google.flatbuffers.IntVector", "i64": "com.google.flatbuffers.LongVector",
             "f64": "com.google.flatbuffers.DoubleVector"}


def jtype(t) -> str:
    """The model class's Java type of a (non-optional) type."""
    t = resolve(t)
    if isinstance(t, Prim):
        return PRIM[t.kind]
    if isinstance(t, ListOf):
        return jtype(t.inner) + "[]"
    if isinstance(t, Struct):
        return f"serbench.model.{t.name}"
    raise ValueError(t)


def is_number(t) -> bool:
    t = resolve(t)
    return isinstance(t, Prim) and t.kind != "str"


def fold_prim(kind: str, e: str) -> str:
    if kind == "str":
        return f"h.str({e});"
    if kind == "f64":
        return f"h.f64({e});"
    if kind == "bool":
        return f"h.flag({e});"
    return f"h.word({e});"


def enum_array(struct: str, fname: str) -> str:
    return f"{struct.upper()}_{fname.upper()}"


class Proto(Emitter):
    """protobuf-java: messages built through builders, read through the message getters."""

    @staticmethod
    def msg(t) -> str:
        """The protobuf class holding a value of type t: a struct's message, or the wrapper of
        a list (an optional list, or a list inside a list)."""
        t = resolve(t)
        if isinstance(t, Struct):
            return f"serbench.pb.{t.name}"
        return f"serbench.pb.{wrapper_name(t, 'proto')}"

    def put_list(self, b: str, adder: str, e: str, t, ind: str) -> list[str]:
        """Appends every element of list `e` of type t through `b.add<adder>`."""
        inner = resolve(t.inner)
        x = self.fresh("x")
        if isinstance(inner, ListOf):
            w = self.fresh("w")
            field = "Values"
            return [f"{ind}for ({jtype(inner)} {x} : {e}) {{",
                    f"{ind}    {self.msg(inner)}.Builder {w} = {self.msg(inner)}.newBuilder();",
                    *self.put_list(w, field, x, inner, ind + "    "),
                    f"{ind}    {b}.add{adder}({w});", f"{ind}}}"]
        value = f"put({x})" if isinstance(inner, Struct) else x
        return [f"{ind}for ({jtype(inner)} {x} : {e}) {{", f"{ind}    {b}.add{adder}({value});",
                f"{ind}}}"]

    def put(self, fname: str, t, ind: str) -> list[str]:
        e, c = f"v.{field_name(fname)}", camel(fname)
        t = resolve(t)
        if isinstance(t, Opt):
            inner = resolve(t.inner)
            if isinstance(inner, ListOf):
                w = self.fresh("w")
                wrapper = self.msg(inner)
                return [f"{ind}if ({e} != null) {{",
                        f"{ind}    {wrapper}.Builder {w} = {wrapper}.newBuilder();",
                        *self.put_list(w, "Values", e, inner, ind + "    "),
                        f"{ind}    b.set{c}({w});", f"{ind}}}"]
            value = f"put({e})" if isinstance(inner, Struct) else e
            return [f"{ind}if ({e} != null) {{", f"{ind}    b.set{c}({value});", f"{ind}}}"]
        if isinstance(t, Prim):
            return [f"{ind}b.set{c}({e});"]
        if isinstance(t, Enum):
            return [f"{ind}b.set{c}Value({e}.ordinal());"]
        if isinstance(t, Struct):
            return [f"{ind}b.set{c}(put({e}));"]
        return self.put_list("b", c, e, t, ind)

    def take_value(self, target: str, x: str, t, fname: str, ind: str) -> list[str]:
        """Assigns `target` from protobuf value `x` (a getter's result) of model type t."""
        t = resolve(t)
        if isinstance(t, Prim):
            cast = f"({PRIM[t.kind]}) " if t.kind in ("i8", "i16") else ""
            return [f"{ind}{target} = {cast}{x};"]
        if isinstance(t, Struct):
            return [f"{ind}{target} = take({x});"]
        if isinstance(t, Enum):
            return [f"{ind}{target} = {enum_array(self.struct.name, fname)}"
                    f"[ProtoIn.ordinal({x}, {len(t.symbols)}, \"{self.struct.name}.{fname}\")];"]
        r = self.fresh("r")
        return [f"{ind}{self.msg(t)} {r} = {x};", *self.take_list(target, r, t, fname, ind)]

    def take_list(self, target: str, m: str, t, fname: str, ind: str, getter: str = "") -> list[str]:
        """`m` is the message and `getter` the repeated field (a wrapper's Values by default)."""
        inner = resolve(t.inner)
        getter = getter or "Values"
        n, a, i = self.fresh("n"), self.fresh("a"), self.fresh("i")
        elem = jtype(inner)
        base, dims = elem, ""
        while base.endswith("[]"):
            base, dims = base[:-2], dims + "[]"
        return [f"{ind}int {n} = {m}.get{getter}Count();",
                f"{ind}{jtype(t)} {a} = new {base}[{n}]{dims};",
                f"{ind}for (int {i} = 0; {i} < {n}; {i}++) {{",
                *self.take_value(f"{a}[{i}]", f"{m}.get{getter}({i})", inner, fname, ind + "    "),
                f"{ind}}}", f"{ind}{target} = {a};"]

    def take(self, fname: str, t, ind: str) -> list[str]:
        target, c = f"v.{field_name(fname)}", camel(fname)
        t = resolve(t)
        if isinstance(t, Opt):
            inner = resolve(t.inner)
            body = self.take_value(target, f"m.get{c}()", inner, fname, ind + "    ")
            return [f"{ind}if (m.has{c}()) {{", *body, f"{ind}}}"]
        if isinstance(t, Struct):
            return [f'{ind}ProtoIn.require(m.has{c}(), "{self.struct.name}.{fname}");',
                    *self.take_value(target, f"m.get{c}()", t, fname, ind)]
        if isinstance(t, ListOf):
            return self.take_list(target, "m", t, fname, ind, getter=c)
        value = "Value" if isinstance(t, Enum) else ""
        return self.take_value(target, f"m.get{c}{value}()", t, fname, ind)

    def visit_value(self, x: str, t, fname: str, ind: str) -> list[str]:
        t = resolve(t)
        if isinstance(t, Prim):
            cast = f"({PRIM[t.kind]}) " if t.kind in ("i8", "i16") else ""
            return [f"{ind}{fold_prim(t.kind, cast + x)}"]
        if isinstance(t, Struct):
            return [f"{ind}visit({x}, h);"]
        if isinstance(t, Enum):
            return [f"{ind}h.word(ProtoIn.ordinal({x}, {len(t.symbols)}, "
                    f"\"{self.struct.name}.{fname}\"));"]
        r = self.fresh("r")
        return [f"{ind}{self.msg(t)} {r} = {x};", *self.visit_list(r, t, fname, ind)]

    def visit_list(self, m: str, t, fname: str, ind: str, getter: str = "") -> list[str]:
        inner = resolve(t.inner)
        getter = getter or "Values"
        n, i = self.fresh("n"), self.fresh("i")
        return [f"{ind}int {n} = {m}.get{getter}Count();", f"{ind}h.word({n});",
                f"{ind}for (int {i} = 0; {i} < {n}; {i}++) {{",
                *self.visit_value(f"{m}.get{getter}({i})", inner, fname, ind + "    "),
                f"{ind}}}"]

    def visit(self, fname: str, t, ind: str) -> list[str]:
        c = camel(fname)
        t = resolve(t)
        if isinstance(t, Opt):
            inner = resolve(t.inner)
            body = self.visit_value(f"m.get{c}()", inner, fname, ind + "    ")
            return [f"{ind}if (m.has{c}()) {{", f"{ind}    h.word(1);", *body,
                    f"{ind}}} else {{", f"{ind}    h.word(0);", f"{ind}}}"]
        if isinstance(t, Struct):
            return [f'{ind}ProtoIn.require(m.has{c}(), "{self.struct.name}.{fname}");',
                    *self.visit_value(f"m.get{c}()", t, fname, ind)]
        if isinstance(t, ListOf):
            return self.visit_list("m", t, fname, ind, getter=c)
        value = "Value" if isinstance(t, Enum) else ""
        return self.visit_value(f"m.get{c}{value}()", t, fname, ind)

    def source(self) -> list[str]:
        s = self.struct
        model, pb = f"serbench.model.{s.name}", f"serbench.pb.{s.name}"
        L = [f"    public static {pb} put({model} v) {{",
             f"        {pb}.Builder b = {pb}.newBuilder();"]
        for f, t in s.fields:
            L += self.put(f, t, "        ")
        L += ["        return b.build();", "    }", "",
              f"    public static {model} take({pb} m) {{", f"        {model} v = new {model}();"]
        for f, t in s.fields:
            L += self.take(f, t, "        ")
        L += ["        return v;", "    }", "", f"    public static void visit({pb} m, Hasher h) {{"]
        for f, t in s.fields:
            L += self.visit(f, t, "        ")
        L += ["    }", ""]
        return L


def empty_message(struct: Struct) -> list[int]:
    """PROTOCOL.md 9: an all-default message is stored as its first field written explicitly
    with its default (an implicit-presence number or string, or a packed list)."""
    for number, (_, t) in enumerate(struct.fields, start=1):
        t = resolve(t)
        if isinstance(t, Prim) or isinstance(t, Enum):
            if isinstance(t, Prim) and t.kind == "str":
                return [number << 3 | 2, 0]
            if isinstance(t, Prim) and t.kind == "f64":
                return [number << 3 | 1] + [0] * 8
            return [number << 3, 0]
        if isinstance(t, ListOf) and is_number(t.inner):
            return [number << 3 | 2, 0]
    raise ValueError(f"{struct.name} has no field to write an empty message with")


def enum_arrays() -> list[str]:
    L = []
    for name, s in STRUCTS.items():
        for f, t in s.fields:
            if isinstance(t, Enum):
                enum = f"serbench.model.{name}{camel(f)}"
                L.append(f"    private static final {enum}[] {enum_array(name, f)} = {enum}.values();")
    return L


def proto_source() -> str:
    L = [HEADER, f"package {PACKAGE};", "", "import serbench.Hasher;", "",
         "/** Model classes <-> protoc's message classes (the proto schemas), field by field. */",
         "public final class ProtoConvert {", "    private ProtoConvert() {}", "",
         *enum_arrays(), "",
         "    /** The binding of a model id, or null when the model has no message. */",
         "    public static ProtoRoot<?, ?> root(String model) {", "        switch (model) {"]
    for model, (root, _) in MODEL_ROOTS.items():
        empty = ", ".join(str(b) for b in empty_message(STRUCTS[root]))
        L += [f'            case "{model}":',
              f"                return new ProtoRoot<>(serbench.model.{root}.class, "
              f"serbench.pb.{root}.parser(),",
              f"                    ProtoConvert::put, ProtoConvert::take, ProtoConvert::visit,"
              f" new byte[] {{{empty}}});"]
    L += ["            default:", "                return null;", "        }", "    }", ""]
    for s in STRUCTS.values():
        L += Proto(s).source()
    L[-1] = "}"
    return "\n".join(L) + "\n"


def lower_camel(fname: str) -> str:
    """flatc's Java accessor name (`protected` dodges the keyword)."""
    c = camel(fname)
    name = c[:1].lower() + c[1:]
    return name + "_" if name in ("protected",) else name


class Flat(Emitter):
    """flatbuffers-java: tables built bottom-up, read through the generated accessors."""

    @staticmethod
    def wrapper(t) -> tuple[str, str]:
        """The table holding a list's element list, and its field."""
        return f"serbench.fb.{wrapper_name(resolve(t), 'fbs')}", "Values"

    def put_list(self, owner: str, c: str, e: str, t, ind: str) -> tuple[list[str], str]:
        """Lines that create the vector of list `e` (field c of table `owner`), and its offset."""
        inner = resolve(t.inner)
        o = self.fresh("o")
        if is_number(inner):
            return [f"{ind}int {o} = {owner}.create{c}Vector(b, {e});"], o
        x, k = self.fresh("x"), self.fresh("k")
        if isinstance(inner, Prim):
            elem, body = [], f"b.createString({x})"
        elif isinstance(inner, Struct):
            elem, body = [], f"put(b, {x})"
        else:
            table, field = self.wrapper(inner)
            elem, w = self.put_list(table, field, x, inner, ind + "    ")
            short = table.rsplit(".", 1)[1]
            elem += [f"{ind}    {table}.start{short}(b);", f"{ind}    {table}.add{field}(b, {w});"]
            body = f"{table}.end{short}(b)"
        a = self.fresh("a")
        return [f"{ind}int[] {a} = new int[{e}.length];",
                f"{ind}for (int {k} = 0; {k} < {a}.length; {k}++) {{",
                f"{ind}    {jtype(inner)} {x} = {e}[{k}];", *elem,
                f"{ind}    {a}[{k}] = {body};", f"{ind}}}",
                f"{ind}int {o} = {owner}.create{c}Vector(b, {a});"], o

    def put(self) -> list[str]:
        s = self.struct
        table, model = f"serbench.fb.{s.name}", f"serbench.model.{s.name}"
        L = [f"    public static int put(FlatBufferBuilder b, {model} v) {{"]
        adds = []
        for f, t in s.fields:
            e, c = f"v.{field_name(f)}", camel(f)
            t = resolve(t)
            opt = isinstance(t, Opt)
            inner = resolve(t.inner) if opt else t
            if isinstance(inner, Prim) and inner.kind != "str" or isinstance(inner, Enum):
                value = f"(byte) {e}.ordinal()" if isinstance(inner, Enum) else e
                add = f"{table}.add{c}(b, {value});"
                if opt:
                    # flatc 2.0.8's Java adds an optional scalar with default 0: force it
                    adds += [f"        if ({e} != null) {{", "            b.forceDefaults(true);",
                             f"            {add}", "            b.forceDefaults(false);",
                             "        }"]
                elif isinstance(inner, Prim) and inner.kind == "f64":
                    # the builder drops a value == its default 0.0, and -0.0 == 0.0
                    adds += [f"        b.forceDefaults(FlatOut.negativeZero({e}));",
                             f"        {add}", "        b.forceDefaults(false);"]
                else:
                    adds.append(f"        {add}")
                continue
            ind = "            " if opt else "        "
            if isinstance(inner, Prim):
                o = self.fresh("o")
                lines = [f"{ind}int {o} = b.createString({e});"]
            elif isinstance(inner, Struct):
                o = self.fresh("o")
                lines = [f"{ind}int {o} = put(b, {e});"]
            else:
                lines, o = self.put_list(table, c, e, inner, ind)
            if opt:
                lines[-1] = lines[-1].replace(f"int {o} = ", f"{o} = ")
                L += [f"        int {o} = 0;", f"        if ({e} != null) {{", *lines, "        }"]
            else:
                L += lines
            adds.append(f"        {table}.add{c}(b, {o});")
        short = s.name
        L += [f"        {table}.start{short}(b);", *adds, f"        return {table}.end{short}(b);",
              "    }", ""]
        return L

    # --- reading: `c` is the FlatIn context (budget and nesting of one buffer)
    def vector_type(self, t) -> str:
        inner = resolve(t.inner)
        if is_number(inner):
            return FB_VECTOR[inner.kind]
        if isinstance(inner, Prim):
            return "com.google.flatbuffers.StringVector"
        if isinstance(inner, Struct):
            return f"serbench.fb.{inner.name}.Vector"
        return self.wrapper(inner)[0] + ".Vector"

    def elem_table(self, t) -> str:
        inner = resolve(t.inner)
        return f"serbench.fb.{inner.name}" if isinstance(inner, Struct) else self.wrapper(inner)[0]

    def width(self, t) -> int:
        inner = resolve(t.inner)
        return FB_WIDTH[inner.kind] if isinstance(inner, Prim) else 4

    def take_list(self, target: str, w: str, t, fname: str, ind: str) -> list[str]:
        """Assigns `target` from the vector `w` (null: absent, read as empty)."""
        inner = resolve(t.inner)
        n, a, i = self.fresh("n"), self.fresh("a"), self.fresh("i")
        elem = jtype(inner)
        base, dims = elem, ""
        while base.endswith("[]"):
            base, dims = base[:-2], dims + "[]"
        L = [f"{ind}int {n} = c.count({w} == null ? 0 : {w}.length(), {self.width(t)});",
             f"{ind}{jtype(t)} {a} = new {base}[{n}]{dims};"]
        if is_number(inner):
            body = [f"{ind}    {a}[{i}] = {w}.get({i});"]
        elif isinstance(inner, Prim):
            body = [f"{ind}    {a}[{i}] = c.str({w}.get({i}));"]
        else:
            x = self.fresh("x")
            L.append(f"{ind}{self.elem_table(t)} {x} = new {self.elem_table(t)}();")
            if isinstance(inner, Struct):
                body = [f"{ind}    {a}[{i}] = take({w}.get({x}, {i}), c);"]
            else:
                table, field = self.wrapper(inner)
                v = self.fresh("w")
                body = [f"{ind}    {w}.get({x}, {i});", f"{ind}    c.table();",
                        f"{ind}    {self.vector_type(inner)} {v} = {x}.{field[0].lower() + field[1:]}Vector();",
                        *self.take_list(f"{a}[{i}]", v, inner, fname, ind + "    ")]
        return L + [f"{ind}for (int {i} = 0; {i} < {n}; {i}++) {{", *body, f"{ind}}}",
                    f"{ind}{target} = {a};"]

    def visit_list(self, w: str, t, fname: str, ind: str) -> list[str]:
        inner = resolve(t.inner)
        n, i = self.fresh("n"), self.fresh("i")
        L = [f"{ind}int {n} = c.count({w} == null ? 0 : {w}.length(), {self.width(t)});",
             f"{ind}h.word({n});"]
        if is_number(inner):
            body = [f"{ind}    {fold_prim(inner.kind, f'{w}.get({i})')}"]
        elif isinstance(inner, Prim):
            body = [f"{ind}    h.str(c.str({w}.get({i})));"]
        else:
            x = self.fresh("x")
            L.append(f"{ind}{self.elem_table(t)} {x} = new {self.elem_table(t)}();")
            if isinstance(inner, Struct):
                body = [f"{ind}    visit({w}.get({x}, {i}), h, c);"]
            else:
                table, field = self.wrapper(inner)
                v = self.fresh("w")
                body = [f"{ind}    {w}.get({x}, {i});", f"{ind}    c.table();",
                        f"{ind}    {self.vector_type(inner)} {v} = {x}.{field[0].lower() + field[1:]}Vector();",
                        *self.visit_list(v, inner, fname, ind + "    ")]
        return L + [f"{ind}for (int {i} = 0; {i} < {n}; {i}++) {{", *body, f"{ind}}}"]

    def take(self, fname: str, t, ind: str) -> list[str]:
        target, a = f"v.{field_name(fname)}", lower_camel(fname)
        where = f"{self.struct.name}.{fname}"
        t = resolve(t)
        if isinstance(t, Opt):
            inner = resolve(t.inner)
            if isinstance(inner, Prim) and inner.kind == "str":
                return [f"{ind}{target} = c.optStr(t.{a}());"]
            if isinstance(inner, Prim):
                return [f"{ind}if (t.has{camel(fname)}()) {{", f"{ind}    {target} = t.{a}();",
                        f"{ind}}}"]
            if isinstance(inner, Struct):
                x = self.fresh("x")
                return [f"{ind}serbench.fb.{inner.name} {x} = t.{a}();",
                        f"{ind}if ({x} != null) {{", f"{ind}    {target} = take({x}, c);", f"{ind}}}"]
            w = self.fresh("w")
            return [f"{ind}{self.vector_type(inner)} {w} = t.{a}Vector();",
                    f"{ind}if ({w} != null) {{", *self.take_list(target, w, inner, fname, ind + "    "),
                    f"{ind}}}"]
        if isinstance(t, Prim):
            return [f"{ind}{target} = " + (f"c.str(t.{a}());" if t.kind == "str" else f"t.{a}();")]
        if isinstance(t, Enum):
            enum = enum_array(self.struct.name, fname)
            return [f'{ind}{target} = {enum}[FlatIn.ordinal(t.{a}(), {len(t.symbols)}, "{where}")];']
        if isinstance(t, Struct):
            return [f'{ind}{target} = take(FlatIn.required(t.{a}(), "{where}"), c);']
        w = self.fresh("w")
        return [f"{ind}{self.vector_type(t)} {w} = t.{a}Vector();",
                *self.take_list(target, w, t, fname, ind)]

    def visit(self, fname: str, t, ind: str) -> list[str]:
        a = lower_camel(fname)
        where = f"{self.struct.name}.{fname}"
        t = resolve(t)
        if isinstance(t, Opt):
            inner = resolve(t.inner)
            if isinstance(inner, Prim) and inner.kind == "str":
                return [f"{ind}c.optStr(t.{a}InByteBuffer(c.view()), h);"]
            if isinstance(inner, Prim):
                body = [f"{ind}    {fold_prim(inner.kind, f't.{a}()')}"]
                cond = f"t.has{camel(fname)}()"
                pre = []
            elif isinstance(inner, Struct):
                x = self.fresh("x")
                pre = [f"{ind}serbench.fb.{inner.name} {x} = t.{a}();"]
                cond, body = f"{x} != null", [f"{ind}    visit({x}, h, c);"]
            else:
                x = self.fresh("w")
                pre = [f"{ind}{self.vector_type(inner)} {x} = t.{a}Vector();"]
                cond, body = f"{x} != null", self.visit_list(x, inner, fname, ind + "    ")
            return [*pre, f"{ind}if ({cond}) {{", f"{ind}    h.word(1);", *body, f"{ind}}} else {{",
                    f"{ind}    h.word(0);", f"{ind}}}"]
        if isinstance(t, Prim):
            if t.kind == "str":
                return [f"{ind}c.str(t.{a}InByteBuffer(c.view()), h);"]
            return [f"{ind}{fold_prim(t.kind, f't.{a}()')}"]
        if isinstance(t, Enum):
            return [f'{ind}h.word(FlatIn.ordinal(t.{a}(), {len(t.symbols)}, "{where}"));']
        if isinstance(t, Struct):
            return [f'{ind}visit(FlatIn.required(t.{a}(), "{where}"), h, c);']
        w = self.fresh("w")
        return [f"{ind}{self.vector_type(t)} {w} = t.{a}Vector();",
                *self.visit_list(w, t, fname, ind)]

    def source(self) -> list[str]:
        s = self.struct
        table, model = f"serbench.fb.{s.name}", f"serbench.model.{s.name}"
        L = self.put()
        L += [f"    public static {model} take({table} t, FlatIn c) {{", "        c.enter();",
              f"        {model} v = new {model}();"]
        for f, t in s.fields:
            L += self.take(f, t, "        ")
        L += ["        c.exit();", "        return v;", "    }", "",
              f"    public static void visit({table} t, Hasher h, FlatIn c) {{", "        c.enter();"]
        for f, t in s.fields:
            L += self.visit(f, t, "        ")
        L += ["        c.exit();", "    }", ""]
        return L


def flat_source() -> str:
    L = [HEADER, f"package {PACKAGE};", "", "import com.google.flatbuffers.FlatBufferBuilder;",
         "import serbench.Hasher;", "",
         "/** Model classes <-> flatc's table classes (the fbs schemas), field by field. */",
         "public final class FlatConvert {", "    private FlatConvert() {}", "",
         *enum_arrays(), "",
         "    /** The binding of a model id, or null when the model has no table. */",
         "    public static FlatRoot<?, ?> root(String model) {", "        switch (model) {"]
    for model, (root, _) in MODEL_ROOTS.items():
        L += [f'            case "{model}":',
              f"                return new FlatRoot<>(serbench.model.{root}.class, "
              f"serbench.fb.{root}::getRootAs{root},",
              f"                    FlatConvert::put, FlatConvert::take, FlatConvert::visit);"]
    L += ["            default:", "                return null;", "        }", "    }", ""]
    for s in STRUCTS.values():
        L += Flat(s).source()
    L[-1] = "}"
    return "\n".join(L) + "\n"


def narrowing(t: Prim, boxed: bool) -> str:
    """The cast of an Avro int to a model's byte or short: an element of a list is an Integer,
    unboxed first (a getter's int is not: javac warns of the redundant cast)."""
    if t.kind not in ("i8", "i16"):
        return ""
    return f"({PRIM[t.kind]}) (int) " if boxed else f"({PRIM[t.kind]}) "


def avro_camel(fname: str) -> str:
    """The avro SpecificCompiler's accessor suffix (a Java keyword gets a trailing `$`)."""
    return camel(fname) + ("$" if fname in ("protected",) else "")


class Avro(Emitter):
    """avro specific records: the avro-maven-plugin's classes, set and read by their accessors."""

    BOXED = {"i8": "Integer", "i16": "Integer", "i32": "Integer", "i64": "Long", "f64": "Double",
             "bool": "Boolean", "str": "String"}

    def rtype(self, t) -> str:
        """The record class's Java type of a value (lists are java.util.List of boxed values)."""
        t = resolve(t)
        if isinstance(t, Prim):
            return self.BOXED[t.kind]
        if isinstance(t, ListOf):
            return f"java.util.List<{self.rtype(t.inner)}>"
        if isinstance(t, Struct):
            return f"serbench.avro.{t.name}"
        raise ValueError(t)

    def put_value(self, e: str, t, ind: str) -> tuple[list[str], str]:
        """Lines computing the record value of model value `e`, and that value."""
        t = resolve(t)
        if isinstance(t, Prim):
            return [], e
        if isinstance(t, Struct):
            return [], f"put({e})"
        if isinstance(t, Enum):
            return [], f"{enum_array('AVRO_' + self.struct.name, '')}[{e}.ordinal()]"
        inner = resolve(t.inner)
        lst, x = self.fresh("l"), self.fresh("x")
        lines, value = self.put_value(x, inner, ind + "    ")
        return [f"{ind}{self.rtype(t)} {lst} = new java.util.ArrayList<>({e}.length);",
                f"{ind}for ({jtype(inner)} {x} : {e}) {{", *lines, f"{ind}    {lst}.add({value});",
                f"{ind}}}"], lst

    def put(self, fname: str, t, ind: str) -> list[str]:
        e, c = f"v.{field_name(fname)}", avro_camel(fname)
        t = resolve(t)
        if isinstance(t, Opt):
            inner = resolve(t.inner)
            if isinstance(inner, Prim):
                return [f"{ind}r.set{c}({e});"]
            lines, value = self.put_value(e, inner, ind + "    ")
            return [f"{ind}if ({e} != null) {{", *lines, f"{ind}    r.set{c}({value});", f"{ind}}}"]
        lines, value = self.put_value(e, t, ind)
        return [*lines, f"{ind}r.set{c}({value});"]

    def take_value(self, target: str, x: str, t, ind: str, boxed: bool = False) -> list[str]:
        t = resolve(t)
        if isinstance(t, Prim):
            return [f"{ind}{target} = {narrowing(t, boxed)}{x};"]
        if isinstance(t, Struct):
            return [f"{ind}{target} = take({x});"]
        if isinstance(t, Enum):
            return [f"{ind}{target} = {enum_array(self.struct.name, '')}[{x}.ordinal()];"]
        inner = resolve(t.inner)
        lst, n, a, i = self.fresh("l"), self.fresh("n"), self.fresh("a"), self.fresh("i")
        base, dims = jtype(inner), ""
        while base.endswith("[]"):
            base, dims = base[:-2], dims + "[]"
        return [f"{ind}{self.rtype(t)} {lst} = {x};", f"{ind}int {n} = {lst}.size();",
                f"{ind}{jtype(t)} {a} = new {base}[{n}]{dims};",
                f"{ind}for (int {i} = 0; {i} < {n}; {i}++) {{",
                *self.take_value(f"{a}[{i}]", f"{lst}.get({i})", inner, ind + "    ", True),
                f"{ind}}}",
                f"{ind}{target} = {a};"]

    def take(self, fname: str, t, ind: str) -> list[str]:
        target, c = f"v.{field_name(fname)}", avro_camel(fname)
        t = resolve(t)
        if isinstance(t, Opt):
            inner = resolve(t.inner)
            if isinstance(inner, Prim):
                return [f"{ind}{target} = r.get{c}();"]
            x = self.fresh("o")
            return [f"{ind}{self.rtype(inner)} {x} = r.get{c}();", f"{ind}if ({x} != null) {{",
                    *self.take_value(target, x, inner, ind + "    "), f"{ind}}}"]
        return self.take_value(target, f"r.get{c}()", t, ind)

    def visit_value(self, x: str, t, ind: str, boxed: bool = False) -> list[str]:
        t = resolve(t)
        if isinstance(t, Prim):
            return [f"{ind}{fold_prim(t.kind, narrowing(t, boxed) + x)}"]
        if isinstance(t, Struct):
            return [f"{ind}visit({x}, h);"]
        if isinstance(t, Enum):
            return [f"{ind}h.word({x}.ordinal());"]
        inner = resolve(t.inner)
        lst, n, i = self.fresh("l"), self.fresh("n"), self.fresh("i")
        return [f"{ind}{self.rtype(t)} {lst} = {x};", f"{ind}int {n} = {lst}.size();",
                f"{ind}h.word({n});", f"{ind}for (int {i} = 0; {i} < {n}; {i}++) {{",
                *self.visit_value(f"{lst}.get({i})", inner, ind + "    ", True), f"{ind}}}"]

    def visit(self, fname: str, t, ind: str) -> list[str]:
        c = avro_camel(fname)
        t = resolve(t)
        if isinstance(t, Opt):
            inner = resolve(t.inner)
            x = self.fresh("o")
            return [f"{ind}{self.rtype(inner)} {x} = r.get{c}();", f"{ind}if ({x} == null) {{",
                    f"{ind}    h.word(0);", f"{ind}}} else {{", f"{ind}    h.word(1);",
                    *self.visit_value(x, inner, ind + "    "), f"{ind}}}"]
        return self.visit_value(f"r.get{c}()", t, ind)

    def source(self) -> list[str]:
        s = self.struct
        model, rec = f"serbench.model.{s.name}", f"serbench.avro.{s.name}"
        L = [f"    public static {rec} put({model} v) {{", f"        {rec} r = new {rec}();"]
        for f, t in s.fields:
            L += self.put(f, t, "        ")
        L += ["        return r;", "    }", "",
              f"    public static {model} take({rec} r) {{", f"        {model} v = new {model}();"]
        for f, t in s.fields:
            L += self.take(f, t, "        ")
        L += ["        return v;", "    }", "", f"    public static void visit({rec} r, Hasher h) {{"]
        for f, t in s.fields:
            L += self.visit(f, t, "        ")
        L += ["    }", ""]
        return L


def avro_source() -> str:
    L = [HEADER, f"package {PACKAGE};", "", "import serbench.Hasher;", "",
         "/** Model classes <-> the avro specific records of the avro schema, field by field. */",
         "public final class AvroConvert {", "    private AvroConvert() {}", ""]
    for name, s in STRUCTS.items():
        for f, t in s.fields:
            if isinstance(t, Enum):
                enum = f"serbench.model.{name}{camel(f)}"
                avro_enum = f"serbench.avro.{name}{camel(f)}"
                L.append(f"    private static final {enum}[] {enum_array(name, '')} = {enum}.values();")
                L.append(f"    private static final {avro_enum}[] {enum_array('AVRO_' + name, '')} = "
                         f"{avro_enum}.values();")
    classes = []
    for name, s in STRUCTS.items():
        classes.append(f"serbench.avro.{name}.class")
        classes += [f"serbench.avro.{name}{camel(f)}.class" for f, t in s.fields if isinstance(t, Enum)]
    L += ["", "    /** Every record and enum class, which avro must be told to trust. */",
          "    public static final java.util.List<Class<?>> CLASSES = java.util.List.of(",
          "        " + ",\n        ".join(classes) + ");"]
    L += ["", "    /** The binding of a model id, or null when the model has no record. */",
          "    public static AvroRoot<?, ?> root(String model) {", "        switch (model) {"]
    for model, (root, _) in MODEL_ROOTS.items():
        L += [f'            case "{model}":',
              f"                return new AvroRoot<>(serbench.model.{root}.class, "
              f"serbench.avro.{root}.class,",
              f"                    AvroConvert::put, AvroConvert::take, AvroConvert::visit);"]
    L += ["            default:", "                return null;", "        }", "    }", ""]
    for s in STRUCTS.values():
        L += Avro(s).source()
    L[-1] = "}"
    return "\n".join(L) + "\n"


class MsgpackArrays(Emitter):
    """`msgpack_arrays` (PROTOCOL.md 8.2.1): msgpack-core's packer and MsgpackIn's strict reads,
    every struct an array of its fields in schema order, nil for an absent optional."""

    PACK = {"i8": "packByte", "i16": "packShort", "i32": "packInt", "i64": "packLong",
            "f64": "packDouble", "bool": "packBoolean", "str": "packString"}
    READ = {"i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64", "f64": "f64", "bool": "flag",
            "str": "str"}

    def enum(self, fname: str) -> str:
        return f"serbench.model.{self.struct.name}{camel(fname)}"

    def put_value(self, e: str, t, fname: str, ind: str) -> list[str]:
        t = resolve(t)
        if isinstance(t, Prim):
            return [f"{ind}p.{self.PACK[t.kind]}({e});"]
        if isinstance(t, Enum):
            return [f"{ind}p.packString({e}.name());"]
        if isinstance(t, Struct):
            return [f"{ind}put({e}, p);"]
        inner, x = resolve(t.inner), self.fresh("x")
        return [f"{ind}p.packArrayHeader({e}.length);", f"{ind}for ({jtype(inner)} {x} : {e}) {{",
                *self.put_value(x, inner, fname, ind + "    "), f"{ind}}}"]

    def put(self, fname: str, t, ind: str) -> list[str]:
        e = f"v.{field_name(fname)}"
        if isinstance(t, Opt):
            return [f"{ind}if ({e} == null) {{", f"{ind}    p.packNil();", f"{ind}}} else {{",
                    *self.put_value(e, t.inner, fname, ind + "    "), f"{ind}}}"]
        return self.put_value(e, t, fname, ind)

    def take_value(self, target: str, t, fname: str, ind: str) -> list[str]:
        t = resolve(t)
        if isinstance(t, Prim):
            return [f"{ind}{target} = in.{self.READ[t.kind]}();"]
        if isinstance(t, Enum):
            values = enum_array(self.struct.name, fname)
            return [f"{ind}{target} = {values}[in.symbol({values}_NAMES)];"]
        if isinstance(t, Struct):
            return [f"{ind}{target} = take{t.name}(in);"]
        inner = resolve(t.inner)
        n, a, i = self.fresh("n"), self.fresh("a"), self.fresh("i")
        base, dims = jtype(inner), ""
        while base.endswith("[]"):
            base, dims = base[:-2], dims + "[]"
        return [f"{ind}int {n} = in.count();", f"{ind}{jtype(t)} {a} = new {base}[{n}]{dims};",
                f"{ind}for (int {i} = 0; {i} < {n}; {i}++) {{",
                *self.take_value(f"{a}[{i}]", inner, fname, ind + "    "), f"{ind}}}",
                f"{ind}{target} = {a};"]

    def take(self, fname: str, t, ind: str) -> list[str]:
        target = f"v.{field_name(fname)}"
        if not isinstance(t, Opt):
            return self.take_value(target, t, fname, ind)
        inner = resolve(t.inner)
        lines = self.take_value(target, inner, fname, ind + "    ")
        if isinstance(inner, Struct) and inner.name == self.struct.name:
            # the recursion the input controls: one counted level deeper
            lines = [f"{ind}    in.enter();", *lines, f"{ind}    in.leave();"]
        return [f"{ind}if (!in.nil()) {{", *lines, f"{ind}}}"]

    def source(self) -> list[str]:
        s = self.struct
        model, n = f"serbench.model.{s.name}", len(s.fields)
        L = [f"    public static void put({model} v, MessagePacker p) throws IOException {{",
             f"        p.packArrayHeader({n});"]
        for f, t in s.fields:
            L += self.put(f, t, "        ")
        L += ["    }", "", f"    public static {model} take{s.name}(MsgpackIn in) throws IOException {{",
              f'        in.fields({n}, "{s.name}");', f"        {model} v = new {model}();"]
        for f, t in s.fields:
            L += self.take(f, t, "        ")
        L += ["        return v;", "    }", ""]
        return L


def msgpack_arrays_source() -> str:
    L = [HEADER, f"package {PACKAGE};", "", "import java.io.IOException;",
         "import org.msgpack.core.MessagePacker;", "",
         "/** Model classes <-> msgpack_arrays (PROTOCOL.md 8.2.1), field by field. */",
         "public final class MsgpackArraysConvert {", "    private MsgpackArraysConvert() {}", ""]
    for name, s in STRUCTS.items():
        for f, t in s.fields:
            if isinstance(t, Enum):
                enum, values = f"serbench.model.{name}{camel(f)}", enum_array(name, f)
                symbols = ", ".join(f'"{x}"' for x in t.symbols)
                L += [f"    private static final {enum}[] {values} = {enum}.values();",
                      f"    private static final String[] {values}_NAMES = {{{symbols}}};", ""]
    L += ["    /** The writer and reader of a model id's root struct. */",
          "    public static MsgpackIn.Root<?> root(String model) {", "        switch (model) {"]
    for model, (root, _) in MODEL_ROOTS.items():
        L += [f'            case "{model}":',
              f"                return new MsgpackIn.Root<serbench.model.{root}>("
              f"MsgpackArraysConvert::put,",
              f"                    MsgpackArraysConvert::take{root});"]
    L += ["            default:", "                return null;", "        }", "    }", ""]
    for s in STRUCTS.values():
        L += MsgpackArrays(s).source()
    L[-1] = "}"
    return "\n".join(L) + "\n"


def with_imports(source: str) -> str:
    """A converter's source with the imports of the hand-written classes it calls, sorted
    in among its own (after the header and package lines)."""
    lines = source.split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("import "))
    last = max(i for i, line in enumerate(lines) if line.startswith("import "))
    imports = sorted(lines[first:last + 1] + [f"import {c};" for c in used(source, RUNTIME)])
    return "\n".join(lines[:first] + imports + lines[last + 1:])


def sources() -> dict[str, str]:
    return {name: with_imports(source()) for name, source in (
        ("ProtoConvert.java", proto_source), ("FlatConvert.java", flat_source),
        ("AvroConvert.java", avro_source), ("MsgpackArraysConvert.java", msgpack_arrays_source))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the root of the generated Java sources")
    write_package(parser.parse_args().out, PACKAGE, sources())
    return 0


if __name__ == "__main__":
    sys.exit(main())
