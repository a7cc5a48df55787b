"""How a model's names become code: every generator (the drivers' types, the schemas) names a
field, a struct or an enum symbol through here, so that a JSON key that is no identifier (a
space, a dash, a leading digit) or an identifier that is a keyword of some target language
is mapped once, the same way everywhere. The JSON key itself never changes: the canonical
text, the checksum and the order use it as written.
"""
from __future__ import annotations

import re

TARGETS = ("rust", "cpp", "java", "proto", "fbs", "capnp", "avro")

# the words a field or type may not be in each target (as written in its reference);
# generators add a trailing underscore, Rust writes a raw identifier where it can
KEYWORDS = {
    "rust": frozenset("""as async await break const continue crate dyn else enum extern false
        fn for gen if impl in let loop match mod move mut pub ref return self Self static
        struct super trait true try type unsafe use where while abstract become box do final
        macro override priv typeof unsized virtual yield union""".split()),
    "cpp": frozenset("""alignas alignof and and_eq asm auto bitand bitor bool break case catch
        char char8_t char16_t char32_t class compl concept const consteval constexpr constinit
        const_cast continue co_await co_return co_yield decltype default delete do double
        dynamic_cast else enum explicit export extern false float for friend goto if inline
        int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
        protected public register reinterpret_cast requires return short signed sizeof
        static static_assert static_cast struct switch template this thread_local throw true
        try typedef typeid typename union unsigned using virtual void volatile wchar_t while
        xor xor_eq final override assert errno NULL""".split()),
    "java": frozenset("""abstract assert boolean break byte case catch char class const
        continue default do double else enum extends final finally float for goto if
        implements import instanceof int interface long native new package private protected
        public return short static strictfp super switch synchronized this throw throws
        transient try void volatile while true false null var yield record sealed permits
        type""".split()),
    "proto": frozenset("""syntax import weak public package option message enum service rpc
        returns stream repeated optional required oneof map reserved extensions extend to max
        true false inf nan double float int32 int64 uint32 uint64 sint32 sint64 fixed32
        fixed64 sfixed32 sfixed64 bool string bytes group""".split()),
    "fbs": frozenset("""include namespace table struct enum union root_type file_identifier
        file_extension attribute rpc_service bool byte ubyte short ushort int uint float long
        ulong double int8 uint8 int16 uint16 int32 uint32 int64 uint64 float32 float64 string
        true false""".split()),
    "capnp": frozenset("""struct enum union group interface const annotation using import
        extends as List Void Bool Int8 Int16 Int32 Int64 UInt8 UInt16 UInt32 UInt64 Float32
        Float64 Text Data AnyPointer true false inf nan void""".split()),
    "avro": frozenset("""null boolean int long float double bytes string record enum array map
        fixed""".split()),
}
# Rust identifiers a raw `r#` cannot make
RUST_NOT_RAW = frozenset({"crate", "self", "Self", "super"})
# the type names the generated code of some target uses itself (a struct may not take one)
RESERVED_TYPES = frozenset({"String", "Vec", "Option", "Box", "Result", "Object", "Integer",
                            "Long", "Double", "Boolean", "Byte", "Short", "Float", "Character",
                            "List", "Map", "Set", "Text", "Data", "Void", "Bool", "Enum",
                            "Record", "Class", "Hasher", "Reader", "Writer"})
# the identifiers every target's generated code declares for itself beside a model's fields
RESERVED = frozenset({"fold", "visit", "put", "take", "same", "missing", "hash", "equals",
                      "to_string", "clone", "builder"})


def field_ident(key: str) -> str:
    """A JSON key as a snake_case-safe identifier, the same in every target before its
    keywords: each run of characters other than ASCII letters, digits and _ becomes one _, a
    leading digit gets an f_ before it, and an empty result is `field`."""
    ident = re.sub(r"[^A-Za-z0-9_]+", "_", key).strip("_") or "field"
    return f"f_{ident}" if ident[0].isdigit() else ident


def ident(key: str, target: str) -> str:
    """A field's identifier in `target`'s code."""
    base = field_ident(key)
    if target in ("java", "capnp"):
        head, *rest = base.split("_")
        base = head + "".join(p[:1].upper() + p[1:] for p in rest if p)
    if target == "capnp":  # lowerCamelCase, no underscore at all
        base = base[:1].lower() + base[1:]
        return f"{base}Field" if base in KEYWORDS[target] or base in RESERVED else base
    if base in KEYWORDS[target] or base in RESERVED:
        if target == "rust" and base not in RUST_NOT_RAW and base not in RESERVED:
            return f"r#{base}"
        return f"{base}_"
    return base


def symbol(name: str, target: str) -> str:
    """An enum symbol in `target`'s code (symbols are identifiers already, definition.py)."""
    return f"{name}_" if name in KEYWORDS[target] else name


def clashes(keys: list[str]) -> tuple[str, str] | None:
    """Two keys of one struct that map to the same identifier in some target, or None."""
    for target in TARGETS:
        seen: dict[str, str] = {}
        for key in keys:
            name = ident(key, target).removeprefix("r#").lower()
            if name in seen:
                return seen[name], key
            seen[name] = key
    return None
