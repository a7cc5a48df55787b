"""`serbench reproduce`: the cells every published figure needs, on datasets the plan makes.

Three things the command states before it runs, each computed from the plan alone:
  - the datasets of the plan's [datasets] table that are missing (made with `serbench data`);
  - which published figures the plan's cells cover on these drivers, and why the others
    cannot be measured here;
  - the expected duration and disk use (`estimate`: object counts × bytes per object, and a
    time model per cell whose constants were fitted on the 2-core development VM).
"""
from __future__ import annotations

import json
import shlex
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..cell import LANGUAGES, RAW, Cell, batches, tree_size
from ..datasets.build import check_params
from ..datasets.manifest import DatasetError, load_manifest
from ..plan import PlanError, dataset_dir
from ..run.rounds import fresh_each_round, rule_of
from ..tasks import TASKS
from .published import FIGURES, CellNeed, PublishedFigure


QUICK, FULL = "reproduce_quick", "reproduce"

# -- the datasets a plan makes ---------------------------------------------------------------

# objects per TPC-H scale factor 1 (lineitem: about 4 per order, so its count is approximate
# until made)
TPCH_OBJECTS = {"part": 200_000, "lineitem": 6_001_215, "customer": 150_000}
# JSON bytes per object where the dataset is not made yet (the means of the quick plan's
# datasets, seed 42); a made dataset's manifest gives its own
JSON_BYTES = {"part": 212, "lineitem": 740, "customer": 32_500, "tweet": 4_400,
              "trade": 223, "org": 5_100}
SPARSE_ENTRY_BYTES = 35


@dataclass(frozen=True)
class Recipe:
    """One `serbench data` command of a plan's [datasets] table."""
    dataset: str               # the directory under the data root
    args: tuple[str, ...]      # `serbench data` arguments, --name included
    counts: dict[str, int]     # model -> objects it makes (TPC-H's lineitem: about)
    object_bytes: dict[str, float]  # model -> JSON bytes per object, estimated

    def missing(self, root: Path) -> tuple[str, ...]:
        """The models of this command without a complete dataset (a manifest) under root."""
        return tuple(m for m in self.counts if not _made(root / self.dataset, m))

    @property
    def command(self) -> str:
        return "serbench data " + shlex.join(self.args)


def _made(directory: Path, model: str) -> bool:
    try:
        load_manifest(directory, model)
    except DatasetError:
        return False
    return True


def recipe(dataset: str, words: list[str], params: dict) -> Recipe:
    """One `serbench data` command (its words, and the params its parser made of them)."""
    family, replicate = words[0], params["replicate"]
    if family == "tpch":
        models = [m.strip() for m in params["models"].split(",") if m.strip()]
        counts = {m: max(1, round(TPCH_OBJECTS[m] * params["sf"])) * replicate for m in models}
        sizes = {m: JSON_BYTES[m] for m in models}
    else:
        clean = check_params(family, {k: params[k] for k in ("n", "k", "dimension", "density")
                                      if k in params and params[k] is not None})
        counts = {family: clean["n"] * replicate}
        sizes = {family: _native_bytes(family, clean)}
    return Recipe(dataset, (*words, "--name", dataset), counts, sizes)


def _native_bytes(family: str, params: dict) -> float:
    if family == "arrays":
        return arrays_bytes(params["k"])
    if family == "sparse":
        return params["dimension"] * params["density"] * SPARSE_ENTRY_BYTES
    return JSON_BYTES[family]


def arrays_bytes(k: int) -> int:
    """An `arrays` object's JSON: k strings "Dummy text" and k zeros."""
    return len(json.dumps({"strings": ["Dummy text"] * k, "ints": [0] * k},
                          separators=(",", ":")))


@dataclass(frozen=True)
class Sizes:
    """Objects and JSON bytes per object of every (dataset directory, model) a plan reads:
    a made dataset's manifest, else what its recipe will make."""
    counts: dict[tuple[Path, str], int]
    object_bytes: dict[tuple[Path, str], float]

    def count(self, directory: Path, model: str) -> int:
        if (directory, model) not in self.counts:
            raise PlanError(f"{directory}: no {model} dataset, and the plan's [datasets] do not "
                            "make it")
        return self.counts[(directory, model)]


def dataset_sizes(made: list[Recipe], root: Path) -> Sizes:
    counts, object_bytes = {}, {}
    for recipe in made:
        directory = dataset_dir(recipe.dataset, root)
        for model, count in recipe.counts.items():
            key = (directory, model)
            try:
                manifest = load_manifest(directory, model)
                counts[key], object_bytes[key] = manifest.count, manifest.mean_object_bytes
            except DatasetError:
                counts[key], object_bytes[key] = count, recipe.object_bytes[model]
    return Sizes(counts, object_bytes)


# -- which figures the cells cover -----------------------------------------------------------

def _setting_matches(cell: Cell, setting: str) -> bool:
    values = {**{k: str(v) for k, v in cell.settings.items()}, "threads": str(cell.threads)}
    return all(values.get(k) == v for k, v in (item.split("=", 1) for item in setting.split()))


def _candidates(need: CellNeed, cells: list[Cell]) -> list[Cell]:
    """The cells of the need's task, model and setting by one of its methods."""
    pairs = [pair.split() for pair in need.methods]
    return [c for c in cells if c.task == need.task and c.method != RAW
            and need.model in (None, c.model) and _setting_matches(c, need.setting)
            and any(lang in ("*", c.language) and method in ("*", c.method)
                    for lang, method in pairs)]


def _points(cells: list[Cell], language: str, method: str) -> int:
    """Distinct sizes (n, and k for the arrays sweep) measured by language · method."""
    return len({(c.n, c.settings.get("k")) for c in cells
                if c.language == language and method in ("*", c.method)})


def need_met(need: CellNeed, cells: list[Cell]) -> bool:
    """The supported cells give the need in one model and, for "*", one language."""
    found = [c for c in _candidates(need, cells) if not c.unsupported]
    for model in {c.model for c in found}:
        in_model = [c for c in found if c.model == model]
        for language in LANGUAGES:
            met = sum(_points(in_model, language if lang == "*" else lang, method)
                      >= need.points for lang, method in map(str.split, need.methods))
            if met >= (need.least or len(need.methods)):
                return True
    return False


def figure_gap(fig: PublishedFigure, cells: list[Cell],
               languages: tuple[str, ...] = LANGUAGES) -> str | None:
    """None when the cells give every need of the figure; else why not: the languages without
    a driver (`languages`: those with one), the cells the drivers cannot run (network figures:
    not yet measurable)."""
    for need in fig.cells:
        if need_met(need, cells):
            continue
        absent = {f"no {lang} driver found" for lang, _ in map(str.split, need.methods)
                  if lang != "*" and lang not in languages}
        why = sorted(absent | {c.unsupported for c in _candidates(need, cells)
                               if c.unsupported})
        what = (f"{need.task} of {need.model or 'one model'} by {', '.join(need.methods)}"
                + (f" at {need.setting}" if need.setting else ""))
        prefix = "not yet measurable" if TASKS[need.task].net else "not measurable here"
        return (f"{prefix}: {what}: " + ("; ".join(why[:3]) + (" …" if len(why) > 3 else "")
                                         if why else "the plan has no such cells"))
    return None


def figure_gaps(cells: list[Cell], languages: tuple[str, ...] = LANGUAGES) -> dict[str, str]:
    """Each published figure the cells cannot give, with the reason."""
    return {fig.key: gap for fig in FIGURES
            if (gap := figure_gap(fig, cells, languages)) is not None}


# -- the estimate ----------------------------------------------------------------------------

# The time model, fitted on the quick plan's first measured run on the 2-core development VM
# (within 3 % of its 5:31, task by task within 2x; the plan as it is now, with JIT warm-ups:
# 7:38 estimated, 6:51 measured): a fresh driver process per language × method × model,
# with its verification
START_S = {"java": 0.6, "cpp": 0.05, "rust": 0.05}
CELL_S = 0.15              # a request, its checks and its stored samples
CODEC_BYTES_PER_S = 80e6   # JSON-sized bytes a method encodes or decodes per second (the mean
                           # over methods: binary ones are 10x faster, Java JSON+gzip slower)
DISK_BYTES_PER_S = 150e6   # cold reads and writes
COMPRESS_BYTES_PER_S = 32e6  # the harness's own cells (sizes): gzip of the method's file, zstd
                             # beside it (100 MB of customer JSON: 2.8-3.1 s, two runs)
DATA_BYTES_PER_S = 25e6    # making a dataset: generation, checksum and hashes
RESULT_BYTES_PER_CELL = 20_000  # its samples and counters in the results database


@dataclass(frozen=True)
class Estimate:
    seconds_by_task: dict[str, float]
    start_seconds: float    # driver processes
    data_seconds: float     # the datasets to make
    files_seconds: float    # every batch's paged files, made once
    data_bytes: int         # the datasets to make
    files_bytes: int        # the largest batch's paged files, deleted after it
    results_bytes: int
    jvms: int               # the most Java processes alive at once (java_processes)

    @property
    def seconds(self) -> float:
        return (sum(self.seconds_by_task.values()) + self.start_seconds + self.data_seconds
                + self.files_seconds)

    @property
    def disk_bytes(self) -> int:
        return self.data_bytes + self.files_bytes + self.results_bytes


def _object_bytes(cell: Cell, sizes: Sizes) -> float:
    k = cell.settings.get("k")
    return arrays_bytes(k) if k is not None else sizes.object_bytes[(cell.dataset_dir,
                                                                     cell.model)]


def _work(cell: Cell, sizes: Sizes) -> tuple[float, float]:
    """(codec bytes, disk bytes) of one repetition, as its task declares them."""
    b = _object_bytes(cell, sizes)
    return TASKS[cell.task].work(cell, b, sizes.count(cell.dataset_dir, cell.model) * b)


def cell_seconds(cell: Cell, sizes: Sizes) -> float:
    """CELL_S, then every warm-up and repetition's work over its least rounds at the model's
    rates, the least warm-up time and, for a JIT, half its longest warm-up (a network cell:
    each round's); a cell's own processes (micro's forks, a network task's nodes) at START_S
    each."""
    if TASKS[cell.task].by_harness:  # one untimed round over the batch's file of the method
        return CELL_S + cell.n * _object_bytes(cell, sizes) / COMPRESS_BYTES_PER_S
    codec, disk = _work(cell, sizes)
    passes = _passes(cell)
    seconds = CELL_S + passes * (codec / CODEC_BYTES_PER_S + disk / DISK_BYTES_PER_S)
    # every round of a network cell starts its nodes afresh, and warms them up again
    fresh_rounds = rule_of(cell).rounds_min if TASKS[cell.task].net else 0
    # (a network cell's new nodes warm as a fresh process does: NetCell.of)
    warm_ms = max(cell.warmup_max_ms, cell.prewarm_max_ms) if fresh_rounds else cell.warmup_max_ms
    jit = max(fresh_rounds, 1) * warm_ms / 2000 if cell.language == "java" else 0
    seconds += cell.warmup_ms / 1000 + jit
    nodes = tree_size(3) * fresh_rounds
    processes = cell.forks + nodes
    return seconds + processes * START_S[cell.language]


def cell_cost(sizes: Sizes):
    """A cell's estimated seconds, for the time left of a run in progress (an unsupported
    cell is answered at once)."""
    return lambda cell: 0.0 if cell.unsupported else cell_seconds(cell, sizes)


# The pace (measured time over the estimate of the cells done) is read once this much
# estimated work is done: before that, one driver's start or JIT warm-up would set it.
PACE_AFTER_S = 60.0


def time_left(estimate_left: float, estimate_done: float, elapsed: float) -> float | None:
    """The estimate of the cells left at this run's pace so far, or None before the pace is
    known. The model's rates are one machine's means (the fast methods' cells measured up to
    6x under it), so the pace corrects it for this machine and this plan."""
    if estimate_done <= 0 or estimate_done < PACE_AFTER_S:
        return None
    return estimate_left * elapsed / estimate_done


def _passes(cell: Cell) -> int:
    """Warm-ups and repetitions over the cell's least rounds (rounds.py): the plan's warm-ups
    in the first round and in every fork or network round, at most one in the others."""
    rounds = rule_of(cell).rounds_min
    if fresh_each_round(cell):
        return rounds * (cell.warmups + cell.repetitions)
    return cell.warmups + cell.repetitions + (rounds - 1) * (min(cell.warmups, 1)
                                                             + cell.repetitions)


def estimate(cells: list[Cell], sizes: Sizes, made: list[Recipe], root: Path) -> Estimate:
    runnable = [c for c in cells if not c.unsupported]
    by_task: dict[str, float] = defaultdict(float)
    for cell in runnable:
        by_task[cell.task] += cell_seconds(cell, sizes)
    groups = {c.group_key for c in runnable}
    files = _batch_files(runnable)  # each batch's files, made once and kept while it runs
    data_bytes = sum(recipe.counts[m] * recipe.object_bytes[m]
                     for recipe in made for m in recipe.missing(root))
    return Estimate(dict(by_task), sum(START_S[g[3]] for g in groups),
                    data_bytes / DATA_BYTES_PER_S, _files_seconds(files, sizes),
                    round(data_bytes), _largest_batch(runnable, files, sizes),
                    RESULT_BYTES_PER_CELL * len(runnable), java_processes(runnable))


def java_processes(cells: list[Cell]) -> int:
    """The most JVMs alive at once, each of which may grow to its maximum heap: a batch keeps
    one driver process per Java group through its single-machine rounds, and a Java network
    cell's round runs its nodes beside its own group's process alone (Runner.round_of)."""
    most = 0
    for batch in batches(cells):
        java = [c for c in batch if c.language == "java"]
        rounds = [1 + _node_processes(c) for c in java if TASKS[c.task].net]
        most = max(most, len({c.group_key for c in java}), *rounds)
    return most


def _node_processes(cell: Cell) -> int:
    """A fetch's servers and its client; a tree's nodes."""
    servers = cell.settings.get("servers")
    return servers + 1 if servers else tree_size(3)


def _batch_files(cells: list[Cell]) -> dict[tuple, set]:
    """Each batch's (dataset × model × page size) files: one per language · method · variant
    it reads or writes, and a write floor's copy of the method's file."""
    files: dict[tuple, set] = defaultdict(set)
    for c in cells:
        if TASKS[c.task].net:
            continue
        if c.method != RAW:
            files[c.group_key[:3]].add((c.language, c.method, c.variant))
        elif c.task == "write":
            files[c.group_key[:3]].add((c.language, RAW, c.variant))
    return files


def _files_seconds(files: dict[tuple, set], sizes: Sizes) -> float:
    """Making every batch's files once (the whole dataset encoded and written), which the
    cells reading them then share."""
    return sum(len(kept) * sizes.count(*batch[:2]) * sizes.object_bytes[batch[:2]]
               * (1 / CODEC_BYTES_PER_S + 1 / DISK_BYTES_PER_S)
               for batch, kept in files.items())


def _largest_batch(cells: list[Cell], files: dict[tuple, set], sizes: Sizes) -> int:
    """A batch keeps its files (counted at the dataset's JSON size) and the runs of one sort
    at a time; the runner deletes them when the batch ends."""
    sort: dict[tuple, float] = defaultdict(float)
    for c in cells:
        if c.task == "sort_dedup":
            sort[c.group_key[:3]] = max(sort[c.group_key[:3]], c.n * _object_bytes(c, sizes))
    return round(max((len(kept) * sizes.count(*batch[:2]) * sizes.object_bytes[batch[:2]]
                      + sort[batch] for batch, kept in files.items()),
                     default=0))
