"""Golden vectors: a handful of canonical objects per model with their expected hashes.

They cover what drivers get wrong: absent optionals, empty lists, non-ASCII strings,
negative and extreme numbers, strings whose length is and is not a multiple of 8, and tweets
recursive two levels deep. `serbench vectors` writes them to `vectors/`; a test fails when the
committed files differ from what this module produces, and every driver tests against them.
"""
from __future__ import annotations

import json
from pathlib import Path

from . import MODELS
from .checksum import hex64, object_hash, sequence_checksum, set_checksum


I32_MIN, I32_MAX = -(2**31), 2**31 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1
F64_MAX = 1.7976931348623157e308
F64_TINY = 5e-324  # smallest subnormal

PART_MIN = {
    "partkey": 1, "name": "", "mfgr": "", "brand": "", "type": "", "size": 0, "container": "",
    "retailprice": 0.0, "comment": "",
}
PART = {
    "partkey": 155190, "name": "slate lavender tan lime steel", "mfgr": "Manufacturer#1",
    "brand": "Brand#13", "type": "PROMO BURNISHED COPPER", "size": 7, "container": "JUMBO PKG",
    "retailprice": 901.0, "comment": "ly. slyly ironi",
}
PART_EXTREME = {
    "partkey": I32_MAX, "name": "Ünïcødé — 部品 🚀", "mfgr": "12345678", "brand": "1234567",
    "type": "123456789", "size": I32_MIN, "container": "\"quoted\"\\slash\n",
    "retailprice": -0.0, "comment": "x" * 300,
}
PART_NEG = dict(PART_MIN, partkey=-7, size=-1, retailprice=-1e-300, name="a")
SUPPLIER = {
    "suppkey": 7706, "name": "Supplier#000007706", "address": "BlHq75VoMNCoU380SGiS9fTWbGpeI",
    "nationkey": 17, "phone": "27-147-574-9335", "acctbal": 9007199254740993.0,
    "comment": "carefully pending packages haggle",
}
LINEITEM = {
    "orderkey": 1, "part": PART, "supplier": SUPPLIER, "linenumber": 1, "quantity": 17.0,
    "extendedprice": 21168.23, "discount": 0.04, "tax": 0.02, "returnflag": "N",
    "linestatus": "O", "shipdate": "1996-03-13", "commitdate": "1996-02-12",
    "receiptdate": "1996-03-22", "shipinstruct": "DELIVER IN PERSON", "shipmode": "TRUCK",
    "comment": "egular courts above the",
}
LINEITEM_EXTREME = dict(
    LINEITEM, orderkey=I32_MIN, part=PART_EXTREME, linenumber=I32_MAX, quantity=F64_MAX,
    extendedprice=F64_TINY, discount=-F64_MAX, tax=0.1, comment="ß",
)
ORDER = {
    "orderkey": 1, "custkey": 370, "orderstatus": "O", "totalprice": 172799.49,
    "orderdate": "1996-01-02", "orderpriority": "5-LOW", "clerk": "Clerk#000000951",
    "shippriority": 0, "comment": "nstructions sleep furiously among ",
    "lineitems": [LINEITEM, dict(LINEITEM, linenumber=2, part=PART_MIN)],
}
ORDER_EMPTY = dict(ORDER, orderkey=3, lineitems=[], comment="")
CUSTOMER_BASE = {
    "custkey": 370, "name": "Customer#000000370", "address": "oyAPndV IN",
    "nationkey": 12, "phone": "22-524-280-8721", "acctbal": 8982.79, "mktsegment": "FURNITURE",
    "comment": "ccounts. furiously final",
}

USER = {
    "id": 6253282, "id_str": "6253282", "name": "Twitter API", "screen_name": "twitterapi",
    "protected": False, "verified": True, "followers_count": 1, "friends_count": 2,
    "listed_count": 3, "favourites_count": 4, "statuses_count": 5,
    "created_at": "Wed May 23 06:01:13 +0000 2007", "geo_enabled": True,
    "contributors_enabled": False, "is_translator": False,
    "profile_background_color": "C0DEED", "profile_background_tile": False,
    "profile_image_url": "http://a0.twimg.com/p.png", "profile_image_url_https":
    "https://a0.twimg.com/p.png", "profile_link_color": "0084B4",
    "profile_sidebar_border_color": "C0DEED", "profile_sidebar_fill_color": "DDEEF6",
    "profile_text_color": "333333", "profile_use_background_image": True,
    "default_profile": True, "default_profile_image": False,
}
USER_FULL = dict(
    USER, id=I64_MAX, id_str=str(I64_MAX), location="東京", url="https://dev.twitter.com",
    description="The Real Twitter API. 🐦", utc_offset=-28800, time_zone="Pacific Time",
    lang="ja", profile_background_image_url="http://a0.twimg.com/bg.png",
    profile_background_image_url_https="https://a0.twimg.com/bg.png",
    profile_banner_url="https://pbs.twimg.com/b", following=False, follow_request_sent=True,
    notifications=False,
)
SIZE = {"w": 150, "h": 150, "resize": "crop"}
MEDIA = {
    "id": 266031293949698048, "id_str": "266031293949698048", "indices": [17, 37],
    "media_url": "http://pbs.twimg.com/media/A7EiDWcCYAAZT1D.jpg",
    "media_url_https": "https://pbs.twimg.com/media/A7EiDWcCYAAZT1D.jpg",
    "url": "http://t.co/bAJE6Vom", "display_url": "pic.twitter.com/bAJE6Vom",
    "expanded_url": "http://twitter.com/BarackObama/status/266031293945503744/photo/1",
    "type": "photo",
    "sizes": {"thumb": SIZE, "small": dict(SIZE, w=340, h=226, resize="fit"),
              "medium": dict(SIZE, w=600, h=399, resize="fit"),
              "large": dict(SIZE, w=800, h=532, resize="fit")},
    "source_status_id": -1, "source_status_id_str": "-1",
}
ENTITIES_EMPTY = {"hashtags": [], "symbols": [], "urls": [], "user_mentions": []}
ENTITIES = {
    "hashtags": [{"text": "café", "indices": [0, 5]}],
    "symbols": [{"text": "TWTR", "indices": [6, 11]}],
    "urls": [{"url": "https://t.co/x", "indices": [12, 20]},
             {"url": "https://t.co/y", "expanded_url": "https://example.com/y",
              "display_url": "example.com/y", "indices": []}],
    "user_mentions": [{"screen_name": "a", "name": "Ä", "id": I64_MIN, "id_str": str(I64_MIN),
                       "indices": [21, 23]}],
    "media": [MEDIA],
}
PLACE = {
    "id": "01a9a39529b27f36", "url": "https://api.twitter.com/1.1/geo/id/01a9.json",
    "place_type": "city", "name": "Manhattan", "full_name": "Manhattan, NY",
    "country_code": "US", "country": "United States",
    "bounding_box": {"type": "Polygon", "coordinates": [[[-74.026675, 40.683935],
                                                          [-73.910408, 40.877483]], []]},
}
PLACE_WITHOUT_BOX = {k: v for k, v in PLACE.items() if k != "bounding_box"}
TWEET_PLAIN = {
    "created_at": "Sun Aug 31 00:29:15 +0000 2014", "id": 505874924095815681,
    "id_str": "505874924095815681", "text": "", "source": "web", "truncated": False,
    "user": USER, "is_quote_status": False, "retweet_count": 0, "favorite_count": 0,
    "entities": ENTITIES_EMPTY, "favorited": False, "retweeted": False,
}
TWEET_QUOTE = dict(
    TWEET_PLAIN, id=2, id_str="2", text="#café $TWTR https://t.co/x @a ✓",
    in_reply_to_status_id=-5, in_reply_to_user_id=0, in_reply_to_screen_name="",
    user=USER_FULL, coordinates={"type": "Point", "coordinates": [-73.97, 40.78]},
    place=PLACE, quoted_status_id=505874924095815681, is_quote_status=True,
    quoted_status=TWEET_PLAIN, quote_count=I32_MAX, reply_count=0, retweet_count=I32_MIN,
    entities=ENTITIES, extended_entities={"media": [MEDIA]}, possibly_sensitive=False,
    filter_level="low", lang="und", display_text_range=[0, 30],
)
TWEET_RETWEET = dict(TWEET_PLAIN, id=3, id_str="3", text="RT @twitterapi: ",
                     retweeted_status=TWEET_PLAIN, retweeted=True, display_text_range=[])
TWEET_RETWEET_OF_QUOTE = dict(TWEET_PLAIN, id=-4, id_str="-4", retweeted_status=TWEET_QUOTE,
                              lang="en", place=PLACE_WITHOUT_BOX)

ATTR = {"id": "attr-1", "quantity": 127, "amount": -128, "active": True, "percent": 12.5,
        "size": -32768}

CASES: dict[str, list[tuple[str, dict]]] = {
    "part": [("typical", PART), ("empty_strings", PART_MIN), ("extremes_unicode", PART_EXTREME),
             ("negatives", PART_NEG)],
    "lineitem": [("typical", LINEITEM), ("extremes", LINEITEM_EXTREME)],
    "customer": [
        ("no_orders", dict(CUSTOMER_BASE, orders=[])),
        ("two_orders", dict(CUSTOMER_BASE, orders=[ORDER, ORDER_EMPTY])),
        ("unicode", dict(CUSTOMER_BASE, custkey=I32_MIN, name="Kunde Ø 顧客", acctbal=-999.99,
                         orders=[ORDER_EMPTY])),
    ],
    "tweet": [("plain_minimal", TWEET_PLAIN), ("quote_full", TWEET_QUOTE),
              ("retweet", TWEET_RETWEET), ("retweet_of_quote", TWEET_RETWEET_OF_QUOTE)],
    "sparse": [
        ("empty", {"dimension": 0, "entries": []}),
        ("typical", {"dimension": 100000000, "entries": [
            {"position": 0, "value": 1.5}, {"position": 17, "value": -0.0},
            {"position": 99999999, "value": -3.25e-7}]}),
        ("extremes", {"dimension": I64_MAX, "entries": [
            {"position": I64_MIN, "value": F64_MAX}, {"position": I64_MAX, "value": F64_TINY}]}),
    ],
    "trade": [
        ("reference", {"source_id": 1, "special": True, "order_code": 7, "priority": 3,
                       "prices": [i / 10 for i in range(1, 11)],
                       "quantities": list(range(1, 11))}),
        ("empty_arrays", {"source_id": I64_MIN, "special": False, "order_code": I32_MAX,
                          "priority": -1, "prices": [], "quantities": []}),
    ],
    "org": [
        ("no_attributes", {"name": "", "category": "", "country": "", "type": "FOO",
                           "attributes": []}),
        ("typical", {"name": "Acme Ltd", "category": "retail", "country": "Österreich",
                     "type": "BAZ", "attributes": [ATTR, dict(ATTR, id="attr-2", quantity=0,
                                                              amount=1, active=False,
                                                              percent=-0.0, size=32767)]}),
    ],
    "arrays": [
        ("empty", {"strings": [], "ints": []}),
        ("k3", {"strings": ["Dummy text"] * 3, "ints": [0] * 3}),
        ("mixed", {"strings": ["", "12345678", "é"], "ints": [I32_MIN, -1, I32_MAX]}),
    ],
}


def dump(obj: dict) -> str:
    """Canonical JSON text: compact, UTF-8, keys in canonical (insertion) order."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def expected(model: str) -> dict:
    hashes = [object_hash(model, obj) for _, obj in CASES[model]]
    count, total = set_checksum(hashes)
    return {
        "model": model,
        "objects": [{"line": i + 1, "name": name, "hash": hex64(h)}
                    for i, ((name, _), h) in enumerate(zip(CASES[model], hashes))],
        "set_checksum": {"count": count, "sum": hex64(total)},
        "sequence_checksum": hex64(sequence_checksum(hashes)),
    }


def render(model: str) -> tuple[str, str]:
    """(JSON Lines text, expected-hashes JSON text) for one model."""
    lines = "".join(dump(obj) + "\n" for _, obj in CASES[model])
    return lines, json.dumps(expected(model), indent=1) + "\n"


def write_vectors(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for model in MODELS:
        lines, exp = render(model)
        for suffix, text in ((".jsonl", lines), (".expected.json", exp)):
            path = directory / f"{model}{suffix}"
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written
