"""The cross-language matrix through the real drivers: every file a driver writes in a shared
format is read by every other driver to the manifest's checksum, at every depth.

The data are the golden vectors (absent optionals, empty lists, non-ASCII strings, extreme
numbers, recursive tweets), every model. Every driver must be built (`serbench build`).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from fake_driver import make_dataset
from serbench.driver import BUILD_PATHS, LANGUAGES
from serbench.runner import driver_infos
from serbench.verify import FAILED, OK, verify

MODELS = ("part", "lineitem", "customer", "tweet", "sparse", "trade", "org", "arrays")

# The shared formats each driver must offer (issues 4-6); the matrix covers every pair.
REQUIRED = {
    "rust": {"handcoded", "json", "json_gzip", "bson", "msgpack", "protobuf", "flatbuffers",
             "capnp"},
    "cpp": {"handcoded", "json", "json_gzip", "bson", "msgpack", "protobuf", "flatbuffers",
            "capnp"},
    "java": {"handcoded", "json", "json_gzip", "bson", "msgpack", "protobuf", "flatbuffers"},
}
SHARED = sorted(set().union(*REQUIRED.values()))


@pytest.fixture(scope="module")
def checks(tmp_path_factory) -> list:
    missing = [str(path) for path in BUILD_PATHS.values() if not path.is_file()]
    if missing:
        pytest.fail(f"drivers not built: {', '.join(missing)}; run `serbench build`")
    data = make_dataset(tmp_path_factory.mktemp("golden"), models=MODELS, copies=2)
    paths = {language: BUILD_PATHS[language] for language in LANGUAGES}
    return verify(paths, driver_infos(paths), data, timeout_s=120, methods=tuple(SHARED))


def test_every_driver_offers_its_shared_formats_for_every_model():
    infos = driver_infos({language: BUILD_PATHS[language] for language in LANGUAGES})
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
    offering = [language for language, methods in REQUIRED.items() if method in methods]
    for model in MODELS:
        for producer in offering:
            for consumer in offering:
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
