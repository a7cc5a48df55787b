"""`serbench run`: execute a plan's cells against the drivers and store every outcome.

Order of work, per dataset × model × page size ("batch"):
  1. for each language × method (a "group", one FRESH driver process, so no JIT or heap state
     leaks between methods): verify with `roundtrip` at every depth the group reads, on the
     dataset's first objects (up to VERIFY_SAMPLE_BYTES of JSON: every timed result is still
     checked in full, and `serbench verify` round-trips whole datasets); a wrong result makes
     every cell of the group `invalid`, a crash, hang or error `failed`, either way untimed;
     then the write cells
     (each written file is re-read with `scan` and must match the manifest), then the reads of
     that file;
  2. the `raw` floor of each language over the files its methods wrote, its checksum (of the
     objects' bytes) computed by the harness from the file itself (paged.py);
  3. the batch's files are deleted unless asked to keep them.

A cell is `ok` only when the driver answered ok, its samples are well formed and its checksum
and count equal the harness's expectation, computed from the dataset (per-object hashes, the
seeded start or id list) or, for the floor, from the file. A driver that crashes, hangs or answers garbage fails the cell (with
its stderr tail) and is replaced by a fresh one for the next cell.
"""
from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from array import array
from dataclasses import dataclass, field, replace
from itertools import chain, groupby
from pathlib import Path

from .checksum import MASK, hex64, object_hash, set_checksum
from .datasets.manifest import Manifest, data_path, load_manifest
from .driver import DriverFailure, DriverProcess, find_drivers, new_run_stamp
from .native import NativeError, datagen_path
from .paths import cache_dir, data_root, home
from .network.measure import Networks
from .paged import extents, file_digest, raw_checksum
from .plan import NET_TASKS, RAW, Cell, Plan, expand, summary
from .rounds import comparison_sets, run_set
from . import noise, steady
from .provenance import collect, machine_state
from .results import CellResult, Results, new_run_id, record_process
from .tasks import PROOFS, TASKS

HEX_SUM = re.compile(r"[0-9a-f]{16}")  # u64 sums travel as 16 lowercase hex digits


class RunError(RuntimeError):
    pass


# -- expectations ----------------------------------------------------------------------------

def hashes_path(directory: Path, model: str) -> Path:
    return directory / f"{model}.hashes"


def dataset_hashes(directory: Path, model: str) -> array:
    """Per-object hashes of a dataset, in file order, as u64.

    Cached in `<model>.hashes` (u64 little-endian per object) next to the dataset. A cache is
    trusted only when its length is 8 × count and its hashes add up to the manifest's set
    checksum; otherwise it is made again, by serbench-datagen when it can, else in Python.
    """
    manifest = load_manifest(directory, model)
    path = hashes_path(directory, model)
    cached = _read_hashes(path, manifest)
    if cached is not None:
        return cached
    staging = path.with_suffix(".hashes.tmp")
    for make in (_native_hashes, _python_hashes):
        made = _read_hashes(staging, manifest) if make(directory, model, staging) else None
        if made is not None:
            staging.replace(path)
            return made
    staging.unlink(missing_ok=True)
    raise RunError(f"{data_path(directory, model)}: per-object hashes do not add up to the "
                   f"manifest's checksum {manifest.set_checksum}; the dataset is damaged")


def file_hashes(directory: Path, model: str) -> array:
    """Per-object hashes read from the dataset file itself, never from the cache (natively
    when serbench-datagen is built, else in Python); ValueError when it does not parse."""
    with tempfile.TemporaryDirectory(prefix="serbench-hashes-") as tmp:
        out = Path(tmp) / "hashes"
        if not _native_hashes(directory, model, out):
            _python_hashes(directory, model, out)
        return u64_array(out.read_bytes())


def _read_hashes(path: Path, manifest: Manifest) -> array | None:
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    if len(raw) != 8 * manifest.count:
        return None
    hashes = u64_array(raw)
    total = sum(hashes) & MASK
    return hashes if hex64(total) == manifest.set_checksum["sum"] else None


def _native_hashes(directory: Path, model: str, out: Path) -> bool:
    """serbench-datagen's `checksum --hashes`, when a datagen build that has it exists."""
    try:
        tool = datagen_path(build=False)
        proc = subprocess.run([str(tool), "checksum", "--model", model, "--in",
                               str(data_path(directory, model)), "--hashes", str(out)],
                              capture_output=True)
    except (NativeError, OSError):  # no datagen build: the Python reference does it
        return False
    return proc.returncode == 0 and out.exists()


def _python_hashes(directory: Path, model: str, out: Path) -> bool:
    hashes = array("Q")
    with open(data_path(directory, model), "rb") as f:
        for line in f:
            if line.strip():
                hashes.append(object_hash(model, json.loads(line)))
    out.write_bytes(u64_bytes(hashes))
    return True


def read_seq_start(seed: int, model: str, count: int, n: int) -> int:
    """The seeded first object of a sequential read; the same for every method and language."""
    return random.Random(f"read_seq:{seed}:{model}:{count}:{n}").randrange(count - n + 1)


def ids_file(model: str, count: int, n: int, seed: int) -> Path:
    """The seeded random id list (u64 LE, repeats allowed), written once and shared by every
    method and language. Longer lists extend shorter ones of the same seed."""
    path = cache_dir() / "ids" / f"{model}-c{count}-s{seed}-n{n}.u64"
    if path.exists() and path.stat().st_size == 8 * n:
        return path
    rng = random.Random(f"read_rand:{seed}:{model}:{count}")
    ids = array("Q", (rng.randrange(count) for _ in range(n)))
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_suffix(".tmp")
    staging.write_bytes(u64_bytes(ids))
    staging.replace(path)
    return path


def read_ids(path: Path) -> array:
    return u64_array(path.read_bytes())


def u64_array(raw: bytes) -> array:
    """u64 little-endian bytes (the files' format) as an array in native order."""
    values = array("Q")
    values.frombytes(raw)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def u64_bytes(values: array) -> bytes:
    if sys.byteorder == "big":
        values = array("Q", values)
        values.byteswap()
    return values.tobytes()


def sweep_input(k: int, n: int) -> Path:
    """JSON Lines of n `arrays` objects of k strings "Dummy text" and k zeros (the generator's
    `arrays` family), the micro size sweep's input; made once in the cache."""
    path = cache_dir() / "sweep" / f"arrays-k{k}-n{n}.jsonl"
    if not path.exists():
        line = json.dumps({"strings": ["Dummy text"] * k, "ints": [0] * k},
                          separators=(",", ":")) + "\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_suffix(".tmp")
        staging.write_text(line * n)
        staging.replace(path)
    return path


def set_checksum_of(hashes) -> dict:
    count, total = set_checksum(hashes)
    return {"count": count, "sum": hex64(total)}


# Verifying a group on a prefix keeps a fresh process's first, cold pass over the data short (a
# JVM interprets it: ~0.3 s per customer round trip of the default data) and bounds the
# drivers' memory at any scale; the prefix has every kind of field the model has.
VERIFY_SAMPLE_BYTES = 1 << 20


@dataclass(frozen=True)
class Sample:
    """The objects a group is verified on before timing, and their set checksum."""

    path: Path
    checksum: dict


def verify_sample(directory: Path, model: str, hashes: array, out: Path) -> Sample:
    """The dataset's first objects up to VERIFY_SAMPLE_BYTES of JSON (at least one), written
    to `out`; the whole dataset file itself when it is no larger."""
    source = data_path(directory, model)
    if source.stat().st_size <= VERIFY_SAMPLE_BYTES:
        return Sample(source, set_checksum_of(hashes))
    lines, size = [], 0
    with open(source, "rb") as f:
        for line in f:
            if not line.strip():
                continue
            if lines and size + len(line) > VERIFY_SAMPLE_BYTES:
                break
            lines.append(line)
            size += len(line)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(b"".join(lines))
    return Sample(out, set_checksum_of(hashes[:len(lines)]))


# -- checking driver answers -----------------------------------------------------------------

class BadAnswer(Exception):
    """A well-formed response whose result breaks the protocol (a driver defect)."""


def checksum_of(result: dict) -> dict:
    checksum = result.get("checksum")
    if not (isinstance(checksum, dict) and type(checksum.get("count")) is int
            and isinstance(checksum.get("sum"), str) and HEX_SUM.fullmatch(checksum["sum"])):
        raise BadAnswer(f"result has no valid checksum {{count, sum: 16 lowercase hex}}: "
                        f"{checksum!r}")
    return {"count": checksum["count"], "sum": checksum["sum"]}


def checked_samples(result: dict, warmups: int, repetitions: int,
                    open_ended: bool = False) -> list[dict]:
    """The samples, `warmups` warm-ups (or more when they are `open_ended`: they go on for
    warmup_ms, or while a JIT compiles up to warmup_max_ms) and `repetitions` measured ones."""
    samples = result.get("samples")
    if not isinstance(samples, list):
        raise BadAnswer("result has no samples list")
    for s in samples:
        if not (isinstance(s, dict) and type(s.get("rep")) is int
                and isinstance(s.get("warmup"), bool)
                and all(type(s.get(k)) is int and s[k] >= 0
                        for k in ("total_ns", "cpu_ns", "io_ns"))):
            raise BadAnswer(f"malformed sample {s!r}")
    got = (sum(s["warmup"] for s in samples), sum(not s["warmup"] for s in samples))
    enough = got[0] >= warmups if open_ended else got[0] == warmups
    if not (enough and got[1] == repetitions):
        at_least = "at least " if open_ended else ""
        raise BadAnswer(f"{got[0]} warm-ups and {got[1]} repetitions returned, "
                        f"{at_least}{warmups} and {repetitions} asked")
    return samples


def cached_after_eviction(samples: list[dict]) -> float | None:
    """The largest share of a cold cell's files still in the page cache right after a
    measured repetition's eviction (PROTOCOL.md 5: `cached_fraction`), None if no sample has
    it. An eviction can succeed and drop nothing (tmpfs, mapped or dirty pages): this is what
    shows whether a cold read was cold."""
    figures = [s["cached_fraction"] for s in samples
               if not s["warmup"] and "cached_fraction" in s]
    for figure in figures:
        if not (type(figure) in (int, float) and 0 <= figure <= 1):
            raise BadAnswer(f"malformed cached_fraction {figure!r}: a share from 0 to 1")
    return max(figures, default=None)


def checked_jit_warmup(summary) -> dict:
    """The summed JIT-only warm-ups of a JIT driver (PROTOCOL.md section 5)."""
    keys = ("repetitions", "total_ns", "jit_ms")
    if not (isinstance(summary, dict) and set(summary) == set(keys)
            and all(type(summary[k]) is int and summary[k] >= 0 for k in keys)):
        raise BadAnswer(f"malformed jit_warmup {summary!r}: {', '.join(keys)} as integers >= 0")
    return summary


# what each task's result must carry beyond samples and checksum (PROTOCOL.md section 5)
TASK_COUNTERS = {
    "read_par": ("objects", "threads", "pages_read"),
    "sort_dedup": ("input_objects", "output_objects", "runs", "merge_passes", "budget_bytes",
                   "peak_rss_bytes", "rss_start_bytes"),
    "memory": ("objects", "retained_bytes", "retained_bytes_per_object", "peak_rss_bytes",
               "rss_start_bytes"),
    "micro": ("objects", "iterations", "encoded_bytes"),
}
TASK_SAMPLE_KEYS = {"sort_dedup": ("phase1_ns", "phase2_ns"),
                    "micro": ("encode_ns", "decode_ns")}


def checked_task_fields(task: str, counters: dict, samples: list[dict], threads: int) -> None:
    """The task's own counters and sample times are there and are numbers."""
    for key in TASK_COUNTERS.get(task, ()):
        value = counters.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise BadAnswer(f"{task}: counters.{key} is {value!r}, not a number >= 0")
    for s in samples:
        for key in TASK_SAMPLE_KEYS.get(task, ()):
            if type(s.get(key)) is not int or s[key] < 0:
                raise BadAnswer(f"{task}: sample {s.get('rep')} has no {key} (ns)")
        if task == "read_par":
            times = s.get("thread_ns")
            if not (isinstance(times, list) and len(times) == threads
                    and all(type(t) is int and t >= 0 for t in times)):
                raise BadAnswer(f"read_par: sample {s.get('rep')} thread_ns is {times!r}, "
                                f"not {threads} times in ns")


def warm_up(cell: Cell) -> dict:
    """A request's warm-up parameters; warmup_max_ms only when set (a driver without a JIT
    ignores it, and requests stay as they were without it)."""
    warm = {"warmups": cell.warmups, "warmup_ms": cell.warmup_ms}
    return {**warm, "warmup_max_ms": cell.warmup_max_ms} if cell.warmup_max_ms else warm


def mismatch(what: str, got: dict, expected: dict) -> str | None:
    if got["count"] != expected["count"]:
        return f"{what}: count {got['count']} differs from expected {expected['count']}"
    if got["sum"] != expected["sum"]:
        return f"{what}: checksum {got['sum']} differs from expected {expected['sum']}"
    return None


def failed(exc: DriverFailure, what: str = "") -> CellResult:
    return CellResult("failed", exc.kind, f"{what}{exc.message}", exc.stderr_tail or None)


def from_response(response: dict, what: str = "") -> CellResult | None:
    """The outcome of an unsupported or error answer; None for ok."""
    if response["status"] == "unsupported":
        return CellResult("unsupported", message=response.get("message") or "unsupported")
    if response["status"] == "error":
        error = response["error"]
        kind = str(error.get("kind", "internal"))
        status = "invalid" if kind == "checksum_mismatch" else "failed"
        return CellResult(status, kind, f"{what}{error.get('message', '')}")
    return None


# -- the run ---------------------------------------------------------------------------------

@dataclass
class FileState:
    """A paged file made in this run, and why reads must not use it, if they must not."""

    base: Path
    problem: CellResult | None = None


class Group:
    """One language × method of a batch: its driver process, kept for every round of every
    comparison set of the batch (a process per method × model: the JIT contract)."""

    def __init__(self, runner: "Runner", driver: DriverProcess):
        self.runner = runner
        self.driver = driver
        self.ready: list[Cell] = []

    def alive_driver(self, cell: Cell) -> DriverProcess:
        if not self.driver.alive:  # the previous round killed it
            self.driver.close()
            self.driver = self.runner.new_driver(cell.language, cell)
        return self.driver

    def close(self) -> None:
        self.driver.close()


@dataclass
class Runner:
    plan: Plan
    cells: list[Cell]
    drivers: dict[str, Path]
    infos: dict[str, dict]
    results: Results
    run_id: str
    pin: str | None = None
    keep_files: bool = False
    listener: "Listener" = field(default_factory=lambda: Listener())
    hashes: dict[tuple, array] = field(default_factory=dict)
    expectations: dict[tuple, dict] = field(default_factory=dict)
    files: dict[tuple, FileState] = field(default_factory=dict)
    _floors: dict[tuple, dict] = field(default_factory=dict)
    samples: dict[tuple, Sample] = field(default_factory=dict)
    # write cell identity -> digests of the file its scan proved right (tasks/write.py)
    scanned: dict[tuple, tuple] = field(default_factory=dict)
    networks: Networks = field(default_factory=Networks)
    # every file this run writes carries it; trusting reads open no other (PROTOCOL.md 3)
    run_stamp: str = field(default_factory=new_run_stamp)

    @property
    def run_dir(self) -> Path:
        return home() / "runs" / self.run_id

    def execute(self) -> None:
        try:
            for batch_key, batch in groupby(self.cells, key=lambda c: c.group_key[:3]):
                try:
                    self.run_batch(list(batch))
                finally:
                    self.drop_files(batch_key)
                    self._floors.clear()
        finally:
            self.networks.close()

    def record(self, cell: Cell, result: CellResult) -> None:
        # one verdict (a failed verification, an unusable file) may stand for many cells
        result = replace(result, params=result.params or cell.plan_params())
        if result.samples:
            verdict = steady.judge(result.samples)
            result = replace(result, steady=verdict.steady, steady_note=verdict.note)
        self.results.add_cell(self.run_id, cell, result)
        self.listener.done(cell, result)

    def new_driver(self, language: str, cell: Cell) -> DriverProcess:
        driver = DriverProcess(language, self.drivers[language], cell.timeout_s,
                               self.pin or cell.pin_cpus or None, self.run_stamp).start()
        record_process(self.run_dir, driver.pid)
        return driver

    # -- one batch: a dataset × model × page size, one process per language × method -------

    def run_batch(self, cells: list[Cell]) -> None:
        """Every group of the batch opened (a fresh driver process each, verified), then its
        comparison sets measured in interleaved rounds (rounds.py), the processes alive
        throughout."""
        groups: dict[tuple, Group] = {}
        try:
            todo = []
            for key, members in groupby(sorted(cells, key=lambda c: (c.group_key, c.cell_id)),
                                        key=lambda c: c.group_key):
                group = self.open_group(list(members))
                if group is not None:
                    groups[key] = group
                    todo += group.ready
            for members in comparison_sets(sorted(todo, key=lambda c: c.cell_id)):
                run_set(members, lambda cell, number: self.run_round(groups[cell.group_key],
                                                                     cell),
                        self.record, seed=f"{self.plan.params.seed}:{members[0].cell_id}")
        finally:
            for group in groups.values():
                group.close()

    def open_group(self, cells: list[Cell]) -> "Group | None":
        """A group's fresh driver, verified: the cells it blocks (unsupported, a failed
        round trip or proof) are recorded now, the others are its `ready` ones."""
        todo = []
        for cell in cells:
            if cell.unsupported:
                self.record(cell, CellResult("unsupported", message=cell.unsupported))
            else:
                todo.append(cell)
        if not todo:
            return None
        self.listener.start(todo[0])
        try:
            driver = self.new_driver(todo[0].language, todo[0])
        except DriverFailure as exc:  # a driver that cannot even start fails its cells
            for cell in todo:
                self.record(cell, failed(exc))
            return None
        group = Group(self, driver)
        try:
            verdict = {} if todo[0].method == RAW else self.verify_group(driver, todo)
            blocked = {} if "*" in verdict else self.prove_group(driver, todo)
        except DriverFailure as exc:
            group.close()
            for cell in todo:
                self.record(cell, failed(exc))
            return None
        for cell in todo:
            result = (verdict.get(cell.depth) or verdict.get("*")
                      or verdict.get(("variant", cell.variant)) or blocked.get(cell))
            if result is None:
                group.ready.append(cell)
            else:
                self.record(cell, result)
        return group

    def run_round(self, group: "Group", cell: Cell) -> CellResult:
        """One round of a cell: in its group's process (a fresh one when the previous round
        killed it: no leaks), or with forks in a fresh process of its own."""
        self.listener.start(cell)
        if cell.forks:
            driver = None
            try:
                driver = self.new_driver(cell.language, cell)
                return self.run_cell(driver, cell)
            except DriverFailure as exc:
                return failed(exc)
            finally:
                if driver is not None:
                    driver.close()
        try:
            return self.run_cell(group.alive_driver(cell), cell)
        except DriverFailure as exc:
            return failed(exc)

    def verify_group(self, driver: DriverProcess, cells: list[Cell]) -> dict:
        """`roundtrip` over the verification sample at every depth the group reads, in the default
        variant and in every other variant a cell of the group times.

        Returns outcomes that replace running cells: under "*" when the group must not be
        timed at all (invalid when the round trip gave a wrong result; failed when the driver
        crashed, hung or answered an error: no result, so nothing to call wrong), under a
        depth when only that depth is unsupported, under ("variant", v) for a variant's
        cells when only that variant failed or is unsupported."""
        first = cells[0]
        method_depths = self.infos[first.language]["methods"][first.method]["depths"]
        depths = sorted({c.depth for c in cells if c.depth}) or method_depths[:1]
        sample = self.verify_sample(first)
        verdict = {}
        for depth in depths:
            outcome = self.roundtrip(driver, first, depth, "", sample)
            if outcome is not None and outcome.status == "unsupported":
                verdict[depth] = outcome
            elif outcome is not None:
                return {"*": outcome}
        for variant in sorted({c.variant for c in cells if c.variant}):
            for depth in sorted({c.depth for c in cells if c.variant == variant and c.depth}
                                - verdict.keys()) or method_depths[:1]:
                outcome = self.roundtrip(driver, first, depth, variant, sample)
                if outcome is not None:
                    verdict[("variant", variant)] = outcome
                    break
        return verdict

    def prove_group(self, driver: DriverProcess, cells: list[Cell]) -> dict[Cell, CellResult]:
        """The cells the tasks' group proofs block (e.g. a language pair of network nodes
        that does not understand itself), with why."""
        blocked = {}
        for prove in PROOFS:
            blocked |= prove(self, driver, cells)
        return blocked

    def roundtrip(self, driver: DriverProcess, cell: Cell, depth: str, variant: str,
                  sample: Sample) -> CellResult | None:
        """One verification round trip; None when it reproduced the dataset."""
        what = (f"verification (roundtrip at depth {depth}"
                + (f", variant {variant}" if variant else "") + "): ")
        try:
            response = driver.request(
                "roundtrip", model=cell.model, method=cell.method, depth=depth,
                variant=variant, params={"input": str(sample.path)})
        except DriverFailure as exc:
            return failed(exc, what)
        outcome = from_response(response, what)
        if outcome is not None:
            return outcome
        problem = self.roundtrip_problem(response["result"], sample.checksum)
        return CellResult("invalid", "checksum_mismatch", what + problem) if problem else None

    @staticmethod
    def roundtrip_problem(result: dict, expected: dict) -> str | None:
        try:
            got = checksum_of(result)
        except BadAnswer as exc:
            return str(exc)
        if result.get("mismatches") != 0:
            return (f"{result.get('mismatches')} objects differ after the round trip, first at "
                    f"line {result.get('first_mismatch')}")
        return mismatch("round trip", got, expected)

    # -- one cell ------------------------------------------------------------------------------

    def run_cell(self, driver: DriverProcess, cell: Cell) -> CellResult:
        return TASKS[cell.task](self, driver, cell)

    def request_run(self, driver: DriverProcess, cell: Cell, params: dict) -> dict:
        return driver.request("run", task=cell.task, model=cell.model, method=cell.method,
                              depth=cell.depth, variant="" if cell.method == RAW else cell.variant,
                              params=params)

    def timed(self, driver: DriverProcess, cell: Cell, params: dict,
              expected: dict) -> CellResult:
        """One `run` request; the outcome, judged against the expectation."""
        try:
            response = self.request_run(driver, cell, params)
        except DriverFailure as exc:
            return failed(exc)
        outcome = from_response(response)
        if outcome is not None:
            outcome.params = params
            return outcome
        result = response["result"]
        try:
            got = checksum_of(result)
            samples = checked_samples(result, cell.warmups, cell.repetitions,
                                      bool(cell.warmup_ms or cell.warmup_max_ms))
            counters = result.get("counters", {})
            if not isinstance(counters, dict):
                raise BadAnswer("counters is not an object")
            checked_task_fields(cell.task, counters, samples, cell.threads)
            if "jit_warmup" in result:
                counters = {**counters, "jit_warmup": checked_jit_warmup(result["jit_warmup"])}
            cached = cached_after_eviction(samples)
            if cached is not None:
                counters = {**counters, "cached_after_eviction": cached}
        except BadAnswer as exc:
            return CellResult("failed", "garbage", str(exc), params=params, expected=expected)
        problem = mismatch(cell.task, got, expected)
        status = "invalid" if problem else "ok"
        eviction = result.get("eviction")
        return CellResult(status, "checksum_mismatch" if problem else None, problem,
                          expected=expected, got=got,
                          eviction=eviction if isinstance(eviction, str) else None,
                          counters=counters, params=params,
                          samples=samples if status == "ok" else [])

    def common_params(self, cell: Cell) -> dict:
        return {"cold": cell.cold, **warm_up(cell), "repetitions": cell.repetitions}

    def scan_problem(self, driver: DriverProcess, cell: Cell, base: Path,
                     manifest: Manifest) -> CellResult | None:
        what = "scan of the written file: "
        depth = self.infos[cell.language]["methods"][cell.method]["depths"][:1] or [""]
        try:
            response = driver.request("scan", model=cell.model, method=cell.method,
                                      depth=depth[0], variant=cell.variant,
                                      params={"input": str(base), "page_size": cell.page_size})
        except DriverFailure as exc:
            return failed(exc, what)
        outcome = from_response(response, what)
        if outcome is not None:
            return CellResult("invalid" if outcome.status == "unsupported" else outcome.status,
                              outcome.error_kind, outcome.message)
        try:
            got = checksum_of(response["result"])
        except BadAnswer as exc:
            return CellResult("failed", "garbage", what + str(exc))
        problem = mismatch("scan of the written file", got, manifest.set_checksum)
        if problem:
            return CellResult("invalid", "checksum_mismatch", problem)
        writer = response["result"].get("writer")
        if writer != cell.language:
            return CellResult("invalid", "wrong_file", f"{what}writer is {writer!r}, "
                                                       f"expected {cell.language!r}")
        return None

    # -- files ---------------------------------------------------------------------------------

    def keep_file(self, cell: Cell, base: Path, problem: CellResult | None) -> None:
        """A write cell's file, for the reads of its method (and why not, if unusable)."""
        key = self.file_key(cell, cell.language, cell.method, cell.variant)
        self.files[key] = FileState(base, problem)

    def file_key(self, cell: Cell, language: str, method: str, variant: str) -> tuple:
        return (cell.dataset_dir, cell.model, cell.page_size, language, method, variant)

    def file_base(self, cell: Cell, method: str, variant: str) -> Path:
        folder = f"{method}.{variant}" if variant else method
        return (self.run_dir / "files" / cell.dataset / f"p{cell.page_size}" / cell.language
                / folder / cell.model)

    def file_for(self, driver: DriverProcess, cell: Cell) -> FileState:
        """The file a read uses: its own variant's write, else the default variant's, else
        one made now with `encode` (untimed) and checked with `scan`."""
        method, variant = (cell.variant, "") if cell.method == RAW else (cell.method, cell.variant)
        for v in dict.fromkeys((variant, "")):
            state = self.files.get(self.file_key(cell, cell.language, method, v))
            if state is not None:
                return state
        state = self.encode_file(driver, cell, method)
        self.files[self.file_key(cell, cell.language, method, "")] = state
        return state

    def encode_file(self, driver: DriverProcess, cell: Cell, method: str) -> FileState:
        manifest = load_manifest(cell.dataset_dir, cell.model)
        base = self.file_base(cell, method, "")
        base.parent.mkdir(parents=True, exist_ok=True)
        what = f"making the input file with encode ({method}): "
        try:
            response = driver.request("encode", model=cell.model, method=method, depth="",
                                      variant="", params={
                                          "input": str(data_path(cell.dataset_dir, cell.model)),
                                          "output": str(base), "page_size": cell.page_size})
        except DriverFailure as exc:
            return FileState(base, failed(exc, what))
        outcome = from_response(response, what)
        if outcome is not None:
            if outcome.status != "unsupported":
                outcome = CellResult("failed", outcome.error_kind or "no_input", outcome.message)
            return FileState(base, outcome)
        source = replace(cell, method=method, variant="")
        problem = self.scan_problem(driver, source, base, manifest)
        if problem is not None:
            return FileState(base, CellResult("failed", "no_input", f"{what}{problem.message}",
                                              problem.stderr))
        return FileState(base)

    def drop_files(self, batch_key: tuple) -> None:
        for key in [k for k in self.files if k[:3] == batch_key]:
            state = self.files.pop(key)
            if not self.keep_files:
                for suffix in (".pages", ".index"):
                    Path(f"{state.base}{suffix}").unlink(missing_ok=True)

    # -- reads ---------------------------------------------------------------------------------

    def dataset_hashes(self, cell: Cell) -> array:
        key = (cell.dataset_dir, cell.model)
        if key not in self.hashes:
            self.hashes[key] = dataset_hashes(cell.dataset_dir, cell.model)
        return self.hashes[key]

    def verify_sample(self, cell: Cell) -> Sample:
        key = (cell.dataset_dir, cell.model)
        if key not in self.samples:
            out = self.run_dir / "verify" / f"{cell.dataset}-{cell.model}.jsonl"
            self.samples[key] = verify_sample(cell.dataset_dir, cell.model,
                                              self.dataset_hashes(cell), out)
        return self.samples[key]

    def floor_checksum(self, base: Path, chosen) -> dict:
        """The raw floor's expected checksum of a selection of a file, computed once per file
        content and selection: the raw cells of every language read the same files, and a
        shared format's writers in every language and round write the same bytes (keyed by
        file, its Python fold took 10 s of a profiled default run)."""
        page_size, entries = extents(Path(f"{base}.index"))
        key = (file_digest(Path(f"{base}.pages")), page_size, tuple(entries), tuple(chosen))
        if key not in self._floors:
            self._floors[key] = raw_checksum(base, chosen)
        return self._floors[key]


# -- entry point -----------------------------------------------------------------------------

def driver_infos(drivers: dict[str, Path]) -> dict[str, dict]:
    infos = {}
    for language, path in drivers.items():
        try:
            infos[language] = DriverProcess(language, path).info()
        except DriverFailure as exc:
            raise RunError(f"the {language} driver at {path} is broken: {exc}\n(rebuild it with "
                           "`serbench build`, or unset SERBENCH_DRIVER_"
                           f"{language.upper()})") from None
    return infos


def prepare(plan: Plan, root: Path | None = None,
            strict: bool = True) -> tuple[dict, dict, list[Cell]]:
    """Drivers, their info and the plan's cells (`expand`'s strict); dataset problems surface
    here, before a run row exists."""
    drivers = find_drivers()
    infos = driver_infos(drivers)
    cells = expand(plan, infos, lambda d, m: load_manifest(d, m).count, root or data_root(),
                   strict)
    return drivers, infos, cells


class Listener:
    """Progress hooks of a run; the CLI draws a progress bar, tests collect outcomes."""

    def ready(self, cells: list[Cell]) -> None:
        pass

    def start(self, cell: Cell) -> None:
        pass

    def done(self, cell: Cell, result: CellResult) -> None:
        pass


def cluster_settings(params) -> "ClusterSettings":
    from .network.dask_placement import ClusterSettings
    return ClusterSettings(params.cluster, params.cluster_workers,
                           params.cluster_nodes_per_worker, params.cluster_tls_ca,
                           params.cluster_tls_cert, params.cluster_tls_key)


def run_plan(plan: Plan, results: Results, *, run_id: str | None = None, pin: str | None = None,
             keep_files: bool = False, root: Path | None = None,
             listener: Listener | None = None, strict: bool = True) -> str:
    """Run a plan; the run ends `complete`, `interrupted` (Ctrl-C) or `failed` (a harness
    error), and its id is returned."""
    drivers, infos, cells = prepare(plan, root, strict)
    listener = listener or Listener()
    run_id = run_id or new_run_id()
    runner = Runner(plan, cells, drivers, infos, results, run_id, pin, keep_files, listener,
                    networks=Networks(cluster_settings(plan.params)))
    for cell in cells:  # before the run row exists, so a damaged dataset stops nothing midway
        if cell.task != "write" and not cell.unsupported and cell.method != RAW:
            runner.dataset_hashes(cell)
    provenance = collect({lang: {"path": str(path), "info": infos[lang]}
                          for lang, path in drivers.items()})
    # the run-to-run noise its rankings must clear: this host's, when a self-check measured it
    run_params = {"plan": summary(plan), "pin": pin, "keep_files": keep_files,
                  "cells": len(cells), "noise": noise.measured_here().as_json()}
    net_languages = {lang for cell in cells if cell.task in NET_TASKS and not cell.unsupported
                     for lang in (cell.language, *chain(*cell.roles.values()))}
    if net_languages:
        try:  # every host checked against this one before anything is timed
            cluster = runner.networks.connect({lang: drivers[lang] for lang in
                                               sorted(net_languages) if lang in drivers})
        except BaseException:
            runner.networks.close()
            raise
        if cluster is not None:  # in the run's params: the hosts every node ran on
            run_params["cluster"] = {"address": plan.params.cluster,
                                     "workers": [{"name": w.name, "address": w.address,
                                                  "host": w.facts.get("host"),
                                                  "git": w.facts.get("git")}
                                                 for w in cluster.workers]}
    results.begin_run(run_id, plan.name, plan.toml, plan.params.seed, provenance,
                      run_params, machine_state())
    listener.ready(cells)
    try:
        runner.execute()
    except KeyboardInterrupt:
        results.finish_run(run_id, "interrupted")
        raise
    except BaseException:
        results.finish_run(run_id, "failed")
        raise
    finally:
        if not keep_files:
            shutil.rmtree(runner.run_dir, ignore_errors=True)
    results.finish_run(run_id, "complete", machine_state())
    return run_id
