"""The cross-language matrix through the real drivers: every file a driver writes in a shared
format is read by every other driver to the manifest's checksum, at every depth; at the
default page size and at pages smaller than most objects (objects spanning several pages,
objects moved to the next page), where the formats PROTOCOL.md fixes byte for byte must also
be the same bytes from every writer.

The data are the golden vectors (absent optionals, empty lists, non-ASCII strings, extreme
numbers, recursive tweets), every model; and a customer larger than the default page whose
Cap'n Proto message has several segments. Every driver must be built (`serbench build`).
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from conftest import built_drivers
from fake_driver import make_dataset, write_dataset
from serbench.drivers.process import LANGUAGES
from serbench.drivers.paged import extents
from serbench.run.runner import driver_infos
from serbench.run.verify import FAILED, OK, verify

MODELS = ("part", "lineitem", "customer", "tweet", "sparse", "trade", "org", "arrays")

# The shared formats each driver must offer (issues 4-6); the matrix covers every pair.
REQUIRED = {
    "rust": {"handcoded", "json", "json_gzip", "bson", "msgpack", "msgpack_arrays", "protobuf",
             "flatbuffers", "capnp"},
    "cpp": {"handcoded", "json", "json_gzip", "bson", "msgpack", "msgpack_arrays", "protobuf",
            "flatbuffers", "capnp"},
    "java": {"handcoded", "json", "json_gzip", "bson", "msgpack", "msgpack_arrays", "protobuf",
             "flatbuffers"},
}
SHARED = sorted(set().union(*REQUIRED.values()))
# PROTOCOL.md 7 and 8: written byte for byte alike in every language (json_gzip: its text)
SAME_BYTES = ("handcoded", "json", "bson", "msgpack", "msgpack_arrays")
# the golden objects are up to ~6 KB: at 512 B most span pages or move to the next one
SMALL_PAGE = 512
GZIP_HEADER = bytes.fromhex("1f8b08000000000000ff")  # no flags, MTIME 0, XFL 0, OS 255


@pytest.fixture(scope="module")
def checks(tmp_path_factory) -> list:
    paths = built_drivers()
    data = make_dataset(tmp_path_factory.mktemp("golden"), models=MODELS, copies=2)
    return verify(paths, driver_infos(paths), data, timeout_s=120, methods=tuple(SHARED))


@pytest.fixture(scope="module")
def small_pages(tmp_path_factory) -> tuple[list, Path]:
    """The shared formats' matrix at SMALL_PAGE, every producer's files kept."""
    root = tmp_path_factory.mktemp("small-pages")
    data = make_dataset(root / "data", models=MODELS, copies=2)
    paths = built_drivers()
    checks = verify(paths, driver_infos(paths), data, timeout_s=120, methods=tuple(SHARED),
                    page_size=SMALL_PAGE, files=root / "files")
    return checks, root / "files"


def objects(base: Path) -> list[bytes]:
    page_size, entries = extents(Path(f"{base}.index"))
    data = Path(f"{base}.pages").read_bytes()
    return [data[page * page_size + offset:][:length] for page, offset, length in entries]


def offering(method: str) -> list[str]:
    return [language for language, methods in REQUIRED.items() if method in methods]


def test_every_driver_offers_its_shared_formats_for_every_model():
    infos = driver_infos(built_drivers())
    for language, methods in REQUIRED.items():
        offered = infos[language]["methods"]
        for method in methods:
            assert method in offered, f"{language} has no {method}"
            assert set(MODELS) <= set(offered[method]["models"]), (language, method)


def test_nothing_in_the_matrix_fails(checks):
    failures = [c for c in checks if c.status == FAILED]
    assert not failures, "\n".join(
        f"{c.producer} -> {c.language} {c.method} {c.model} {c.step} {c.depth}: {c.message}"
        for c in failures)


@pytest.mark.parametrize("method", SHARED)
def test_every_producer_is_read_by_every_consumer(checks, method):
    assert_every_producer_read_by_every_consumer(checks, method)


def assert_every_producer_read_by_every_consumer(checks, method, models=MODELS):
    for model in models:
        for producer in offering(method):
            for consumer in offering(method):
                read = [c for c in checks if c.step == "scan" and c.method == method
                        and c.model == model and c.producer == producer
                        and c.language == consumer]
                assert read and all(c.status == OK for c in read), (
                    f"{method} {model}: {producer}'s file read by {consumer}: "
                    f"{[(c.depth, c.status, c.message) for c in read]}")


def test_every_driver_s_raw_floor_agrees_with_the_harness_on_every_file(checks):
    """The floor is the denominator of every "x raw" figure: each driver's, over every file of
    every producer, equals the harness's own fold of the objects' bytes (paged.raw_checksum)."""
    floors = [c for c in checks if c.step == "floor"]
    for language in LANGUAGES:
        mine = [c for c in floors if c.language == language]
        assert {(c.producer, c.model) for c in mine} >= {
            (producer, model) for producer in LANGUAGES for model in MODELS}
        assert all(c.status == OK for c in mine), [
            (c.producer, c.method, c.model, c.message) for c in mine if c.status != OK]


def assert_the_matrix_holds(checks, models=MODELS):
    """Nothing failed, and every shared format of every producer was read by every consumer."""
    failures = [c for c in checks if c.status == FAILED]
    assert not failures, [(c.producer, c.language, c.method, c.model, c.step, c.message)
                          for c in failures]
    for method in SHARED:
        assert_every_producer_read_by_every_consumer(checks, method, models)


def test_the_matrix_holds_with_objects_spanning_and_skipping_pages(small_pages):
    checks, files = small_pages
    assert_the_matrix_holds(checks)
    layouts = [extents(index) for index in (files / "rust" / "json").glob("*.index")]
    assert {page_size for page_size, _ in layouts} == {SMALL_PAGE}
    entries = [entry for _, listed in layouts for entry in listed]
    assert any(length > SMALL_PAGE for _, _, length in entries), "no object spans pages"
    moved = [b for _, listed in layouts for a, b in zip(listed, listed[1:])
             if a[1] + a[2] < SMALL_PAGE and b[:2] == (a[0] + 1, 0)]
    assert moved, "no object was moved to the next page"


@pytest.mark.parametrize("method", SAME_BYTES)
def test_fixed_formats_are_the_same_bytes_from_every_writer(small_pages, method):
    _, files = small_pages
    for model in MODELS:
        first, *others = offering(method)
        reference = files / first / method / model
        for language in others:
            base = files / language / method / model
            assert Path(f"{base}.pages").read_bytes() == Path(f"{reference}.pages").read_bytes(), (
                f"{method} {model}: {language}'s pages differ from {first}'s")
            assert extents(Path(f"{base}.index")) == extents(Path(f"{reference}.index"))


def test_json_gzip_stores_the_json_text_in_one_member_with_the_fixed_header(small_pages):
    _, files = small_pages
    for language in offering("json_gzip"):
        for model in MODELS:
            texts = objects(files / language / "json" / model)
            members = objects(files / language / "json_gzip" / model)
            assert len(members) == len(texts)
            for member, text in zip(members, texts):
                assert member[:10] == GZIP_HEADER, (language, model, member[:10].hex())
                assert gzip.decompress(member) == text, (language, model)


# Cap'n Proto: both writers build in a 64 KiB first segment (8,192 words) and take further
# segments from the heap, so a message larger than that has several segments
CAPNP_FIRST_SEGMENT = 65536


def large_customers(directory: Path) -> Path:
    """The golden customer with the most orders, its orders repeated until every encoding is
    far larger than the default page and a Cap'n Proto message needs several segments; and
    a small one after it, which a reader must find past the large one's pages."""
    vectors = Path(__file__).resolve().parents[1] / "vectors" / "customer.jsonl"
    golden = [json.loads(line) for line in vectors.read_bytes().splitlines() if line.strip()]
    small = min(golden, key=lambda c: len(json.dumps(c)))
    richest = max(golden, key=lambda c: len(c.get("orders") or []))
    orders = richest["orders"] * (400 // len(richest["orders"]) + 1)
    large = {**richest, "orders": orders}
    lines = [json.dumps(c, ensure_ascii=False, separators=(",", ":")).encode()
             for c in (large, small)]
    return write_dataset(directory, "customer", lines, {"large": True})


@pytest.fixture(scope="module")
def large(tmp_path_factory) -> tuple[list, Path]:
    root = tmp_path_factory.mktemp("large")
    data = large_customers(root / "data")
    paths = built_drivers()
    checks = verify(paths, driver_infos(paths), data, timeout_s=120, methods=tuple(SHARED),
                    files=root / "files")
    return checks, root / "files"


def segments(message: bytes) -> int:
    """A standard Cap'n Proto message's segment count (its first word: count - 1)."""
    return int.from_bytes(message[:4], "little") + 1


def test_objects_larger_than_a_page_and_multi_segment_messages_cross_languages(large):
    checks, files = large
    assert_the_matrix_holds(checks, models=("customer",))
    for language in offering("capnp"):
        base = files / language / "capnp" / "customer"
        page_size, _ = extents(Path(f"{base}.index"))
        first, second = objects(base)
        assert len(first) > max(page_size, CAPNP_FIRST_SEGMENT), len(first)
        assert segments(first) > 1 and segments(second) == 1, (language, segments(first))
