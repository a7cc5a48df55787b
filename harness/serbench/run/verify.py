"""`serbench verify`: every driver, method and model against the dataset, and the
cross-language matrix (every producer's file read by every consumer of the same method id).

Per language × model: `load` (the driver's own JSON loading). Per language × method × model:
`roundtrip` at each depth the method offers, in its default variant and in every other variant
it lists, then `encode` to a temporary paged file which every driver offering that method reads
with `scan` at each of its depths, and every driver reads with its `raw` floor. Every checksum
must equal the dataset manifest's, the floor's the harness's own reading of the file
(paged.raw_checksum); unsupported is reported as such and is not a failure.

The network matrix (`network=True`): for every method the nodes of two or more languages
share, one model's file moved between every ordered pair of those languages, on loopback: a
fetch with decode (sender's server, receiver's client) and a sort-merge tree (sender's
leaves under the receiver's node), each checked against the dataset (network/proof.py),
sized from it: a dataset too small for any tree (fewer objects than a tree's nodes) has its
sort-merge checks `skipped`, saying why.
"""
from __future__ import annotations

import tempfile
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..cell import RAW
from ..datasets.expectations import file_hashes, mismatch
from ..datasets.manifest import DatasetError, Manifest, data_path, measurable
from ..drivers.answers import BadAnswer, checksum_of
from ..drivers.paged import PagedError, raw_checksum
from ..drivers.process import DriverFailure, DriverProcess, new_run_stamp
from ..models.checksum import hex64, set_checksum
from ..network import fetch, sort_merge
from ..network.proof import Pair, Source, prove_fetches, prove_trees, trees_impossible


OK, FAILED, UNSUPPORTED, SKIPPED = "ok", "failed", "unsupported", "skipped"
PAGE_SIZE = 262144


@dataclass(frozen=True)
class Check:
    language: str  # the driver that did the step (for scan: the consumer)
    model: str
    method: str  # "" for load
    step: str  # load | roundtrip | encode | scan | floor | net_fetch | net_sort_merge
    depth: str
    producer: str  # for scan and floor: who wrote the file; for net_*: who sent; else the
    # language itself
    status: str  # ok | failed | unsupported | skipped (the dataset cannot hold the check)
    message: str = ""
    variant: str = ""  # roundtrip: the variant checked ("" = the default)


class Drivers:
    """One long-lived serve process per language, replaced when one dies; all in one run (one
    run stamp), so each reads the files the others encoded."""

    def __init__(self, paths: dict[str, Path], timeout_s: float):
        self.paths, self.timeout_s = paths, timeout_s
        self.run_stamp = new_run_stamp()
        self.live: dict[str, DriverProcess] = {}

    def request(self, language: str, op: str, **fields) -> dict:
        driver = self.live.get(language)
        if driver is None or not driver.alive:
            driver = DriverProcess(language, self.paths[language], self.timeout_s,
                                   run_stamp=self.run_stamp).start()
            self.live[language] = driver
        return driver.request(op, **fields)

    def close(self) -> None:
        for driver in self.live.values():
            driver.close()


def verify(paths: dict[str, Path], infos: dict[str, dict], data_dir: Path, *,
           timeout_s: float = 600.0, languages: tuple[str, ...] = (),
           methods: tuple[str, ...] = (), models: tuple[str, ...] = (),
           page_size: int = PAGE_SIZE, files: Path | None = None, network: bool = False,
           on_check: Callable[[Check], None] = lambda check: None) -> list[Check]:
    """Every check; the encoded files go to `files`/<language>/<method>/<model> when given
    (kept, e.g. to compare producers' bytes), else to a temporary directory."""
    manifests = _manifests(data_dir, models)
    checks: list[Check] = []

    def add(check: Check) -> None:
        checks.append(check)
        on_check(check)

    drivers = Drivers(paths, timeout_s)
    try:
        with _work_dir(files) as tmp:
            for language in sorted(infos):
                if languages and language not in languages:
                    continue
                info = infos[language]
                for model, manifest in manifests.items():
                    if model in info["models"]:
                        add(_load(drivers, language, model, data_dir, manifest))
                for method, spec in info["methods"].items():
                    if method == RAW or (methods and method not in methods):
                        continue
                    for model, manifest in manifests.items():
                        if model in spec["models"]:
                            for check in _method_checks(drivers, infos, language, method, model,
                                                        data_dir, manifest, Path(tmp),
                                                        page_size):
                                add(check)
            if network:
                nodes = [lang for lang in _node_languages(infos)
                         if not languages or lang in languages]
                for check in _network_checks(paths, infos, nodes, data_dir, manifests,
                                             checks, methods, Path(tmp), page_size):
                    add(check)
    finally:
        drivers.close()
    return checks


def _work_dir(files: Path | None):
    if files is None:
        return tempfile.TemporaryDirectory(prefix="serbench-verify-")
    files.mkdir(parents=True, exist_ok=True)
    return nullcontext(str(files))


def _manifests(data_dir: Path, models: tuple[str, ...]) -> dict[str, Manifest]:
    """Each dataset's manifest, once its file is shown to still match it: a file changed
    since it was made is the dataset's fault, not every method's."""
    found = {}
    for path in sorted(data_dir.glob("*.manifest.json")):
        model = path.name.removesuffix(".manifest.json")
        if not models or model in models:
            found[model] = measurable(data_dir, model)
            _check_matches(data_dir, found[model])
    if not found:
        raise DatasetError(f"{data_dir}: no datasets; run `serbench data default`")
    return found


def _check_matches(data_dir: Path, manifest: Manifest) -> None:
    path = data_path(data_dir, manifest.model)
    try:
        hashes = file_hashes(data_dir, manifest.model)
    except ValueError as exc:
        raise DatasetError(f"{path}: the dataset no longer reads as {manifest.model}: {exc}; "
                           "make it again with `serbench data`") from None
    count, total = set_checksum(hashes)
    got = {"count": count, "sum": hex64(total)}
    if got != manifest.set_checksum:
        raise DatasetError(f"{path}: the file no longer matches its manifest (count "
                           f"{got['count']}, sum {got['sum']}; the manifest says "
                           f"{manifest.set_checksum['count']}, {manifest.set_checksum['sum']}): "
                           "it changed after it was made; make it again with `serbench data`")


def _ask(drivers: Drivers, language: str, op: str, expected: dict | None,
         **fields) -> tuple[str, str, dict | None]:
    """(status, message, result) of one request; its checksum compared with `expected`."""
    try:
        response = drivers.request(language, op, **fields)
    except DriverFailure as exc:
        return FAILED, str(exc), None
    if response["status"] == "unsupported":
        return UNSUPPORTED, response.get("message", ""), None
    if response["status"] == "error":
        error = response["error"]
        return FAILED, f"{error.get('kind')}: {error.get('message')}", None
    result = response["result"]
    if expected is not None:
        try:
            problem = mismatch(op, checksum_of(result), expected)
        except BadAnswer as exc:
            problem = str(exc)
        if problem:
            return FAILED, problem, result
    return OK, "", result


def _load(drivers: Drivers, language: str, model: str, data_dir: Path,
          manifest: Manifest) -> Check:
    status, message, _ = _ask(drivers, language, "load", manifest.set_checksum, model=model,
                              params={"input": str(data_path(data_dir, model))})
    return Check(language, model, "", "load", "", language, status, message)


def _method_checks(drivers: Drivers, infos: dict[str, dict], language: str, method: str,
                   model: str, data_dir: Path, manifest: Manifest, tmp: Path,
                   page_size: int) -> list[Check]:
    source = str(data_path(data_dir, model))
    spec = infos[language]["methods"][method]
    expected = manifest.set_checksum
    checks = []
    for variant in ["", *spec["variants"]]:
        for depth in spec["depths"]:
            status, message, result = _ask(drivers, language, "roundtrip", expected,
                                           model=model, method=method, depth=depth,
                                           variant=variant, params={"input": source})
            if status == OK and result.get("mismatches") != 0:
                status, message = FAILED, (f"{result.get('mismatches')} objects differ, first "
                                           f"at line {result.get('first_mismatch')}")
            checks.append(Check(language, model, method, "roundtrip", depth, language, status,
                                message, variant))
    base = tmp / language / method / model
    base.parent.mkdir(parents=True, exist_ok=True)
    status, message, _ = _ask(drivers, language, "encode", None, model=model, method=method,
                              depth="", variant="",
                              params={"input": source, "output": str(base),
                                      "page_size": page_size})
    checks.append(Check(language, model, method, "encode", "", language, status, message))
    if status == OK:
        checks += _scans(drivers, infos, language, method, model, manifest, base)
    return checks


def _scans(drivers: Drivers, infos: dict[str, dict], producer: str, method: str, model: str,
           manifest: Manifest, base: Path) -> list[Check]:
    """The file of one producer read by every consumer of the same method id, and by every
    driver's raw floor."""
    checks, expected = [], manifest.set_checksum
    for consumer in sorted(infos):
        spec = infos[consumer]["methods"].get(method)
        if spec is None or model not in spec["models"]:
            checks.append(Check(consumer, model, method, "scan", "", producer, UNSUPPORTED,
                                f"{consumer} has no {method} for {model}"))
        else:
            for depth in spec["depths"]:
                status, message, result = _ask(drivers, consumer, "scan", expected,
                                               model=model, method=method, depth=depth,
                                               variant="", params={"input": str(base)})
                if status == OK and result.get("writer") != producer:
                    status, message = FAILED, (f"scan reports writer {result.get('writer')!r}, "
                                               f"the file was written by {producer}")
                checks.append(Check(consumer, model, method, "scan", depth, producer, status,
                                    message))
        checks.append(_floor(drivers, infos, consumer, producer, method, model, manifest, base))
    return checks


def _floor(drivers: Drivers, infos: dict[str, dict], consumer: str, producer: str, method: str,
           model: str, manifest: Manifest, base: Path) -> Check:
    """The consumer's raw floor over the whole file, against the harness's reading of it."""
    raw = infos[consumer]["methods"].get(RAW)
    if raw is None or model not in raw["models"]:
        return Check(consumer, model, method, "floor", "", producer, UNSUPPORTED,
                     f"{consumer} has no raw floor for {model}")
    everything = range(manifest.count)
    try:
        expected = raw_checksum(base, everything)
    except PagedError as exc:
        return Check(consumer, model, method, "floor", "", producer, FAILED,
                     f"the harness cannot read the file: {exc}")
    status, message, _ = _ask(drivers, consumer, "run", expected, task="read_seq",
                              model=model, method=RAW, depth="", variant="",
                              params={"input": str(base), "n": manifest.count, "start": 0,
                                      "cold": False, "warmups": 0, "repetitions": 1})
    return Check(consumer, model, method, "floor", "", producer, status, message)


NET_STEPS = (fetch.ID, sort_merge.ID)  # what verify proves of every pair of node languages


def _node_languages(infos: dict[str, dict]) -> list[str]:
    return sorted(lang for lang, info in infos.items()
                  if set(NET_STEPS) <= set(info.get("net_tasks", ())))


def _network_checks(paths: dict[str, Path], infos: dict[str, dict], nodes: list[str],
                    data_dir: Path, manifests: dict[str, Manifest], done: list[Check],
                    methods: tuple[str, ...], tmp: Path, page_size: int) -> list[Check]:
    """Every ordered pair of node languages sharing a method, over one model's file of it
    (one a first language encoded above): a fetch and a sort-merge tree per pair."""
    checks = []
    for method in sorted({m for lang in nodes for m in infos[lang]["methods"]} - {RAW}):
        if methods and method not in methods:
            continue
        sharing = [lang for lang in nodes if method in infos[lang]["methods"]]
        model = _shared_model(infos, sharing, method, manifests) if len(sharing) > 1 else None
        encoded = [c.language for c in done if (c.step, c.method, c.model, c.status) ==
                   ("encode", method, model, OK) and c.language in sharing]
        if not encoded:
            continue
        source = Source(data_dir, model, method, tmp / encoded[0] / method / model, page_size,
                        file_hashes(data_dir, model))
        work = tmp / "net" / method
        pairs = {Pair(a, b) for a in sharing for b in sharing if a != b}
        checks += _pair_checks(model, method, fetch.ID,
                               prove_fetches(source, pairs, paths, work))
        impossible = trees_impossible(source)
        checks += _pair_checks(model, method, sort_merge.ID,
                               dict.fromkeys(pairs) if impossible else
                               prove_trees(source, sharing, paths, work), impossible)
    return checks


def _pair_checks(model: str, method: str, step: str, outcome: dict[Pair, str | None],
                 skipped: str | None = None) -> list[Check]:
    """A check per pair: ok, failed with its problem, or every one skipped saying why."""
    def status(problem: str | None) -> str:
        return SKIPPED if skipped else FAILED if problem else OK
    return [Check(pair.receiver, model, method, step, "materialize", pair.sender,
                  status(problem), skipped or problem or "")
            for pair, problem in sorted(outcome.items(), key=lambda i: str(i[0]))]


def _shared_model(infos: dict[str, dict], languages: list[str], method: str,
                  manifests: dict[str, Manifest]) -> str | None:
    """The model the matrix moves: part when every language offers it, else the first
    such one (every model has a total order: the sort-merge's)."""
    return next((m for m in ("part", *sorted(manifests)) if m in manifests and all(
        m in infos[lang]["methods"][method]["models"] for lang in languages)), None)
