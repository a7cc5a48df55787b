"""The reference checksum against hand-computed words, and the golden vectors' staleness."""
import json
import struct

import pytest

from serbench.models import golden
from serbench.models.checksum import (MASK, SEED, DataError, hex64, object_hash, sequence_checksum,
                                      set_checksum, step, str_words)
from serbench.models import MODELS
from serbench.paths import REPO


def fold(words):
    h = SEED
    for w in words:
        h = step(h, w)
    return h


def test_step_is_fnv1a_64_on_bytes():
    # with byte-sized words the fold is exactly FNV-1a 64; "a" hashes to a published value
    assert fold([ord("a")]) == 0xAF63DC4C8601EC8C


def test_string_words_chunk_little_endian_zero_padded():
    assert str_words("") == [0]
    assert str_words("ab") == [2, 0x6261]
    assert str_words("12345678") == [8, int.from_bytes(b"12345678", "little")]
    assert str_words("123456789") == [9, int.from_bytes(b"12345678", "little"), ord("9")]
    assert str_words("é") == [2, 0xA9C3]  # UTF-8 bytes, not code points


def test_arrays_by_hand():
    words = [2, 2, 0x6261, 0, 2, 0, (-1) & MASK]  # strings ["ab", ""], ints [0, -1]
    assert object_hash("arrays", {"strings": ["ab", ""], "ints": [0, -1]}) == fold(words)


def test_trade_by_hand_covers_bool_f64_and_sign_extension():
    obj = {"source_id": -2, "special": True, "order_code": 5, "priority": -1,
           "prices": [0.1], "quantities": []}
    bits = struct.unpack("<Q", struct.pack("<d", 0.1))[0]
    words = [(-2) & MASK, 1, 5, MASK, 1, bits, 0]
    assert object_hash("trade", obj) == fold(words)


def test_optional_absent_null_and_present():
    base = dict(golden.TWEET_PLAIN)
    with_null = dict(base, lang=None)
    assert object_hash("tweet", base) == object_hash("tweet", with_null)
    assert object_hash("tweet", base) != object_hash("tweet", dict(base, lang=""))


def test_enum_is_ordinal():
    org = {"name": "", "category": "", "country": "", "type": "BAR", "attributes": []}
    assert object_hash("org", org) == fold([0, 0, 0, 1, 0])


def test_integral_json_number_reads_as_f64():
    part = dict(golden.PART, retailprice=901)
    assert object_hash("part", part) == object_hash("part", golden.PART)


def test_set_checksum_is_order_free_and_wraps():
    assert set_checksum([MASK, 2]) == (2, 1)
    assert set_checksum([1, 2, 3]) == set_checksum([3, 1, 2])


def test_sequence_checksum_depends_on_order():
    assert sequence_checksum([1, 2]) == fold([1, 2])
    assert sequence_checksum([1, 2]) != sequence_checksum([2, 1])


@pytest.mark.parametrize("obj, path, words", [
    ({"strings": ["a"]}, "ints", "missing required field"),
    ({"strings": "a", "ints": []}, "strings", "expected list"),
    ({"strings": [], "ints": [2**31]}, "ints[0]", "out of range for i32"),
    ({"strings": [], "ints": [True]}, "ints[0]", "expected i32, got bool"),
    ({"strings": [], "ints": [], "extra": 1}, "extra", "unknown field"),
    ([], "", "expected Arrays object"),
])
def test_validation_names_the_field(obj, path, words):
    with pytest.raises(DataError) as err:
        object_hash("arrays", obj)
    assert err.value.path == path
    assert words in str(err.value)


def test_nested_error_path():
    customer = json.loads(json.dumps(golden.CASES["customer"][1][1]))
    del customer["orders"][1]["clerk"]
    with pytest.raises(DataError) as err:
        object_hash("customer", customer)
    assert err.value.path == "orders[1].clerk"


def test_i8_range_and_nan_refused():
    attr = dict(golden.ATTR, quantity=128)
    org = {"name": "", "category": "", "country": "", "type": "FOO", "attributes": [attr]}
    with pytest.raises(DataError, match="attributes\\[0\\].quantity: 128 out of range for i8"):
        object_hash("org", org)
    with pytest.raises(DataError, match="finite"):
        object_hash("part", dict(golden.PART, retailprice=float("nan")))


def test_golden_vectors_cover_every_model_and_are_not_stale():
    for model in MODELS:
        lines, expected = golden.render(model)
        assert (REPO / "vectors" / f"{model}.jsonl").read_text(encoding="utf-8") == lines, \
            f"vectors/{model}.jsonl is stale: run `serbench vectors`"
        assert (REPO / "vectors" / f"{model}.expected.json").read_text() == expected
        assert len(golden.CASES[model]) >= 2


def test_golden_vectors_rehash_from_their_json_text():
    for model in MODELS:
        exp = json.loads((REPO / "vectors" / f"{model}.expected.json").read_text())
        lines = (REPO / "vectors" / f"{model}.jsonl").read_text(encoding="utf-8").splitlines()
        got = [hex64(object_hash(model, json.loads(line))) for line in lines]
        assert got == [o["hash"] for o in exp["objects"]]
        assert len(set(got)) == len(got), "golden cases must be distinct objects"


def test_golden_tweets_recurse_two_levels():
    from serbench.models import tweet_kind
    kinds = {tweet_kind(t) for _, t in golden.CASES["tweet"]}
    assert kinds == {"plain", "retweet", "quote", "retweet_of_quote"}
