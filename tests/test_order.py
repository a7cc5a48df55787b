"""The Python reference of the models' total order (sort_dedup expectations)."""
from __future__ import annotations

import json
from pathlib import Path

from serbench.models.checksum import object_hash, sequence_checksum
from serbench.models.order import f64_key, sort_key, sorted_distinct, sorted_distinct_checksum

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def test_f64_follows_ieee_total_order():
    values = [float("-inf"), -1e300, -1.0, -5e-324, -0.0, 0.0, 5e-324, 1.0, float("inf")]
    assert sorted(values[::-1], key=f64_key) == values
    assert f64_key(-0.0) < f64_key(0.0)


def test_key_fields_first_then_every_field():
    a = {"strings": ["b"], "ints": [1]}
    b = {"strings": ["a", "z"], "ints": [2]}
    key = sort_key("arrays")  # no key fields: strings, then ints
    assert key(b) < key(a)
    assert key({"strings": ["a"], "ints": []}) < key(b), "a prefix sorts first"
    trade = json.loads((VECTORS / "trade.jsonl").read_text().splitlines()[0])
    smaller = {**trade, "source_id": trade["source_id"] - 1, "special": not trade["special"]}
    assert sort_key("trade")(smaller) < sort_key("trade")(trade)


def test_strings_compare_by_utf8_bytes_and_absent_sorts_first():
    key = sort_key("arrays")
    # U+FFFD (EF BF BD) sorts after U+10000 (F0 ...) in UTF-16 but before it in UTF-8 bytes
    assert key({"strings": ["\ufffd"], "ints": []}) < key({"strings": ["\U00010000"], "ints": []})
    tweets = [json.loads(line) for line in (VECTORS / "tweet.jsonl").read_text().splitlines()]
    plain = next(t for t in tweets if t.get("retweeted_status") is None)
    retweet = {**plain, "retweeted_status": plain}
    assert sort_key("tweet")(plain) < sort_key("tweet")(retweet)


def test_duplicates_are_dropped_once_sorted(tmp_path):
    lines = (VECTORS / "part.jsonl").read_text().splitlines()
    objects = [json.loads(line) for line in lines]
    distinct = sorted_distinct("part", objects * 3)
    assert len(distinct) == len({object_hash("part", o) for o in objects})
    keys = [sort_key("part")(o) for o in distinct]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    path = tmp_path / "part.jsonl"
    path.write_text("\n".join(lines * 3) + "\n")
    got = sorted_distinct_checksum("part", path)
    assert got["count"] == len(distinct)
    assert int(got["sum"], 16) == sequence_checksum(object_hash("part", o) for o in distinct)
