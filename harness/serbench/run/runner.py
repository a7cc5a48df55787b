"""`serbench run`: execute a plan's cells against the drivers and store every outcome.

Order of work, per dataset × model × page size ("batch"):
  1. for each language × method (a "group", one FRESH driver process, so no JIT or heap state
     leaks between methods, kept for the whole batch): verify with `roundtrip` at every depth
     the group reads, on the dataset's first objects (up to VERIFY_SAMPLE_BYTES of JSON:
     every timed result is still checked in full, and `serbench verify` round-trips whole
     datasets); a wrong result makes every cell of the group `invalid`, a crash, hang or
     error `failed`, either way untimed;
  2. the batch's comparison sets in task order (writes first: each written file is re-read
     with `scan` and must match the manifest, and becomes the file its method's reads use),
     each measured in interleaved rounds (rounds.py) in the groups' processes; the `raw`
     floors' checksums (of the objects' bytes) computed by the harness from the files
     themselves (paged.py);
  3. the groups' processes closed, the batch's files deleted unless asked to keep them.

A cell is `ok` only when the driver answered ok, its samples are well formed and its checksum
and count equal the harness's expectation, computed from the dataset (per-object hashes, the
seeded start or id list) or, for the floor, from the file. A driver that crashes, hangs or
answers garbage fails the cell (with its stderr tail) and is replaced by a fresh one for the
next cell of its group. An interrupted run can be resumed (`resume_plan`): the comparison
sets it measured whole are kept, the others measured again whole, in a new sitting.

With a cluster (`--cluster`), each batch's single-machine cells are one unit: measured whole,
exactly as above, by a Dask worker's own checkout and drivers (`measure_unit`), one unit at a
time per worker, Dask choosing the worker; their outcomes come back to be stored here, each
cell's counters naming its host. The network cells follow here once every unit has ended
(their nodes go to the same workers).
"""
from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from itertools import chain, groupby
from pathlib import Path

from .. import steady
from ..cell import RAW, Cell, batches
from ..compare import noise
from ..datasets.expectations import (RunError, Sample, dataset_hashes, hashes_path, mismatch,
                                     verify_sample)
from ..datasets.manifest import Manifest, data_path, load_manifest, manifest_path, measurable
from ..drivers.answers import (BadAnswer, cached_after_eviction, checked_jit_warmup,
                               checked_samples, checked_task_fields, checksum_of, failed,
                               from_response, warm_up)
from ..drivers.paged import extents, file_digest, raw_checksum
from ..drivers.process import DriverFailure, DriverProcess, find_drivers, new_run_stamp
from ..network.dask_placement import Cluster, Worker, driver_on_worker
from ..network.measure import Networks
from ..paths import data_root, run_files
from ..plan import Plan, expand, parse_plan, summary
from ..provenance import collect, git_state, machine_state
from ..results import CellResult, Results, new_run_id, record_process
from ..tasks import PROOFS, TASKS
from .prewarm import Prewarm, prewarm
from .rounds import comparison_sets, run_set


# -- the run ---------------------------------------------------------------------------------

@dataclass
class FileState:
    """A paged file made in this run, and why reads must not use it, if they must not."""

    base: Path
    problem: CellResult | None = None


class Group:
    """One language × method of a batch: its driver process, kept for every round of every
    comparison set of the batch (a process per method × model: the JIT contract); closed
    before another group's network round (Runner.round_of)."""

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
    prewarms: dict[tuple, Prewarm] = field(default_factory=dict)  # by group key
    networks: Networks = field(default_factory=Networks)
    # every file this run writes carries it; trusting reads open no other (PROTOCOL.md 3)
    run_stamp: str = field(default_factory=new_run_stamp)
    sitting: int = 0  # which sitting of the run measures (a resumed run's are 1, 2, ...)
    run_dir: Path | None = None  # its files: home()/runs/<run id>, or a unit's own on a worker

    def __post_init__(self):
        self.run_dir = self.run_dir or run_files(self.run_id)

    def execute(self) -> None:
        try:
            cells = self.cells
            if self.networks.cluster is not None:
                cells = self.run_units(self.networks.cluster)
            for batch_key, batch in groupby(cells, key=lambda c: c.group_key[:3]):
                try:
                    self.run_batch(list(batch))
                finally:
                    self.drop_files(batch_key)
                    self._floors.clear()
        finally:
            self.networks.close()

    def record(self, cell: Cell, result: CellResult) -> None:
        # one verdict (a failed verification, an unusable file) may stand for many cells
        result = replace(result, params={**(result.params or cell.plan_params()),
                                         "sitting": self.sitting})
        warmed = self.prewarms.get(cell.group_key)
        if warmed is not None:
            result = replace(result, counters={**(result.counters or {}),
                                               "prewarm": warmed.counters()})
        if result.samples:
            verdict = steady.judge(result.samples)
            result = replace(result, steady=verdict.steady, steady_note=verdict.note)
        self.results.add_cell(self.run_id, cell, result)
        self.listener.done(cell, result)

    # -- units: the single-machine cells on a cluster's workers -------------------------------

    def run_units(self, cluster: Cluster) -> list[Cell]:
        """Each batch's single-machine cells measured as one unit on a worker, its outcomes
        stored here naming the host (a unit that failed fails the cells it did not measure,
        naming it); the network cells are returned, to be measured here afterwards."""
        units = [Unit(self.plan, batch, cluster.drivers, self.infos, self.run_id,
                      self.run_dir / "units" / str(i), self.pin, self.keep_files, self.sitting)
                 for i, batch in enumerate(batches([c for c in self.cells
                                                     if not TASKS[c.task].net]))]
        for index, worker, answer in cluster.units(measure_unit, units):
            outcomes, problem = _unit_outcome(worker, answer)
            where = {"cluster": cluster.settings.address,
                     **({"host": worker.describe()} if worker else {})}
            for cell, result in outcomes:  # recorded on the worker (sitting, steady state)
                result = replace(result, counters={**(result.counters or {}), **where})
                self.results.add_cell(self.run_id, cell, result)
                self.listener.done(cell, result)
            measured = {cell.cell_id for cell, _ in outcomes}
            for cell in units[index].cells:
                if cell.cell_id not in measured:
                    self.record(cell, CellResult("failed", "cluster", problem, counters=where))
        return [c for c in self.cells if TASKS[c.task].net]

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
                run_set(members, lambda cell, number: self.round_of(groups, cell),
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
        if self.infos[todo[0].language].get("toolchain", {}).get("jit"):
            self.prewarm_group(group)
        return group

    def prewarm_group(self, group: "Group") -> None:
        """A JIT's process warmed with the cells it will measure (prewarm.py)."""
        def run_once(cell: Cell) -> CellResult:
            try:
                return self.run_cell(group.alive_driver(cell), cell)
            except DriverFailure as exc:
                return failed(exc)

        warmed = prewarm(group.ready, run_once)
        if warmed is not None:
            self.prewarms[group.ready[0].group_key] = warmed

    def round_of(self, groups: dict[tuple, "Group"], cell: Cell) -> CellResult:
        """One round of the cell in its group's process. A network cell is timed on its own
        nodes, so its round runs with no other group's process alive beside them, each holding
        the heap it grew (a JVM's up to 2 GB); network sets come last in a batch (TASK_ORDER),
        so no closed process is needed warm again, and a group used again starts a new one."""
        group = groups[cell.group_key]
        if TASKS[cell.task].net:
            for other in groups.values():
                if other is not group:
                    other.close()
        return self.run_round(group, cell)

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
        return TASKS[cell.task].run(self, driver, cell)

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
            checked_task_fields(TASKS[cell.task], cell, counters, samples)
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


# -- a unit on a worker --------------------------------------------------------------------------

@dataclass(frozen=True)
class Unit:
    """One batch's single-machine cells as a worker measures them (`measure_unit`)."""

    plan: Plan
    cells: list[Cell]
    drivers: dict[str, str]  # language -> driver, checkout-relative, as Cluster.check found it
    infos: dict[str, dict]   # the harness's, which the check proved the worker's equal to
    run_id: str
    run_dir: Path            # the unit's own files, on the worker
    pin: str | None
    keep_files: bool
    sitting: int


class Outcomes(list):
    """What a unit's runner records (in place of the results database): (cell, result)
    pairs, returned to the harness, which stores them."""

    def add_cell(self, run_id: str, cell: Cell, result: CellResult) -> None:
        self.append((cell, result))


def measure_unit(unit: Unit) -> tuple[list[tuple[Cell, CellResult]], str | None]:
    """On a Dask worker: the unit's cells measured exactly as the harness measures a batch,
    by this host's drivers; their outcomes, and what ended the unit early (a harness error:
    a damaged dataset), if anything."""
    outcomes = Outcomes()
    drivers = {lang: Path(driver_on_worker(path)) for lang, path in unit.drivers.items()}
    runner = Runner(unit.plan, unit.cells, drivers, unit.infos, outcomes, unit.run_id,
                    unit.pin, unit.keep_files, run_dir=unit.run_dir, sitting=unit.sitting)
    try:
        runner.execute()
    except Exception as exc:  # the cells recorded so far stand; the others fail with it
        return list(outcomes), f"{type(exc).__name__}: {exc}"
    finally:
        if not unit.keep_files:
            shutil.rmtree(unit.run_dir, ignore_errors=True)
    return list(outcomes), None


def _unit_outcome(worker: Worker | None, answer) -> tuple[list, str]:
    """A unit's outcomes, and why the cells it did not measure were not, naming the host
    (a ClusterError names it already)."""
    if isinstance(answer, Exception):
        return [], str(answer)
    outcomes, problem = answer
    return outcomes, f"on {worker.label()}: {problem or 'the unit ended before measuring it'}"


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
    cells = expand(plan, infos, lambda d, m: measurable(d, m).count, root or data_root(),
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
    from ..network.dask_placement import ClusterSettings
    return ClusterSettings(params.cluster, params.cluster_workers,
                           params.cluster_nodes_per_worker, params.cluster_tls_ca,
                           params.cluster_tls_cert, params.cluster_tls_key)


def run_plan(plan: Plan, results: Results, *, run_id: str | None = None, pin: str | None = None,
             keep_files: bool = False, root: Path | None = None,
             listener: Listener | None = None, strict: bool = True) -> str:
    """Run a plan; the run ends `complete`, `interrupted` (Ctrl-C) or `failed` (a harness
    error), and its id is returned."""
    drivers, infos, cells = prepare(plan, root, strict)
    run_id = run_id or new_run_id()
    runner = Runner(plan, cells, drivers, infos, results, run_id, pin, keep_files,
                    listener or Listener(), networks=Networks(cluster_settings(plan.params)))
    provenance = collect({lang: {"path": str(path), "info": infos[lang]}
                          for lang, path in drivers.items()})
    # the run-to-run noise its rankings must clear: this host's, when a self-check measured it
    run_params = {"plan": summary(plan), "pin": pin, "keep_files": keep_files,
                  "cells": len(cells), "strict": strict,
                  "noise": noise.measured_here().as_json()}
    run_params.update(_before_timing(runner))
    results.begin_run(run_id, plan.name, plan.toml, plan.params.seed, provenance,
                      run_params, machine_state())
    return _execute(runner)


def resume_plan(results: Results, run_id: str, *, root: Path | None = None,
                listener: Listener | None = None) -> str:
    """Go on with an interrupted or failed run in a new sitting, with the same drivers: the
    comparison sets it measured whole are kept, every other is measured again whole (never
    half in one sitting and half in another); each cell records its sitting."""
    run = results.require_run(run_id, allow_incomplete=True)
    params = json.loads(run["params"]) if run["params"] else {}
    plan = parse_plan(run["plan_toml"], f"run {run_id}'s plan", run["plan_name"])
    address = (params.get("cluster") or {}).get("address")
    if address:  # a `--cluster` run goes on on its cluster
        plan = replace(plan, params=replace(plan.params, cluster=address))
    drivers, infos, cells = prepare(plan, root, params.get("strict", True))
    _same_drivers(run_id, json.loads(run["drivers"] or "{}"), infos)
    recorded = {(c["cell_id"], (c["language"], c["task"], c["model"], c["method"], c["depth"],
                                c["variant"], c["setting"], c["dataset"], c["n"], c["threads"],
                                c["page_size"], c["cold"])) for c in results.cells(run_id)}
    expected = {(cell.cell_id, cell.identity) for cell in cells}
    if not recorded <= expected:
        raise RunError(f"run {run_id}: its plan no longer expands to the cells it measured "
                       "(drivers or datasets changed); start a new run")
    done = {cell_id for cell_id, _ in recorded}
    todo = [cell for batch in batches(cells) for members in comparison_sets(batch)
            if any(c.cell_id not in done for c in members) for cell in members]
    results.drop_cells(run_id, [c.cell_id for c in todo if c.cell_id in done])
    sitting = results.resume_run(run_id, {"started": str(datetime.now(timezone.utc)),
                                          "machine": machine_state(), "git": git_state()})
    runner = Runner(plan, todo, drivers, infos, results, run_id, params.get("pin"),
                    params.get("keep_files", False), listener or Listener(),
                    networks=Networks(cluster_settings(plan.params)), sitting=sitting)
    _before_timing(runner)
    return _execute(runner)


def _same_drivers(run_id: str, recorded: dict, infos: dict[str, dict]) -> None:
    """A run's sittings measure the same build: a changed driver is refused by name."""
    for language, entry in recorded.items():
        if (entry or {}).get("info") != infos.get(language):
            raise RunError(f"run {run_id}: the {language} driver is not the one the run "
                           "began with (rebuilt or changed); a run's sittings measure one "
                           "build: start a new run")


def _before_timing(runner: Runner) -> dict:
    """Every dataset's hashes (a damaged dataset stops the run before anything is timed)
    and, with a cluster, every host checked and given the units' datasets; the run params
    that say where the cells run."""
    for cell in runner.cells:
        if not cell.unsupported and cell.method != RAW:
            runner.dataset_hashes(cell)
    languages = {lang for cell in runner.cells if not cell.unsupported
                 for lang in (cell.language, *chain(*cell.roles.values()))}
    if not languages:
        return {}
    try:  # every host checked against this one before anything is timed
        cluster = runner.networks.connect({lang: runner.drivers[lang] for lang in
                                           sorted(languages) if lang in runner.drivers})
        local = [cell for cell in runner.cells if not TASKS[cell.task].net]
        if cluster is not None and local:
            cluster.check_units()
            cluster.provide(_dataset_files(local))
    except BaseException:
        runner.networks.close()
        raise
    if cluster is None:
        return {}
    # the hosts every cell ran on
    return {"cluster": {"address": runner.plan.params.cluster,
                        "workers": [{"name": w.name, "address": w.address,
                                     "host": w.facts.get("host"), "git": w.facts.get("git")}
                                    for w in cluster.workers]}}


def _dataset_files(cells: list[Cell]) -> list[Path]:
    """The files of every dataset the cells read: data, manifest and, where made, the
    per-object hashes."""
    found = []
    for directory, model in sorted({(c.dataset_dir, c.model) for c in cells}):
        found += [data_path(directory, model), manifest_path(directory, model)]
        hashes = hashes_path(directory, model)
        found += [hashes] if hashes.exists() else []
    return found


def _execute(runner: Runner) -> str:
    """The run's cells measured; the run ends `complete`, `interrupted` (Ctrl-C) or `failed`
    (a harness error)."""
    results, run_id = runner.results, runner.run_id
    runner.listener.ready(runner.cells)
    try:
        runner.execute()
    except KeyboardInterrupt:
        results.finish_run(run_id, "interrupted")
        raise
    except BaseException:
        results.finish_run(run_id, "failed")
        raise
    finally:
        if not runner.keep_files:
            shutil.rmtree(runner.run_dir, ignore_errors=True)
    results.finish_run(run_id, "complete", machine_state())
    return run_id
