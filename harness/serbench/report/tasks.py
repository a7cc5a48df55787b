"""Per-task sections, one subsection per model (and per host on a cluster, so that no ranking
mixes two machines): what a task's section shows follows from its
descriptor's `view` (tasks/spec.py); a task this harness does not know still gets the generic
timed section (time against n, cpu/io split, ranking).
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from ..compare.noise import DEFAULT, Profile
from ..tasks import task_spec
from .blocks import Plot, Row, Section, Table
from .data import EVICTING, Cell
from .leaders import Entry, compared_groups, language_table, languages_of
from .net_views import net_views
from .plots import Palette, cpu_io_figure, time_figure
from .series import (MODELS, TASKS, Ranking, RankRow, Series, build_series, canonical, chosen_n,
                     floor_series, ok_status, rankings)
from .task_views import memory_views, micro_views, par_views, sort_views
from .units import TimeUnit, multiple, number, unit_for


@dataclass(frozen=True)
class TaskModel:
    """Everything a section builder needs about one task × model."""
    task: str
    model: str
    series: list[Series]
    n: int | None
    shared_n: bool
    palette: Palette
    noise: Profile  # the run-to-run noise a rank step must clear, as the run recorded it
    host: str = ""  # the cluster host its cells ran on (Cell.host); "" on one machine

    @property
    def slug(self) -> str:
        return "-".join(filter(None, [self.task, self.model, re.sub(r"\W+", "-", self.host)]))

    @property
    def where(self) -> str:
        """Its model, and its host on a cluster: what its titles name."""
        return self.model + (f" on {self.host}" if self.host else "")

    @property
    def n_note(self) -> str:
        why = ("the largest n every valid series has" if self.shared_n
               else "the largest n measured; not every series has it")
        return f"n = {self.n:,} ({why})"

    @property
    def floors(self) -> list[Series]:
        return floor_series(self.series, self.n)

    @cached_property
    def compared(self) -> dict[str, list[Entry]]:
        """Its measured implementations by what is compared (leaders.compared_groups): the
        summary's answer, the section's per-language table and the agreement read it once."""
        return compared_groups(self)

    def rankings(self) -> list[Ranking]:
        return rankings(self.series, self.n, self.noise_of)

    def noise_of(self, cell: Cell) -> float:
        return self.noise.of(cell.task, cell.language)


Builder = Callable[[TaskModel], list]


def time_plot(tm: TaskModel) -> list:
    if len({n for s in tm.series for n in s.measured_ns}) < 2:
        return []  # one n (e.g. a write of the whole dataset): the cpu/io bars show it
    figure = time_figure(tm.series, tm.floors, tm.palette,
                         f"{tm.task} · {tm.where}: time against n")
    if figure is None:
        return []
    return [Plot(f"plot-{tm.slug}-time", figure,
                 "Median total time over the measured repetitions (warm-ups excluded), whiskers "
                 "min–max, log-log; one panel per access depth. Colour: method; marker: language "
                 "(circle rust, square cpp, diamond java); hollow: not fully decoded. Dashed "
                 "grey: the raw floor per language, the fastest raw read (pages read and hashed, "
                 "nothing decoded) of any method's file.")]


def cpu_io_plot(tm: TaskModel) -> list:
    floors = tm.floors
    bars = floors + [s for s in tm.series if not s.is_floor]
    figure = cpu_io_figure(bars, tm.n, f"{tm.task} · {tm.where}: cpu and io") if tm.n else None
    if figure is None:
        return []
    caption = (f"Bar length: the median total time over the measured repetitions (warm-ups "
               f"excluded) at {tm.n_note}. Split: cpu is that median times the median over "
               f"the repetitions of each one's cpu share, cpu_ns / (cpu_ns + io_ns); io is the "
               f"rest. (The median cpu time and the median io time, stacked, need not add up to "
               f"the median total.) io: {_io_meaning(tm.task)}; cpu: the rest of the "
               f"repetition; both measured inside the driver.")
    return [Plot(f"plot-{tm.slug}-cpuio", figure,
                 caption + (" Hatched: the raw floor." if floors else ""))]


def _io_meaning(task: str) -> str:
    # a network node also blocks on its sockets (PROTOCOL.md, network tasks)
    if (spec := task_spec(task)) is not None and spec.net is not None:
        return "time the timing node (client or root) was blocked in socket and file calls"
    return "time inside read/write/fsync calls"


def _floor_meaning(task: str) -> str:
    spec = task_spec(task)
    return (spec and spec.floor_is) or "the fastest raw read of any method's file"


def _own_floor_meaning(task: str) -> str:
    spec = task_spec(task)
    return (spec and spec.over_floor_is) or (
        "the median over the raw read of the file the same method wrote, i.e. what decoding "
        "and visiting add to reading the bytes.")


TIE_RULE = ("A new rank begins only at a row this run sets apart from the fastest row of the "
            "rank above: the mean of their per-round time ratios (the rounds interleave every "
            "compared cell, so the machine's drift cancels) clears Student's t at 95 % times "
            "its standard error together with both cells' run-to-run noise; rows it does not "
            "set apart from it share its rank, marked = (2= 2= 4: tied second, then fourth).")


def ranking_tables(tm: TaskModel) -> list:
    return [ranking_table(tm, r) for r in tm.rankings()]


def _noise_here(tm: TaskModel) -> str:
    """The run-to-run noise this task's rows were ranked with, per language where measured."""
    languages = sorted({s.key.language for s in tm.series})
    own = [f"{language} {tm.noise.sigma[key]:.1%}" for language in languages
           if (key := f"{tm.task}/{language}") in tm.noise.sigma]
    return (f"Run-to-run noise of {tm.task}: {tm.noise.of(tm.task):.1%}"
            + (f" ({', '.join(own)})" if own else "") + f", {tm.noise.source}.")


def ranking_table(tm: TaskModel, ranking: Ranking) -> Table:
    unit = _ranking_unit(ranking)
    depth = f"depth {ranking.depth}, " if ranking.depth else ""
    at = f"n = {ranking.n:,}" if ranking.n else "nothing measured"
    with_floor = any(r.over_floor for r in ranking.rows)
    with_jit = any(r.status == "ok" and r.cell.cold_jit_ns for r in ranking.rows)
    columns = (["rank", "implementation", f"median ({unit.name})", f"min–max ({unit.name})",
                "× best"] + (["× own file's raw"] if with_floor else [])
               + ([f"cold JIT ({unit.name})"] if with_jit else []) + ["reps", "status"])
    rows = [_rank_row(r, unit, with_floor, with_jit) for r in ranking.rows]
    caption = ("Median total time as a multiple of the fastest implementation at the same depth "
               f"(1.00x). Floor: per language, {_floor_meaning(tm.task)}. "
               f"{TIE_RULE} {_noise_here(tm)} unsteady: its measured repetitions were not "
               "at steady state (the JIT still compiling, or the times drifting one way), the "
               "reason follows; unjudged: fewer than five repetitions and no JIT figure to tell. "
               "trusts its bytes: the read uses the file's bytes without checking them (an "
               "unvalidated in-place access; its validating variant is ranked beside it).")
    if with_floor:
        caption += f" × own file's raw: {_own_floor_meaning(tm.task)}"
    if any(r.floor_paired for r in ranking.rows):
        caption += (f" Paired: the {tm.task} ran in rounds, each followed in the same process "
                    "by the floor of its file (floor_rounds); the figure is the median over "
                    "repetitions of each one's time over the floor's at its place in the "
                    "round, so both were timed under the same machine state.")
    if with_jit:
        caption += (" Cold JIT: the first repetition the cell's fresh JVM timed (after only the "
                    "round-trip check of the dataset), shown apart and never in the median.")
    return Table(f"Ranking: {tm.task} · {tm.where}, {depth}{at}", columns, rows, caption,
                 numeric=frozenset(range(2, len(columns) - 1)), badge=len(columns) - 1)


def _ranking_unit(ranking: Ranking) -> TimeUnit:
    medians = [r.cell.total.median for r in ranking.rows if r.status == "ok"]
    return unit_for(min(medians)) if medians else unit_for(1e6)


def _rank_row(row: RankRow, unit: TimeUnit, with_floor: bool, with_jit: bool) -> Row:
    blanks = 4 + with_floor + with_jit
    if row.status != "ok":
        status = f"{row.status} {row.note}".strip()
        return Row([row.rank or "—", row.series.label, *[""] * blanks, status], kind=row.status)
    total, cold_jit = row.cell.total, row.cell.cold_jit_ns
    values = [row.rank, row.series.label,
              number(unit.of(total.median)),
              f"{number(unit.of(total.low))}–{number(unit.of(total.high))}",
              multiple(row.multiple) if row.multiple else ""]
    if with_floor:
        paired = " paired" if row.floor_paired else ""
        values.append(multiple(row.over_floor) + paired if row.over_floor else "")
    if with_jit:
        values.append(number(unit.of(cold_jit)) if cold_jit else "")
    values += [f"{row.cell.reps:,}", " · ".join(filter(None, [ok_status(row.cell), row.note]))]
    kind = "partial" if row.note or row.cell.steady is False else ""
    return Row(values, kind="floor" if row.rank == "floor" else kind)


TIMED = (time_plot, cpu_io_plot, ranking_tables)
# each task's view (tasks/spec.py `view`): what its section shows
VIEWS: dict[str, tuple[Builder, ...]] = {
    "timed": TIMED,
    "par": (par_views, ranking_tables),
    "sort": (sort_views,),
    "memory": (memory_views,),
    "micro": (micro_views,),
    "sizes": (),  # the sizes section shows it
    "net": TIMED + (net_views,),
}


@dataclass(frozen=True)
class Shown:
    """How a task's section looks: its title, what is timed and its builders."""
    title: str
    what: str
    builders: tuple[Builder, ...]


def spec_for(task: str) -> Shown:
    """From the task's descriptor; a task this harness does not know (a run imported from
    another version) gets the generic timed section."""
    spec = task_spec(task)
    if spec is None:
        return Shown(task, "", TIMED)
    return Shown(spec.title, spec.what, VIEWS[spec.view])


def task_models(cells: list[Cell], palette: Palette, noise: Profile = DEFAULT,
                across_hosts: bool = False) -> dict[str, list[TaskModel]]:
    """Every task × model of the run, tasks and models in their canonical order; `noise`: the
    run-to-run noise its rankings must clear, as the run recorded it. On a cluster, one per
    host too, so that cells of two hosts are never ranked together, unless `across_hosts`."""
    grouped: dict[str, dict[tuple, list[Cell]]] = defaultdict(lambda: defaultdict(list))
    for cell in cells:
        grouped[cell.task][(cell.model, "" if across_hosts else cell.host)].append(cell)
    result = {}
    for task in sorted(grouped, key=lambda t: canonical(t, TASKS)):
        result[task] = []
        for model, host in sorted(grouped[task], key=lambda k: (canonical(k[0], MODELS), k[1])):
            series = build_series(grouped[task][(model, host)])
            n, shared = chosen_n(series)
            result[task].append(TaskModel(task, model, series, n, shared, palette, noise, host))
    return result


def eviction_summary(cells: list[Cell]) -> str:
    """How the measured cold reads were evicted (a write's `cold` flag evicts nothing)."""
    reads = [c for c in cells if c.cold and c.status == "ok" and c.task in EVICTING]
    cold = Counter(c.eviction or "not recorded" for c in reads)
    if not cold:
        return "no cold reads"
    unshown = Counter(c.eviction or "not recorded" for c in reads if c.cold_note)
    return ", ".join(f"{name} ({k:,} cells" + (f", {unshown[name]:,} not shown to be cold)"
                                               if unshown[name] else ")")
                     for name, k in cold.most_common())


def cache_note(cells: list[Cell]) -> str:
    """Cold or warm, and how cold repetitions were evicted (rule 5: the report says which)."""
    ok = [c for c in cells if c.status == "ok"]
    cold = sum(bool(c.cold) for c in ok)
    warm = len(ok) - cold
    parts = [f"Cold cache, evicted by {eviction_summary(ok)}"] if cold else []
    if warm:
        parts.append(f"{warm:,} warm cells" if cold else "Warm cache")
    return "; ".join(parts) + "." if parts else ""


def task_section(task: str, models: list[TaskModel]) -> Section | None:
    spec = spec_for(task)
    if not spec.builders:
        return None
    cells = [c for tm in models for s in tm.series for c in s.cells.values()]
    intro = f"{spec.what} {cache_note(cells)}" if task in EVICTING else spec.what
    section = Section(f"task-{task}", spec.title, intro)
    languages = languages_of(cells)
    for tm in models:
        blocks = [*language_table(tm, languages),
                  *(block for build in spec.builders for block in build(tm))]
        section.children.append(Section(tm.slug, f"{spec.title} · {tm.where}", blocks=blocks))
    return section
