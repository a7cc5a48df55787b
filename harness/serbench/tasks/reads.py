"""The reads (`read_seq`, `read_rand`, `read_par`) and `memory`: objects of the method's file
selected by the seeded start or the shared random id list, their set checksum computed from
the dataset. The `raw` floor reads the same file; its checksum (bytes, not values) is
cross-checked by every other driver. With `floor_rounds` a read alternates in rounds with the
raw read of its own file."""
from __future__ import annotations

from dataclasses import replace

from ..datasets.manifest import load_manifest
from ..driver import DriverFailure
from ..plan import RAW
from ..results import CellResult


def run(runner, driver, cell) -> CellResult:
    source = runner.file_for(driver, cell)
    if source.problem is not None:
        return source.problem
    params, expected = read_params(runner, cell, source.base)
    if cell.floor_rounds:
        return timed_with_floor(runner, driver, cell, params, expected)
    result = runner.timed(driver, cell, params, expected)
    if cell.method == RAW and result.status == "ok":
        cross_check_raw(runner, cell, params, result)
    return result


def read_params(runner, cell, base) -> tuple[dict, dict]:
    """Request params and the expected checksum of a read cell (read_seq, read_rand,
    read_par over either selection, memory over the first n objects)."""
    from ..runner import ids_file, read_ids, read_seq_start, set_checksum_of
    manifest = load_manifest(cell.dataset_dir, cell.model)
    params = {"input": str(base), "n": cell.n, **runner.common_params(cell)}
    mode = cell.settings.get("mode")
    if cell.task == "read_par":
        params.update(threads=cell.threads, mode=mode)
    if cell.task == "memory":
        chosen = range(cell.n)
    elif cell.task == "read_seq" or mode == "seq":
        start = read_seq_start(cell.seed, cell.model, manifest.count, cell.n)
        params["start"] = start
        chosen = range(start, start + cell.n)
    else:
        path = ids_file(cell.model, manifest.count, cell.n, cell.seed)
        params["ids"] = str(path)
        chosen = read_ids(path)
    if cell.method == RAW:  # raw hashes bytes, not values: the other drivers are the check
        return params, {"count": cell.n, "sum": None}
    hashes = runner.dataset_hashes(cell)
    return params, set_checksum_of(hashes[i] for i in chosen)


def timed_with_floor(runner, driver, cell, params: dict, expected: dict) -> CellResult:
    """The read's repetitions in `floor_rounds` rounds, each followed in the same process
    by as many raw reads of the same file; every measured sample carries the raw sample
    of its place in the round as `floor_ns`. On a VM whose speed moves by tens of percent
    over seconds, a read and a floor timed minutes apart are not comparable; these are.
    Later rounds warm up once (the driver's page buffer is per request)."""
    from ..runner import numbered_on, paired, rounds, warm_up
    floor = replace(cell, method=RAW, depth="", variant=cell.method, floor_rounds=0)
    recorded = {**params, "floor_rounds": cell.floor_rounds}
    samples, first, floor_sum = [], None, None
    asked = {k: v for k, v in params.items() if k != "warmup_max_ms"}
    for number, repetitions in enumerate(rounds(cell.repetitions, cell.floor_rounds)):
        warm = ({} if number == 0 else {"warmups": 1, "warmup_ms": 0, "warmup_max_ms": 0})
        round_cell = replace(cell, repetitions=repetitions, **warm)
        round_params = {**asked, **warm_up(round_cell), "repetitions": repetitions}
        read = runner.timed(driver, round_cell, round_params, expected)
        if read.status != "ok":
            return replace(read, params=recorded)
        raw = runner.timed(driver, replace(floor, repetitions=repetitions,
                                           warmups=round_cell.warmups,
                                           warmup_ms=round_cell.warmup_ms,
                                           warmup_max_ms=round_cell.warmup_max_ms),
                           round_params, {"count": cell.n, "sum": floor_sum})
        if raw.status == "ok" and floor_sum is None:
            cross_check_raw(runner, floor, round_params, raw)
            floor_sum = raw.got["sum"]
        if raw.status != "ok":
            what = f"the raw floor of the same file, round {number + 1}: "
            return replace(raw, message=what + (raw.message or ""), samples=[],
                           params=recorded)
        first = first or read
        samples += numbered_on(paired(read.samples, raw.samples), samples)
    return replace(first, samples=samples, params=recorded)


def cross_check_raw(runner, cell, params: dict, result: CellResult) -> None:
    """Every other driver reads the same file raw once; all checksums must agree."""
    from ..runner import BadAnswer, checksum_of, mismatch
    checks = {}
    for language in sorted(runner.drivers):
        if language == cell.language or not offers_raw(runner, language, cell):
            continue
        peer = runner.peer(language, cell)
        if peer is None:
            continue
        once = {**params, "warmups": 0, "warmup_ms": 0, "warmup_max_ms": 0, "repetitions": 1,
                "cold": False}
        try:
            response = runner.request_run(peer, cell, once)
            checks[language] = checksum_of(response["result"]) if response[
                "status"] == "ok" else None
        except (DriverFailure, BadAnswer):
            runner.drop_peer(language)
            checks[language] = None
    agreed = {k: v for k, v in checks.items() if v is not None}
    for language, got in agreed.items():
        problem = mismatch(f"raw read by {language}", result.got, got)
        if problem:
            result.status, result.error_kind, result.samples = "invalid", "checksum_mismatch", []
            result.message = f"{problem} ({language} read {got['sum']})"
            break
    if agreed:
        result.expected = next(iter(agreed.values()))
    unchecked = sorted(set(checks) - set(agreed))
    if result.status == "ok":
        result.message = ("raw checksum not cross-checked: no other driver" if not checks
                          else f"cross-checked by {', '.join(agreed) or 'nobody'}"
                          + (f"; not by {', '.join(unchecked)}" if unchecked else ""))


def offers_raw(runner, language: str, cell) -> bool:
    info = runner.infos[language]
    raw = info["methods"].get(RAW)
    return raw is not None and cell.model in raw["models"] and cell.task in info["tasks"]


TASKS = {task: run for task in ("read_seq", "read_rand", "read_par", "memory")}
