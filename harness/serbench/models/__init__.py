"""The logical data models of serbench, written once, in the notation of the brief.

Every struct is a comma-separated list of `name type` in canonical order (the order the
checksum visits and the total order compares). Types: i8 i16 i32 i64 f64 bool str, `T?`
optional, `[T]` list, `enum{A,B}` enumeration, or the name of another struct (structs may be
recursive). Everything else in the harness (checksum, validation, ordering) walks these
descriptors, so a model change is made here and nowhere else in Python.
"""
from __future__ import annotations

from dataclasses import dataclass, field


PRIMITIVES = ("i8", "i16", "i32", "i64", "f64", "bool", "str")

# The deepest a canonical object's JSON text may nest, each object and list one level
# (PROTOCOL.md 2.1). Only tweets recurse; every reader of every language takes this depth
# back, so ingest, generation and every driver's loader refuse anything deeper.
MAX_NESTING = 64

INT_RANGES = {
    "i8": (-(2**7), 2**7 - 1),
    "i16": (-(2**15), 2**15 - 1),
    "i32": (-(2**31), 2**31 - 1),
    "i64": (-(2**63), 2**63 - 1),
}


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
    """A reference to a named struct, resolved lazily so structs can be recursive."""

    name: str


Type = Prim | Opt | ListOf | Enum | Ref


@dataclass
class Struct:
    name: str
    fields: list[tuple[str, Type]] = field(default_factory=list)


STRUCT_SOURCE = {
    # TPC-H (dataset `tpch`)
    "Part": "partkey i32, name str, mfgr str, brand str, type str, size i32, container str, "
    "retailprice f64, comment str",
    "Supplier": "suppkey i32, name str, address str, nationkey i32, phone str, acctbal f64, "
    "comment str",
    "LineItem": "orderkey i32, part Part, supplier Supplier, linenumber i32, quantity f64, "
    "extendedprice f64, discount f64, tax f64, returnflag str, linestatus str, shipdate str, "
    "commitdate str, receiptdate str, shipinstruct str, shipmode str, comment str",
    "Order": "orderkey i32, custkey i32, orderstatus str, totalprice f64, orderdate str, "
    "orderpriority str, clerk str, shippriority i32, comment str, lineitems [LineItem]",
    "Customer": "custkey i32, name str, address str, nationkey i32, phone str, acctbal f64, "
    "mktsegment str, comment str, orders [Order]",
    # Twitter API v1.1 statuses (dataset `tweet`)
    "Tweet": "created_at str, id i64, id_str str, text str, source str, truncated bool, "
    "in_reply_to_status_id i64?, in_reply_to_user_id i64?, in_reply_to_screen_name str?, "
    "user User, coordinates Coordinates?, place Place?, quoted_status_id i64?, "
    "is_quote_status bool, quoted_status Tweet?, retweeted_status Tweet?, quote_count i32?, "
    "reply_count i32?, retweet_count i32, favorite_count i32, entities Entities, "
    "extended_entities ExtendedEntities?, favorited bool, retweeted bool, "
    "possibly_sensitive bool?, filter_level str?, lang str?, display_text_range [i32]?",
    "User": "id i64, id_str str, name str, screen_name str, location str?, url str?, "
    "description str?, protected bool, verified bool, followers_count i32, friends_count i32, "
    "listed_count i32, favourites_count i32, statuses_count i32, created_at str, "
    "utc_offset i32?, time_zone str?, geo_enabled bool, lang str?, contributors_enabled bool, "
    "is_translator bool, profile_background_color str, profile_background_image_url str?, "
    "profile_background_image_url_https str?, profile_background_tile bool, "
    "profile_image_url str, profile_image_url_https str, profile_banner_url str?, "
    "profile_link_color str, profile_sidebar_border_color str, profile_sidebar_fill_color str, "
    "profile_text_color str, profile_use_background_image bool, default_profile bool, "
    "default_profile_image bool, following bool?, follow_request_sent bool?, "
    "notifications bool?",
    "Entities": "hashtags [Hashtag], symbols [Hashtag], urls [Url], user_mentions [Mention], "
    "media [Media]?",
    "Hashtag": "text str, indices [i32]",
    "Url": "url str, expanded_url str?, display_url str?, indices [i32]",
    "Mention": "screen_name str, name str, id i64, id_str str, indices [i32]",
    "Media": "id i64, id_str str, indices [i32], media_url str, media_url_https str, url str, "
    "display_url str, expanded_url str, type str, sizes Sizes, source_status_id i64?, "
    "source_status_id_str str?",
    "Sizes": "thumb Size, small Size, medium Size, large Size",
    "Size": "w i32, h i32, resize str",
    "ExtendedEntities": "media [Media]",
    "Place": "id str, url str, place_type str, name str, full_name str, country_code str, "
    "country str, bounding_box BoundingBox?",
    "BoundingBox": "type str, coordinates [[[f64]]]",
    "Coordinates": "type str, coordinates [f64]",
    # Sparse vectors (dataset `sparse`)
    "SparseVector": "dimension i64, entries [Entry]",
    "Entry": "position i64, value f64",
    # Small objects from classic micro comparisons
    "Trade": "source_id i64, special bool, order_code i32, priority i32, prices [f64], "
    "quantities [i64]",
    "Org": "name str, category str, country str, type enum{FOO,BAR,BAZ}, attributes [Attr]",
    "Attr": "id str, quantity i8, amount i8, active bool, percent f64, size i16",
    "Arrays": "strings [str], ints [i32]",
}

# model id -> (root struct, key fields compared first by the model's total order)
MODEL_ROOTS = {
    "part": ("Part", ("partkey",)),
    "lineitem": ("LineItem", ("orderkey", "linenumber")),
    "customer": ("Customer", ("custkey",)),
    "tweet": ("Tweet", ("id",)),
    "sparse": ("SparseVector", ()),
    "trade": ("Trade", ("source_id",)),
    "org": ("Org", ("name",)),
    "arrays": ("Arrays", ()),
}

MODELS = tuple(MODEL_ROOTS)

# which generator family produces each model (the `serbench data` subject)
DATASET_OF_MODEL = {
    "part": "tpch",
    "lineitem": "tpch",
    "customer": "tpch",
    "tweet": "tweet",
    "sparse": "sparse",
    "trade": "trade",
    "org": "org",
    "arrays": "arrays",
}


def parse_type(text: str) -> Type:
    text = text.strip()
    if text.endswith("?"):
        return Opt(parse_type(text[:-1]))
    if text.startswith("[") and text.endswith("]"):
        return ListOf(parse_type(text[1:-1]))
    if text.startswith("enum{") and text.endswith("}"):
        return Enum(tuple(s.strip() for s in text[5:-1].split(",")))
    if text in PRIMITIVES:
        return Prim(text)
    if text in STRUCT_SOURCE:
        return Ref(text)
    raise ValueError(f"unknown type {text!r}")


def _split_fields(source: str) -> list[str]:
    # commas inside enum{...} do not separate fields
    parts, depth, current = [], 0, ""
    for ch in source:
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


def _build_structs() -> dict[str, Struct]:
    structs = {}
    for name, source in STRUCT_SOURCE.items():
        fields = []
        for item in _split_fields(source):
            fname, ftype = item.split(" ", 1)
            fields.append((fname, parse_type(ftype)))
        structs[name] = Struct(name, fields)
    return structs


STRUCTS: dict[str, Struct] = _build_structs()


def root_struct(model: str) -> Struct:
    """The root struct of a model id; raises a clear error for an unknown model."""
    if model not in MODEL_ROOTS:
        raise UnknownModel(model)
    return STRUCTS[MODEL_ROOTS[model][0]]


def resolve(t: Type) -> Type | Struct:
    return STRUCTS[t.name] if isinstance(t, Ref) else t


class UnknownModel(ValueError):
    def __init__(self, model: str):
        super().__init__(f"unknown model {model!r}; known models: {', '.join(MODELS)}")
        self.model = model


def nesting(value: object) -> int:
    """How deep a parsed JSON value nests, each object and list one level (iterative: the
    input may be hostile)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, level = stack.pop()
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else None
        if children is not None:
            deepest = max(deepest, level)
            stack.extend((c, level + 1) for c in children)
    return deepest


def tweet_kind(tweet: dict) -> str:
    """plain, retweet, quote or retweet_of_quote, as counted in the reference sample."""
    rt = tweet.get("retweeted_status")
    if rt is not None:
        return "retweet_of_quote" if rt.get("quoted_status") is not None else "retweet"
    if tweet.get("quoted_status") is not None:
        return "quote"
    return "plain"


TWEET_KIND_SHARES = {"plain": 0.333, "retweet": 0.490, "quote": 0.069, "retweet_of_quote": 0.109}
