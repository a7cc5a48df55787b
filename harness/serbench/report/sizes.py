"""Encoded and compressed size per object, per model and method × language."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from .blocks import Plot, Row, Section, Table
from .data import Cell
from .figures import SizeBar, size_figure
from .series import LANGUAGES, MODELS, canonical
from .units import byte_size, multiple

# where sizes come from, most authoritative first
SIZE_TASKS = ("sizes", "write")


@dataclass(frozen=True)
class SizeEntry:
    model: str
    language: str
    method: str
    variant: str
    source: Cell          # the cell whose counters gave the sizes
    avg: float            # encoded bytes per object
    gzip: float | None    # gzip bytes of the data file per object
    zstd: float | None
    max_bytes: int | None  # the largest object (sizes task only)
    loc: int | None        # non-blank lines of the method's own files (sizes task only)
    library_bytes: int | None = None  # the library jars the driver lists (Java; sizes task)

    @property
    def label(self) -> str:
        return " · ".join(filter(None, [self.language, self.method, self.variant]))


def _entry(cell: Cell) -> SizeEntry:
    objects = cell.counters.get("objects") or cell.n

    def per_object(name: str) -> float | None:
        value = cell.counters.get(name)
        return value / objects if value is not None and objects else None

    return SizeEntry(cell.model, cell.language, cell.method, cell.variant, cell,
                     float(cell.counters["avg_object_bytes"]), per_object("gzip_bytes"),
                     per_object("zstd_bytes"), cell.counters.get("max_object_bytes"),
                     cell.counters.get("loc"), cell.counters.get("library_bytes"))


def size_entries(cells: list[Cell]) -> dict[str, list[SizeEntry]]:
    """Per model, one entry per method × language × variant: from the sizes task, else from the
    largest write."""
    chosen: dict[tuple, Cell] = {}
    for cell in cells:
        if cell.status != "ok" or cell.task not in SIZE_TASKS or \
                "avg_object_bytes" not in cell.counters:
            continue
        key = (cell.model, cell.language, cell.method, cell.variant)
        rank = (-SIZE_TASKS.index(cell.task), cell.n)
        if key not in chosen or rank > (-SIZE_TASKS.index(chosen[key].task), chosen[key].n):
            chosen[key] = cell
    by_model: dict[str, list[SizeEntry]] = defaultdict(list)
    for cell in chosen.values():
        by_model[cell.model].append(_entry(cell))
    return {model: sorted(by_model[model],
                          key=lambda e: (e.avg, e.method, canonical(e.language, LANGUAGES)))
            for model in sorted(by_model, key=lambda m: canonical(m, MODELS))}


def _optional(value: float | None) -> str:
    return f"{value:,.0f}" if value is not None else "—"


def size_table(model: str, entries: list[SizeEntry]) -> Table:
    smallest = entries[0].avg
    rows = [Row([e.label, f"{e.avg:,.0f}", multiple(e.avg / smallest), _optional(e.gzip),
                 _optional(e.zstd), _optional(e.max_bytes), _optional(e.loc),
                 "—" if e.library_bytes is None else byte_size(e.library_bytes),
                 f"{e.source.task}, n = {e.source.n:,}"]) for e in entries]
    return Table(f"Sizes: {model}", ["implementation", "bytes / object", "× smallest",
                                     "gzip bytes / object", "zstd bytes / object",
                                     "largest object (bytes)", "lines of code", "libraries",
                                     "from"],
                 rows, "Lines of code: non-blank lines of the files the driver lists as the "
                 "method's own (its adapter; shared code and generated code not counted). "
                 "Libraries: the size of the library jars the method loads (Java; — where a "
                 "driver links its libraries into one binary).",
                 numeric=frozenset({1, 2, 3, 4, 5, 6, 7}))


def sizes_section(entries: dict[str, list[SizeEntry]]) -> Section | None:
    if not entries:
        return None
    section = Section("sizes", "Sizes", "Average encoded bytes per object (from the sizes task "
                      "when present, else from the largest write); compressed: the gzip or zstd "
                      "size of the whole data file divided by its objects.")
    for model, model_entries in entries.items():
        bars = [SizeBar(e.label, e.avg, e.gzip, e.zstd) for e in model_entries]
        plot = Plot(f"plot-sizes-{model}", size_figure(bars, f"{model}: bytes per object"))
        section.children.append(Section(f"sizes-{model}", f"Sizes · {model}",
                                        blocks=[plot, size_table(model, model_entries)]))
    return section
