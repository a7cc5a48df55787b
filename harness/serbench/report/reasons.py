"""Why a published figure and this run's may differ: what the study declared it ran
(published.py) against what the run's cells, counters and provenance hold. Each reason has
one snake_case id; its text is computed, never written per figure. What every figure shares
(the hardware and toolchains, this run's and the studies') is said once, in the chapter's
caption (`shared_facts`), not in each row."""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..reproduce.published import (PER_OBJECT, STUDIES, STUDY_METHODS, WHOLE_FILE, CellNeed,
                                   PublishedFigure)
from .data import Cell, Run
from .series import LANGUAGES
from .size_views import SIZE_TASKS
from .units import multiple


@dataclass(frozen=True)
class Reason:
    id: str
    text: str

    @property
    def short(self) -> str:
        """A phrase for the chapter's table; the text is its detail (hover, Markdown)."""
        return SHORT.get(self.id, self.id)


# each reason in a few words (reason ids as the functions below make them)
SHORT = {"lazy_read": "study read lazily", "json_text": "study stored JSON text",
         "gzip_mode": "gzipped otherwise", "data_size": "other data size",
         "libraries": "library versions", "unsteady": "unsteady cells left out",
         "cold_unproven": "cold not shown", "trusting": "unchecked reads"}


# data sizes within this factor of each other are the same scale
SAME_SCALE = 2


def _matches(pattern: str, language: str, method: str) -> bool:
    """A CellNeed method pattern ("java *", "* json", "cpp inplace") against a cell."""
    want_language, want_method = pattern.split()
    return want_language in ("*", language) and want_method in ("*", method)


def _has_setting(need: CellNeed, c: Cell) -> bool:
    """Each key=value the need names is the cell's setting (threads: its threads), or what
    its dataset made (a counter within 5 %, as the comparisons take a measured density)."""
    have = {**c.counters, **c.settings, "threads": c.threads}
    return all(_same(have.get(k), v) for k, v in
               (item.split("=", 1) for item in need.setting.split()))


def _same(got, want: str) -> bool:
    try:
        return math.isclose(float(got), float(want), rel_tol=0.05)
    except (TypeError, ValueError):
        return str(got) == want


def figure_cells(fig: PublishedFigure, measured) -> list[Cell]:
    """The run's cells with numbers a figure's comparison reads from (its CellNeeds): the
    default variant of each matching method, every depth, n and setting."""
    found = []
    for need in fig.cells:
        tasks = SIZE_TASKS if need.task == "sizes" else (need.task,)
        for tm in (tm for task in tasks for tm in measured.tasks.get(task, [])):
            if (need.model or fig.model) not in (None, tm.model):
                continue
            found += [c for s in tm.series if not s.is_floor and not s.key.variant
                      and any(_matches(p, s.key.language, s.key.method) for p in need.methods)
                      for c in s.cells.values() if _counted(c) and _has_setting(need, c)]
    return found


def _counted(c: Cell) -> bool:
    """A cell with numbers: timed samples, or a sizes cell's counters (it has no samples)."""
    return c.measured or (c.task == "sizes" and c.status == "ok")


def _study_methods(fig: PublishedFigure):
    """The study's own methods a figure names (Table 1 and the tweet tables)."""
    return [STUDY_METHODS[name] for name in fig.values if name in STUDY_METHODS]


def lazy_read(fig, measured, cells, run) -> Reason | None:
    """The study read some methods lazily; the run compares materialized (equal-depth) reads
    of them where it has those cells at steady state (the comparisons prefer depth
    materialize and leave unsteady cells out)."""
    read = {(c.language, c.method) for c in cells
            if c.depth == "materialize" and c.steady is not False}
    lazy = [m.name for m in _study_methods(fig)
            if m.depth != "materialize" and (m.language, m.method) in read]
    if not lazy:
        return None
    return Reason("lazy_read", f"equal depth: this run materialized {', '.join(lazy)}, which "
                               f"the study read lazily (depth access)")


def json_text(fig, measured, cells, run) -> Reason | None:
    ran = {(c.language, c.method) for c in cells}
    named = [m for m in _study_methods(fig)
             if m.via_json_text and (m.language, m.method) in ran]
    if not named:
        return None
    return Reason("json_text", "; ".join(f"{m.name} stored JSON text; this run's "
                                         f"{m.language} {m.method} stores the format's own bytes"
                                         for m in named))


GZIP_MODES = {PER_OBJECT: "each object alone (json_gzip)",
              WHOLE_FILE: "the whole file (the json file's gzip)"}


def gzip_mode(fig, measured, cells, run) -> Reason | None:
    """The study's gzip mode, and this run's figure in the other mode where it has it:
    json_gzip gzips each object (PROTOCOL.md 8.1), a file's gzip counter the whole file."""
    study = fig.gzip or next((m.gzip for m in _study_methods(fig) if m.gzip), "")
    entries = [e for e in measured.sizes.get(fig.model, []) if not e.variant]
    by_mode = {PER_OBJECT: {e.language: e.avg for e in entries if e.method == "json_gzip"},
               WHOLE_FILE: {e.language: e.gzip for e in entries if e.method == "json" and e.gzip}}
    other = WHOLE_FILE if study == PER_OBJECT else PER_OBJECT
    if not study or not by_mode[study] or not by_mode[other]:
        return None
    values = ", ".join(f"{by_mode[other][lang]:,.0f} B ({lang})" for lang in LANGUAGES
                       if lang in by_mode[other])
    return Reason("gzip_mode", f"the study gzipped {GZIP_MODES[study]}, as the compared figure "
                               f"does; gzipping {GZIP_MODES[other]}: {values} per object")


def data_size(fig, measured, cells, run) -> Reason | None:
    timed = [c.n for c in cells if c.task not in SIZE_TASKS]
    if fig.objects is None or not timed:
        return None
    largest = max(timed)
    if max(largest, fig.objects) / min(largest, fig.objects) < SAME_SCALE:
        return None
    fewer = "fewer" if largest < fig.objects else "more"
    factor = max(largest, fig.objects) / min(largest, fig.objects)
    return Reason("data_size", f"data size: the study {fig.objects:,} objects, this run "
                               f"n = {largest:,} at most ({multiple(factor)} {fewer})")


# the fields of a driver's info toolchain that name its version, as "{field} {value}"
TOOLCHAIN_FIELDS = ("java", "rustc", "standard", "compiler")


def _toolchain(run: Run, language: str) -> str:
    """The run's compiler or runtime version for `language`, from its driver's info."""
    info = ((run.drivers.get(language) or {}).get("info") or {}).get("toolchain") or {}
    return ", ".join(f"{k} {info[k]}" for k in TOOLCHAIN_FIELDS if k in info)


def shared_facts(run: Run | None) -> str:
    """The hardware and toolchains of this run and of each study that names them: the same
    for every figure, so the chapter's caption says them once."""
    if run is None:
        return ""
    languages = [lang for lang in LANGUAGES if lang in run.drivers]
    toolchains = ", ".join(f"{lang} {_toolchain(run, lang) or 'not recorded'}"
                           for lang in languages)
    studies = "; ".join(f"the {source} on {study.hardware} ({study.cores} cores) with "
                        f"{', '.join(study.toolchains.values())}"
                        for source, study in STUDIES.items())
    cpu = run.host.get("cpu_model") or "a CPU not recorded"
    return (f"The same for every row, so not in its reasons: this run on {cpu} "
            f"({run.host.get('logical_cores') or '?'} logical cores) with "
            f"{toolchains or 'no driver recorded'}; {studies}; the other sources name neither "
            "hardware nor toolchains.")


def _libraries(run: Run, language: str, method: str) -> str:
    """`name version` of each library the method's driver says it uses (info
    `methods.<id>.libraries`), or "" where the driver names none."""
    info = ((run.drivers.get(language) or {}).get("info") or {}).get("methods") or {}
    named = (info.get(method) or {}).get("libraries") or {}
    return ", ".join(f"{name} {version}" for name, version in sorted(named.items()))


def libraries(run: Run | None, compared) -> Reason | None:
    """The library versions of the methods the figure compares (the outcome's), in this run;
    the studies name none, so a reader can at least see what changed since by the libraries'
    own histories."""
    if run is None:
        return None
    methods = sorted(compared, key=lambda lm: (LANGUAGES.index(lm[0]) if lm[0] in LANGUAGES
                                               else 9, lm[1]))
    named = [f"{language} {method}: {used}" for language, method in methods
             if (used := _libraries(run, language, method))]
    if not named:
        return None
    return Reason("libraries", "libraries now (the study names no versions): "
                               + "; ".join(named))


def _labelled(reason_id: str, what: str, pick: Callable[[Cell], bool]):
    """A reason that counts the figure's cells carrying one label."""
    def reason(fig, measured, cells, run) -> Reason | None:
        k = sum(1 for c in cells if pick(c))
        return Reason(reason_id, f"{k:,} of the {len(cells):,} cells it needs {what}") \
            if k else None
    return reason


STUDY_REASONS = (lazy_read, json_text, gzip_mode, data_size)
LABELS = (
    _labelled("unsteady", "ran unsteady (left out of the verdict)", lambda c: c.steady is False),
    _labelled("cold_unproven", "not shown to be cold", lambda c: bool(c.cold_note)),
    _labelled("trusting", "read bytes without checking them", lambda c: c.trusting),
)


def reasons(fig: PublishedFigure, measured, run: Run | None, compared=frozenset()
            ) -> list[Reason]:
    """Everything the run knows that may explain a difference from the published figure;
    `compared`: the (language, method) pairs its outcome shows."""
    cells = figure_cells(fig, measured)
    found = [check(fig, measured, cells, run) for check in STUDY_REASONS]
    found.append(libraries(run, compared))
    found += [check(fig, measured, cells, run) for check in LABELS]
    return [r for r in found if r is not None]
