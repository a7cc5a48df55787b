"""Encoded and compressed size per object, per model and method × language."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import PurePosixPath

from .blocks import Plot, Row, Section, Table
from .data import Cell
from .plots import SizeBar, size_figure
from .series import LANGUAGES, MODELS, canonical
from .units import byte_size, multiple


# where sizes come from, most authoritative first
SIZE_TASKS = ("sizes", "write")
# schema definitions some methods list beside their adapter (inputs of code generators)
SCHEMA_SUFFIXES = (".proto", ".fbs", ".capnp", ".avsc", ".avdl", ".avpr")
LOC_RULE = ("Lines of code: non-blank lines of the files the driver's info lists for the method "
            "in its files entry, each counted in full for every method that lists it; files "
            "the harness recognises as generated (under a directory named generated*, or whose "
            "first five lines say generated and do not edit or modify) are skipped. Code a "
            "method uses without listing it (the driver's main loop, paged files and models, "
            "any helper it does not list) and its libraries are not counted.")


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
        # a write floor's file is a byte copy of its method's: no size of its own
        if cell.status != "ok" or cell.task not in SIZE_TASKS or cell.is_floor or \
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
                 rows, loc_caption(entries) + " Libraries: the size of the library jars the "
                 "method loads (Java; — where a driver links its libraries into one binary).",
                 numeric=frozenset({1, 2, 3, 4, 5, 6, 7}))


def _methods(keys: set[tuple[str, str]]) -> str:
    return ", ".join(sorted(method for _, method in keys))


def _names(paths) -> str:
    return ", ".join(sorted({PurePosixPath(p).name for p in paths}))


def _listed(entries: list[SizeEntry], key: str) -> dict[tuple[str, str], list[str]]:
    """(language, method) -> the file names a sizes cell recorded under `key`."""
    return {(e.language, e.method): e.source.counters[key] for e in entries
            if isinstance(e.source.counters.get(key), list)}


def shared_files(counted: dict[tuple[str, str], list[str]]) -> dict[tuple, list[str]]:
    """(language, methods) -> the files each of those methods counts: files several methods of
    one driver list, so their lines are in every one of those methods' counts."""
    owners: dict[tuple[str, str], set] = defaultdict(set)
    for (language, method), files in counted.items():
        for name in files:
            owners[(language, name)].add((language, method))
    shared: dict[tuple, list[str]] = defaultdict(list)
    for (language, name), keys in owners.items():
        if len(keys) > 1:
            shared[(language, frozenset(keys))].append(name)
    return shared


def loc_exceptions(entries: list[SizeEntry]) -> list[str]:
    """Where this table's counts depart from "the method's own adapter", from the file names
    the sizes cells recorded: shared files, schema definitions, generated files skipped."""
    counted = _listed(entries, "loc_files")
    notes = [f"{language} {_names(files)} counted in each of {_methods(keys)}"
             for (language, keys), files in sorted(shared_files(counted).items(),
                                                   key=lambda kv: (kv[0][0], sorted(kv[0][1])))]
    schemas = {key: [f for f in files if f.endswith(SCHEMA_SUFFIXES)]
               for key, files in counted.items()}
    notes += [f"{language} {method} counts {len(files)} schema definitions (" + ", ".join(
                  sorted({PurePosixPath(f).suffix for f in files})) + ")"
              for (language, method), files in sorted(schemas.items()) if files]
    notes += [f"{language} {method} lists generated {_names(files)}, skipped"
              for (language, method), files in sorted(_listed(entries, "generated_files").items())
              if files]
    return notes


def loc_caption(entries: list[SizeEntry]) -> str:
    """The lines-of-code rule, and what this table's counts hold beyond each adapter."""
    with_loc = [e for e in entries if e.loc is not None]
    if not with_loc:
        return ""
    if any("loc_files" not in e.source.counters for e in with_loc):
        # recorded before the harness kept the names: the rule differed and nothing is known
        return ("Lines of code: non-blank lines of every file the driver's info lists for the "
                "method, generated files included (this run did not record which files were "
                "counted, so which are shared or generated is not known).")
    notes = loc_exceptions(with_loc)
    exceptions = (" In this table: " + "; ".join(notes) + "; no other method lists a shared, "
                  "schema or generated file.") if notes else \
        " No method in this table lists a shared, schema or generated file."
    return LOC_RULE + exceptions


def sizes_section(entries: dict[str, list[SizeEntry]]) -> Section | None:
    if not entries:
        return None
    section = Section("sizes", "Sizes", "Average encoded bytes per object (from the sizes task "
                      "when present, else from the largest write); compressed: the gzip or zstd "
                      "size of the whole data file divided by its objects.")
    for model, model_entries in entries.items():
        plot = Plot(f"plot-sizes-{model}", size_figure(size_bars(model_entries),
                                                       f"{model}: bytes per object"),
                    "One bar per method where its languages write the same bytes (the "
                    "languages in brackets), else one per language.")
        section.children.append(Section(f"sizes-{model}", f"Sizes · {model}",
                                        blocks=[plot, size_table(model, model_entries)]))
    return section


def size_bars(entries: list[SizeEntry]) -> list[SizeBar]:
    """A bar per method whose languages' (and variants') files hold the same bytes per object
    (cross-language formats, most of them), naming them; else a bar per language."""
    same: dict[tuple, list[SizeEntry]] = defaultdict(list)
    for e in entries:
        same[(e.method, e.avg, e.gzip, e.zstd)].append(e)
    return [SizeBar(f"{method} ({', '.join(_who(e) for e in group)})", avg, gzip, zstd)
            for (method, avg, gzip, zstd), group in same.items()]


def _who(e: SizeEntry) -> str:
    return " ".join(filter(None, [e.language, e.variant]))
