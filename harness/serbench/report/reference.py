"""Published figures beside what this run measured, where the run has the corresponding cells."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..published import FIGURES, PublishedFigure
from .blocks import Row, Section, Table
from .series import LANGUAGES, Ranking, RankRow
from .sizes import SizeEntry
from .task_views import micro_round_trips
from .tasks import TaskModel
from .units import multiple, number, unit_for


@dataclass(frozen=True)
class Measured:
    sizes: dict[str, list[SizeEntry]]
    tasks: dict[str, list[TaskModel]]

    def task_model(self, task: str, model: str) -> TaskModel | None:
        return next((tm for tm in self.tasks.get(task, []) if tm.model == model), None)


@dataclass(frozen=True)
class Outcome:
    measured: str
    note: str = ""


Comparison = Callable[[PublishedFigure, Measured], Outcome | None]


def size_range(fig: PublishedFigure, m: Measured) -> Outcome | None:
    entries = m.sizes.get(fig.model)
    if not entries:
        return None
    low, high = entries[0], entries[-1]
    return Outcome(f"{low.avg:,.0f}–{high.avg:,.0f} B",
                   f"{len(entries)} method × language cells; smallest {low.label}, "
                   f"largest {high.label}")


def method_size(method: str) -> Comparison:
    def compare(fig: PublishedFigure, m: Measured) -> Outcome | None:
        found = [e for e in m.sizes.get(fig.model, []) if e.method == method and not e.variant]
        if not found:
            return None
        return Outcome(", ".join(f"{e.avg:,.0f} B ({e.language})" for e in found),
                       f"method {method}")
    return compare


UNSTEADY_LEFT_OUT = " (left out, measured before steady state: {})"


def _steady(rows: list[RankRow]) -> list[RankRow]:
    """A verdict is drawn only from numbers measured at steady state (or not judged)."""
    return [r for r in rows if r.cell.steady is not False]


def _left_out(rows: list[RankRow]) -> str:
    unsteady = [r.series.label for r in rows if r.cell.steady is False]
    return UNSTEADY_LEFT_OUT.format(", ".join(unsteady)) if unsteady else ""


def _spread(ranking: Ranking) -> tuple[float, RankRow, RankRow] | None:
    rows = _steady(ranking.measured)
    if len(rows) < 2:
        return None
    return rows[-1].cell.total.median / rows[0].cell.total.median, rows[0], rows[-1]


def spread(fig: PublishedFigure, m: Measured) -> Outcome | None:
    """Slowest / fastest median at the chosen n, within each model and access depth."""
    found = []
    for tm in m.tasks.get(fig.task, []):
        for ranking in tm.rankings():
            if (s := _spread(ranking)) is not None:
                found.append((s, tm.model, ranking))
    if not found:
        return None
    (ratio, fast, slow), model, ranking = max(found, key=lambda f: f[0][0])
    where = " · ".join(filter(None, [model, ranking.depth]))
    others = "; ".join(f"{' · '.join(filter(None, [mod, r.depth]))} {multiple(s[0])}"
                       for s, mod, r in found)
    left_out = "".join(_left_out(r.measured) for _, _, r in found)
    return Outcome(f"up to {multiple(ratio)} ({where}, n = {ranking.n:,})",
                   f"{slow.series.label} vs {fast.series.label}. At equal depth: {others}"
                   f"{left_out}")


def _by_language(entries: list[SizeEntry], method: str) -> dict[str, SizeEntry]:
    return {e.language: e for e in entries if e.method == method and not e.variant}


def _ratios(pairs: dict[str, tuple[float, float]]) -> str:
    ordered = sorted(pairs, key=lambda lang: LANGUAGES.index(lang) if lang in LANGUAGES else 9)
    return ", ".join(f"{multiple(a / b)} ({lang})" for lang in ordered for a, b in [pairs[lang]])


def size_ratio(numerator: str, denominator: str) -> Comparison:
    def compare(fig: PublishedFigure, m: Measured) -> Outcome | None:
        entries = m.sizes.get(fig.model, [])
        top, bottom = _by_language(entries, numerator), _by_language(entries, denominator)
        both = sorted(set(top) & set(bottom))
        if not both:
            return None
        text = _ratios({lang: (top[lang].avg, bottom[lang].avg) for lang in both})
        gzip = {lang: (top[lang].gzip, bottom[lang].gzip) for lang in both
                if top[lang].gzip and bottom[lang].gzip}
        if gzip:
            text += f"; gzip {_ratios(gzip)}"
        return Outcome(text, f"{numerator} / {denominator} bytes per object")
    return compare


def arrays_ratio(fig: PublishedFigure, m: Measured) -> Outcome | None:
    parts = [size_ratio(method, "handcoded")(fig, m) for method in ("xml", "protobuf")]
    found = [f"{method}: {p.measured}" for method, p in zip(("xml", "protobuf"), parts) if p]
    if not found:
        return None
    return Outcome("; ".join(found), "relative to the hand-coded layout: the raw strings and "
                   "ints plus 4-byte lengths")


def time_ratio(numerator: str, denominator: str) -> Comparison:
    def compare(fig: PublishedFigure, m: Measured) -> Outcome | None:
        tm = m.task_model(fig.task, fig.model)
        if tm is None or tm.n is None:
            return None
        rankings = tm.rankings()
        if not rankings:
            return None
        ranking = next((r for r in rankings if r.depth == "materialize"), rankings[0])
        rows = [r.series for r in _steady(ranking.measured)]
        cells = {(s.key.method, s.key.language): s.cells[ranking.n] for s in rows
                 if not s.key.variant}
        langs = {lang for _, lang in cells
                 if (numerator, lang) in cells and (denominator, lang) in cells}
        if not langs:
            return None
        pairs = {lang: (cells[(numerator, lang)].total.median,
                        cells[(denominator, lang)].total.median) for lang in langs}
        depth = f", depth {ranking.depth}" if ranking.depth else ""
        return Outcome(_ratios(pairs), f"{numerator} / {denominator} median time at "
                                       f"n = {ranking.n:,}{depth}"
                                       f"{_left_out(ranking.measured)}")
    return compare


def _duration(ns: float) -> str:
    unit = unit_for(ns)
    return f"{number(unit.of(ns))} {unit.name}"


def round_trip_ratio(slow: str, fast: str) -> Comparison:
    """`slow`'s micro round trip per object over `fast`'s, per language and buffer."""
    def compare(fig: PublishedFigure, m: Measured) -> Outcome | None:
        tm = m.task_model(fig.task, fig.model)
        if tm is None or tm.n is None:
            return None
        trips = micro_round_trips(tm, steady_only=True)
        pairs = sorted((lang, buffer) for method, lang, buffer in trips
                       if method == slow and (fast, lang, buffer) in trips)
        if not pairs:
            return None
        text = "; ".join(
            f"{_duration(trips[(slow, lang, buffer)])} vs {_duration(trips[(fast, lang, buffer)])}"
            f": {multiple(trips[(slow, lang, buffer)] / trips[(fast, lang, buffer)])} "
            f"({lang}, {buffer} buffer)" for lang, buffer in pairs)
        unsteady = sorted(micro_round_trips(tm).keys() - trips.keys())
        left_out = (UNSTEADY_LEFT_OUT.format(", ".join(" · ".join(k) for k in unsteady))
                    if unsteady else "")
        return Outcome(text, f"{slow} vs {fast}: encode + decode per object, materialized, "
                             f"at n = {tm.n:,}{left_out}")
    return compare


IN_PLACE = ("rkyv", "inplace")  # the methods that read objects where they lie


def _fetch_cells(m: Measured, model: str | None, source: str) -> tuple[str, list] | None:
    """net_fetch cells of one source: of `model` when the run has them, else of the first
    model it fetched; (model, [(series, cell)])."""
    tms = m.tasks.get("net_fetch", [])
    tm = next((t for t in tms if t.model == model), tms[0] if tms else None)
    if tm is None:
        return None
    found = [(s, c) for s in tm.series for c in s.cells.values()
             if c.measured and c.steady is not False and c.settings.get("source") == source]
    return (tm.model, found) if found else None


def fetch_size_and_time(slow: str, fast: str) -> Comparison:
    """From disk: `slow` / `fast` bytes moved and time, per language and request size."""
    def compare(fig: PublishedFigure, m: Measured) -> Outcome | None:
        got = _fetch_cells(m, fig.model, "disk")
        if got is None:
            return None
        model, cells = got
        by = {(s.key.method, s.key.language, c.n): c for s, c in cells}
        parts = []
        for (method, lang, n), c in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][2])):
            other = by.get((fast, lang, n))
            if method == slow and other is not None:
                size = c.counters.get("bytes_moved", 0) / max(other.counters.get("bytes_moved",
                                                                                   1), 1)
                parts.append(f"{lang} n = {n:,}/server: size {multiple(size)}, time "
                             f"{multiple(c.total.median / other.total.median)}")
        if not parts:
            return None
        return Outcome("; ".join(parts), f"{slow} / {fast} from disk, on {model}")
    return compare


def fetch_in_place(fig: PublishedFigure, m: Measured) -> Outcome | None:
    """From RAM at the smallest request: the closest other method's time / in-place's."""
    got = _fetch_cells(m, fig.model, "ram")
    if got is None:
        return None
    model, cells = got
    smallest = min(c.n for _, c in cells)
    at = [(s, c) for s, c in cells if c.n == smallest]
    parts = []
    for s, c in at:
        if s.key.method not in IN_PLACE:
            continue
        others = [(o, oc) for o, oc in at if o.key.language == s.key.language
                  and o.key.method not in IN_PLACE]
        if others:
            o, oc = min(others, key=lambda pair: pair[1].total.median)
            parts.append(f"{s.key.language} {s.key.method} {_duration(c.total.median)} vs "
                         f"{o.key.method} {_duration(oc.total.median)}: "
                         f"{multiple(oc.total.median / c.total.median)}")
    if not parts:
        return None
    return Outcome("; ".join(parts), f"closest competitor / in-place, n = {smallest:,} per "
                                     f"server, on {model}; on a shaped link the bytes moved "
                                     "bound both")


COMPARISONS: dict[str, Comparison] = {
    "part_size": size_range,
    "lineitem_size": size_range,
    "customer_size": size_range,
    "trade_plain_binary": method_size("handcoded"),
    "trade_java_builtin": method_size("java_builtin"),
    "trade_roundtrip": round_trip_ratio("java_builtin", "handcoded_unsafe"),
    "read_seq_spread": spread,
    "sort_spread": spread,
    "org_size": size_ratio("json", "protobuf"),
    "org_write": time_ratio("json", "protobuf"),
    "org_read": time_ratio("json", "protobuf"),
    "arrays_size": arrays_ratio,
    "net_fetch_disk": fetch_size_and_time("bson", "json_gzip"),
    "net_fetch_ram_inplace": fetch_in_place,
    "net_aggregate_spread": spread,
}


def _missing(fig: PublishedFigure) -> str:
    if fig.key not in COMPARISONS:
        return f"this report does not compare the {fig.task} task yet"
    what = " ".join(filter(None, [fig.task, fig.model]))
    return f"no measured {what} cells in this run"


def published_outcomes(measured: Measured) -> list[tuple[PublishedFigure, Outcome | None]]:
    """Each published figure with what this run measured for it (None: no cells for it)."""
    return [(fig, COMPARISONS[fig.key](fig, measured) if fig.key in COMPARISONS else None)
            for fig in FIGURES]


def published_section(measured: Measured) -> Section:
    rows = []
    for fig, outcome in published_outcomes(measured):
        rows.append(Row([fig.subject, fig.figure, fig.source,
                         outcome.measured if outcome else "—",
                         outcome.note if outcome else _missing(fig)],
                        kind="" if outcome else "not run"))
    table = Table("Published and measured", ["figure", "published", "source",
                                             "measured in this run", "note"], rows)
    return Section("published", "Published figures beside this run",
                   "The reference studies' figures come from other machines, library versions "
                   "and data sizes: compare shapes and ratios, not absolute values.",
                   blocks=[table])
