"""Published figures beside what this run measured, where the run has the corresponding cells."""
from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import NamedTuple

from ..reproduce.published import (FIGURES, ORG, STUDY_METHODS, TWEET_SCALE, TWEET_TASKS,
                                   PublishedFigure)
from ..steady import spearman
from .blocks import Plot, Row, Section, Table
from .data import Cell, Run
from .published_plot import published_figure
from .reasons import reasons, shared_facts
from .series import LANGUAGES, Ranking, RankRow
from .size_views import SizeEntry
from .task_views import micro_round_trips, per_object
from .tasks import TaskModel
from .units import multiple, number, unit_for


@dataclass(frozen=True)
class Measured:
    sizes: dict[str, list[SizeEntry]]
    tasks: dict[str, list[TaskModel]]
    run: Run | None = None  # its provenance, for the reasons (None: not known)

    def task_model(self, task: str, model: str) -> TaskModel | None:
        return next((tm for tm in self.tasks.get(task, []) if tm.model == model), None)


Methods = frozenset  # of (language, method)


@dataclass(frozen=True)
class Outcome:
    measured: str
    note: str = ""
    verdict: str = ""  # same direction or reversed, and measured / published factor
    # the (language, method) of every implementation whose figure the outcome shows: the
    # libraries the reason column names are theirs
    compared: Methods = Methods()


def _both(languages, *methods: str) -> Methods:
    """Each of `methods` in each language."""
    return Methods((lang, method) for lang in languages for method in methods)


def verdict(measured: float, published: float | None) -> str:
    """Who wins, then by how much against the publication; published None: only who wins,
    published 1: the two were about equal."""
    if published == 1:
        same = 0.8 <= measured <= 1.25
        return f"{'same: about equal' if same else 'differs: not about equal'} " \
               f"(measured {multiple(measured)})"
    direction = "same direction" if measured > 1 else "reversed"
    if published is None:
        return f"{direction} (measured {multiple(measured)})"
    both = f"(measured {multiple(measured)} / published {multiple(published)})"
    if measured <= 1:
        return f"reversed {both}"
    return f"same direction, {size_in_words(measured / published)} {both}"


def size_in_words(factor: float) -> str:
    """This run's ratio against the published one, as a reader says it."""
    if 0.8 <= factor <= 1.25:
        return "about as large as published"
    if factor < 1:
        return f"{multiple(1 / factor)} smaller than published"
    return f"{multiple(factor)} larger than published"


def order_verdict(rho: float, count: int) -> str:
    direction = "same order" if rho >= 0.5 else "reversed" if rho <= -0.5 else "no clear order"
    return f"{direction} (Spearman's ρ = {rho:.2f} over {count} methods)"


Comparison = Callable[[PublishedFigure, Measured], Outcome | None]


def size_range(fig: PublishedFigure, m: Measured) -> Outcome | None:
    entries = m.sizes.get(fig.model)
    if not entries:
        return None
    low, high = entries[0], entries[-1]
    return Outcome(f"{low.avg:,.0f}–{high.avg:,.0f} B",
                   f"{len(entries)} method × language cells; smallest {low.label}, "
                   f"largest {high.label}",
                   compared=Methods({(low.language, low.method), (high.language, high.method)}))


def method_size(method: str) -> Comparison:
    def compare(fig: PublishedFigure, m: Measured) -> Outcome | None:
        found = [e for e in m.sizes.get(fig.model, []) if e.method == method and not e.variant]
        if not found:
            return None
        return Outcome(", ".join(f"{e.avg:,.0f} B ({e.language})" for e in found),
                       f"method {method}", compared=_both({e.language for e in found}, method))
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
                   f"{left_out}", verdict(ratio, fig.values["ratio"]),
                   Methods((r.series.key.language, r.series.key.method) for r in (slow, fast)))


def _by_language(entries: list[SizeEntry], method: str) -> dict[str, SizeEntry]:
    return {e.language: e for e in entries if e.method == method and not e.variant}


def _ratios(pairs: dict[str, tuple[float, float]]) -> str:
    ordered = sorted(pairs, key=lambda lang: LANGUAGES.index(lang) if lang in LANGUAGES else 9)
    return ", ".join(f"{multiple(a / b)} ({lang})" for lang in ordered for a, b in [pairs[lang]])


def _verdicts(ratios: dict[str, float], published: float | None) -> str:
    return "; ".join(f"{verdict(r, published)}{f' ({where})' if len(ratios) > 1 else ''}"
                     for where, r in ratios.items())


def size_ratio(numerator: str, denominator: str, published: float | None = None) -> Comparison:
    """`numerator` / `denominator` bytes per object per language; published: the figure's
    ratio unless given."""
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
        ratios = {lang: top[lang].avg / bottom[lang].avg for lang in both}
        return Outcome(text, f"{numerator} / {denominator} bytes per object",
                       _verdicts(ratios, published or fig.values.get("ratio")),
                       _both(both, numerator, denominator))
    return compare


def arrays_ratio(fig: PublishedFigure, m: Measured) -> Outcome | None:
    parts = [size_ratio(method, "handcoded")(fig, m) for method in ("xml", "protobuf")]
    found = [f"{method}: {p.measured}" for method, p in zip(("xml", "protobuf"), parts) if p]
    if not found:
        return None
    return Outcome("; ".join(found), "relative to the hand-coded layout: the raw strings and "
                   "ints plus 4-byte lengths",
                   compared=Methods().union(*(p.compared for p in parts if p)))


def time_ratio(numerator: str, denominator: str, published: float | None = None) -> Comparison:
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
                                       f"{_left_out(ranking.measured)}",
                       _verdicts({lang: a / b for lang, (a, b) in pairs.items()}, published),
                       _both(langs, numerator, denominator))
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
        ratios = {f"{lang}, {buffer} buffer": trips[(slow, lang, buffer)]
                  / trips[(fast, lang, buffer)] for lang, buffer in pairs}
        published = fig.values[f"{slow}_ns"] / fig.values["direct_ns"]
        return Outcome(text, f"{slow} vs {fast}: encode + decode per object, materialized, "
                             f"at n = {tm.n:,}{left_out}", _verdicts(ratios, published),
                       _both({lang for lang, _ in pairs}, slow, fast))
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
             if c.measured and c.steady is not False and c.settings.get("source") == source
             and _own(c)]
    return (tm.model, found) if found else None


def _link(c: Cell) -> str:
    """A cell of a sweep of links (plan `networks`) is compared on its own link only."""
    network = c.settings.get("network")
    return f" on {network}" if network else ""


def _nearest(published: dict[int, float], total: int) -> int:
    """The published request size (objects in total) closest to `total`, on a log scale."""
    return min(published, key=lambda p: abs(math.log(p / max(total, 1))))


def fetch_size_and_time(slow: str, fast: str) -> Comparison:
    """From disk: `slow` / `fast` bytes moved and time, per language and request size; judged
    by the magnification (time ratio / size ratio: 1 when time follows size) against the
    published one at the published request size nearest this run's."""
    def compare(fig: PublishedFigure, m: Measured) -> Outcome | None:
        got = _fetch_cells(m, fig.model, "disk")
        if got is None:
            return None
        model, cells = got
        by = {(s.key.method, s.key.language, c.n, _link(c)): c for s, c in cells}
        parts, magnified, published, languages = [], {}, {}, set()
        for (method, lang, n, link), c in sorted(by.items(),
                                                 key=lambda kv: (kv[0][1], kv[0][2], kv[0][3])):
            other = by.get((fast, lang, n, link))
            if method == slow and other is not None and other.counters.get("bytes_moved"):
                languages.add(lang)
                size = c.counters.get("bytes_moved", 0) / other.counters["bytes_moved"]
                time = c.total.median / other.total.median
                parts.append(f"{lang} n = {n:,}/server{link}: size {multiple(size)}, time "
                             f"{multiple(time)}")
                total = n * int(c.settings.get("servers", 1))
                at = _nearest(fig.values["time_ratios"], total)
                published[at] = fig.values["time_ratios"][at] / fig.values["size_ratio"]
                magnified[f"{lang}, {total:,} objects{link}"] = (time / size, published[at])
        if not parts:
            return None
        verdicts = "; ".join(f"{where}: " * (len(magnified) > 1) + verdict(ratio, p)
                             for where, (ratio, p) in magnified.items())
        return Outcome("; ".join(parts),
                       f"{slow} / {fast} from disk, on {model}; verdict on time ratio / size "
                       f"ratio (1: time follows size), published "
                       + ", ".join(f"{multiple(p)} at {at:,} objects"
                                   for at, p in sorted(published.items())),
                       verdicts, _both(languages, slow, fast))
    return compare


def fetch_in_place(fig: PublishedFigure, m: Measured) -> Outcome | None:
    """From RAM at the smallest request: the closest other method's time / in-place's."""
    got = _fetch_cells(m, fig.model, "ram")
    if got is None:
        return None
    model, cells = got
    smallest = min(c.n for _, c in cells)
    at = [(s, c) for s, c in cells if c.n == smallest]
    parts, ratios, compared = [], {}, set()
    for s, c in at:
        if s.key.method not in IN_PLACE:
            continue
        others = [(o, oc) for o, oc in at if o.key.language == s.key.language
                  and o.key.method not in IN_PLACE and _link(oc) == _link(c)]
        if others:
            o, oc = min(others, key=lambda pair: pair[1].total.median)
            parts.append(f"{s.key.language} {s.key.method}{_link(c)} "
                         f"{_duration(c.total.median)} vs "
                         f"{o.key.method} {_duration(oc.total.median)}: "
                         f"{multiple(oc.total.median / c.total.median)}")
            ratios[f"{s.key.language} {s.key.method}{_link(c)}"] = \
                oc.total.median / c.total.median
            compared |= {(s.key.language, s.key.method), (o.key.language, o.key.method)}
    if not parts:
        return None
    return Outcome("; ".join(parts), f"closest competitor / in-place, n = {smallest:,} per "
                                     f"server, on {model}; on a shaped link the bytes moved "
                                     "bound both", _verdicts(ratios, fig.values["ratio"]),
                   Methods(compared))


# -- per-method figures and ratios between chosen implementations ----------------------------

Group = Callable[[PublishedFigure, Cell], str | None]  # a cell's group in a figure, None: out


def _one_group(fig: PublishedFigure, c: Cell) -> str | None:
    return ""


def _densities(fig: PublishedFigure, c: Cell) -> str | None:
    """The published density the cell's vectors have: thinned to it (the cell's setting), or
    as the dataset made them (the density its counters measured, within 5 %)."""
    density = c.settings.get("density") or c.counters.get("density")
    found = [d for d in fig.values["densities"]
             if density and math.isclose(float(density), d, rel_tol=0.05)]
    return f"density {found[0]:g}" if found else None


def _density(fig: PublishedFigure, c: Cell) -> str | None:
    """Each density of the vectors apart (one density's times against another's would compare
    data sizes, not methods); "" for a cell without one."""
    density = c.settings.get("density") or c.counters.get("density")
    return f"density {float(density):.3g}" if density else ""


def _four_threads(fig: PublishedFigure, c: Cell) -> str | None:
    return "4 threads" if c.threads == 4 and c.settings.get("mode") == "seq" else None


def _own(c: Cell) -> bool:
    """A mixed-language network cell (plan `roles`) is no one language's figure."""
    return "roles" not in c.settings


def _times(tm: TaskModel, fig: PublishedFigure, group: Group = _one_group,
           n: int | None = None, depth: str | None = None
           ) -> dict[str, dict[tuple[str, str], float]]:
    """Per group, the median time per (language, method) at n (the task model's by default):
    default variant, steady cells only, one depth (`depth`, else materialize where measured,
    as the studies decoded); the fastest where several settings match."""
    by_depth: dict[tuple[str, str], dict] = defaultdict(dict)
    for s in tm.series:
        c = s.cells.get(n or tm.n)
        if s.is_floor or s.key.variant or c is None or not c.measured or c.steady is False \
                or not _own(c) or depth not in (None, s.key.depth):
            continue
        if (where := group(fig, c)) is not None:
            times = by_depth[(where, s.key.depth)]
            key = (s.key.language, s.key.method)
            times[key] = min(times.get(key, c.total.median), c.total.median)
    best: dict[str, tuple] = {}
    for (where, depth), times in by_depth.items():
        rank = (depth == "materialize", len(times))
        if where not in best or rank > best[where][0]:
            best[where] = (rank, times)
    return {where: times for where, (_, times) in best.items()}


class Picked(NamedTuple):
    label: str  # "language · method"
    ns: float
    key: tuple[str, str]  # (language, method)


@dataclass(frozen=True)
class Pick:
    """One side of a ratio: a language's fastest (or slowest) of `methods` (any when empty)."""
    language: str
    methods: tuple[str, ...] = ()
    slowest: bool = False

    def of(self, times: dict[tuple[str, str], float]) -> Picked | None:
        found = {method: t for (lang, method), t in times.items()
                 if lang == self.language and (not self.methods or method in self.methods)}
        if not found:
            return None
        method = (max if self.slowest else min)(found, key=found.get)
        return Picked(f"{self.language} · {method}", found[method], (self.language, method))


def _pairs(tms: list[TaskModel], fig: PublishedFigure, slow: Pick, fast: Pick,
           group: Group) -> list[tuple[str, Picked, Picked]]:
    """(where, slow's, fast's) for each task model and group that has both."""
    found = []
    for tm in tms:
        for where, times in sorted(_times(tm, fig, group).items()):
            a, b = slow.of(times), fast.of(times)
            if a and b:
                label = " · ".join(filter(None, [tm.task if not fig.task else "", tm.model,
                                                 where]))
                found.append((f"{label}, n = {tm.n:,}", a, b))
    return found


def time_pair(slow: Pick, fast: Pick, group: Group = _one_group) -> Comparison:
    """slow's median time / fast's, per model (the figure's, when it names one) and group;
    judged against the figure's ratio, per model where it gives one per model."""
    def compare(fig: PublishedFigure, m: Measured) -> Outcome | None:
        tms = [tm for tm in m.tasks.get(fig.task, []) if fig.model in (None, tm.model)]
        found = _pairs(tms, fig, slow, fast, group)
        if not found:
            return None
        by_model = fig.values.get("ratios", {})
        return Outcome(
            "; ".join(f"{multiple(a[1] / b[1])} ({where})" for where, a, b in found),
            "; ".join(f"{a[0]} {_duration(a[1])} vs {b[0]} {_duration(b[1])}"
                      for _, a, b in found),
            "; ".join(f"{where}: " * (len(found) > 1) + verdict(
                a[1] / b[1], by_model.get(where.split(",")[0], fig.values.get("ratio")))
                for where, a, b in found), _picked(found))
    return compare


def _picked(found: list[tuple[str, Picked, Picked]]) -> Methods:
    return Methods(p.key for _, a, b in found for p in (a, b))


def method_over_fastest(method: str) -> Comparison:
    """`method`'s slowest language / the fastest implementation, per model and density ("up
    to")."""
    def compare(fig: PublishedFigure, m: Measured) -> Outcome | None:
        found = []
        for tm in m.tasks.get(fig.task, []):
            for where, times in sorted(_times(tm, fig, _density).items()):
                slow = [(t, lang) for (lang, meth), t in times.items() if meth == method]
                if slow and len(times) > 1:
                    (t, lang), fastest = max(slow), min(times, key=times.get)
                    at = " · ".join(filter(None, [tm.model, where]))
                    found.append((t / times[fastest], f"{at}, n = {tm.n:,}",
                                  f"{lang} · {method} {_duration(t)} vs "
                                  f"{' · '.join(fastest)} {_duration(times[fastest])}",
                                  Methods({(lang, method), fastest})))
        if not found:
            return None
        ratio, at, pair, compared = max(found, key=lambda f: f[0])
        return Outcome(f"up to {multiple(ratio)} ({at})", pair,
                       verdict(ratio, fig.values["ratio"]), compared)
    return compare


def managed_unmanaged(fig: PublishedFigure, m: Measured) -> Outcome | None:
    """Fastest Java / fastest C++ in every timed task and model, summed up by the median."""
    tms = [tm for task, tms in m.tasks.items() if task != "sizes" for tm in tms if tm.n]
    found = _pairs(tms, fig, Pick("java"), Pick("cpp"), _one_group)
    if not found:
        return None
    ratios = sorted(a[1] / b[1] for _, a, b in found)
    median = statistics.median(ratios)
    return Outcome(f"median {multiple(median)} over {len(found)} task × model "
                   f"({multiple(ratios[0])}–{multiple(ratios[-1])})",
                   "; ".join(f"{where} {multiple(a[1] / b[1])}" for where, a, b in found),
                   verdict(median, fig.values["ratio"]), _picked(found))


def _study_cells(fig: PublishedFigure, measured: dict[tuple[str, str], float]) -> list:
    """(study's name, published, measured) for the figure's methods this run has."""
    return [(name, value, measured[key]) for name, value in fig.values.items()
            if (key := (STUDY_METHODS[name].language, STUDY_METHODS[name].method)) in measured]


def _study_methods(found: list) -> Methods:
    return Methods((STUDY_METHODS[name].language, STUDY_METHODS[name].method)
                   for name, _, _ in found)


def _differences(fig: PublishedFigure, found: list) -> str:
    """The study's methods this run has no counterpart of (how the counterparts differ from
    what the study ran is the reason column's)."""
    named = {name for name, _, _ in found}
    absent = [name for name in fig.values if name not in named]
    return f"not in this run: {', '.join(absent)}" if absent else ""


def method_sizes(fig: PublishedFigure, m: Measured) -> Outcome | None:
    """Each study method's bytes per object beside its counterpart's, in its language."""
    entries = {(e.language, e.method): e.avg for e in m.sizes.get(fig.model, [])
               if not e.variant}
    found = _study_cells(fig, entries)
    if not found:
        return None
    text = "; ".join(f"{name} {avg:,.0f} B ({avg / value - 1:+.0%})"
                     for name, value, avg in found)
    gap = statistics.median(abs(avg / value - 1) for _, value, avg in found)
    judged = f"median difference {gap:.0%}"
    if len(found) >= 3:
        judged += "; " + order_verdict(spearman([v for _, v, _ in found],
                                                [a for _, _, a in found]), len(found))
    return Outcome(text, _differences(fig, found), judged, _study_methods(found))


def method_order(fig: PublishedFigure, m: Measured) -> Outcome | None:
    """This run's order of the study's methods by time beside the published order."""
    tm = m.task_model(fig.task, fig.model)
    found = _study_cells(fig, _times(tm, fig).get("", {})) if tm else []
    if len(found) < 3:
        return None
    ours = sorted(found, key=lambda f: f[2])
    # the factor: this run's slowest / fastest of the same methods against the study's
    published = max(p for _, p, _ in found) / min(p for _, p, _ in found)
    measured = ours[-1][2] / ours[0][2]
    order = ", ".join(f"{name} {_duration(t)}" for name, _, t in ours)
    lazy = _lazy_beside(fig, tm)  # there are materialize cells: the order is theirs
    return Outcome(f"equal depth (materialize), judged: {order}. {lazy}" if lazy else order,
                   "; ".join(filter(None, [f"at n = {tm.n:,} (published at "
                                           f"{TWEET_SCALE[fig.task]})",
                                           _differences(fig, found)])),
                   order_verdict(spearman([p for _, p, _ in found], [t for _, _, t in found]),
                                 len(found))
                   + f"; slowest / fastest {multiple(measured)}, published "
                     f"{multiple(published)}: {size_in_words(measured / published)}",
                   _study_methods(found))


def _lazy_beside(fig: PublishedFigure, tm: TaskModel) -> str:
    """The methods the study read lazily, at depth access as it read them, beside this run's
    equal-depth (materialize) time the verdict uses; where the run has both."""
    access = _times(tm, fig, depth="access").get("", {})
    whole = _times(tm, fig, depth="materialize").get("", {})
    both = [(name, access[key], whole[key]) for name in fig.values
            if (m := STUDY_METHODS.get(name)) and m.depth == "access"
            and (key := (m.language, m.method)) in access and key in whole]
    if not both:
        return ""
    return "Read lazily, as the study did: " + ", ".join(
        f"{name} access {_duration(a)} (materialize {_duration(b)})" for name, a, b in both)


def _steady_spread(tm: TaskModel) -> tuple[float, RankRow, RankRow] | None:
    """(slowest / fastest, fastest, slowest) at depth materialize, steady cells only."""
    rankings = tm.rankings()
    ranking = next((r for r in rankings if r.depth == "materialize"), None)
    return _spread(ranking) if ranking else None


def rand_against_seq(fig: PublishedFigure, m: Measured) -> Outcome | None:
    """Slowest / fastest of random reads against sequential, per model, materializing."""
    found, rows = [], []
    for tm in m.tasks.get("read_rand", []):
        seq = m.task_model("read_seq", tm.model)
        rand_spread, seq_spread = _steady_spread(tm), seq and _steady_spread(seq)
        if rand_spread and seq_spread:
            found.append((tm.model, rand_spread[0], seq_spread[0]))
            rows += [*rand_spread[1:], *seq_spread[1:]]
    if not found:
        return None
    return Outcome("; ".join(f"{model}: random {multiple(r)}, sequential {multiple(s)}"
                             for model, r, s in found),
                   "slowest / fastest median, depth materialize",
                   "; ".join(f"{model}: " * (len(found) > 1) + verdict(s / r, None)
                             .replace("measured", "sequential / random")
                             for model, r, s in found),
                   Methods((r.series.key.language, r.series.key.method) for r in rows))


def java_gap_by_n(fig: PublishedFigure, m: Measured) -> Outcome | None:
    """Fastest Java / fastest C++ at each n of the random reads: largest at the smallest?"""
    found, compared = [], set()
    for tm in m.tasks.get(fig.task, []):
        gaps = {}
        for n in sorted({n for s in tm.series for n in s.measured_ns}):
            times = _times(tm, fig, n=n).get("", {})
            java, cpp = Pick("java").of(times), Pick("cpp").of(times)
            if java and cpp:
                gaps[n] = java[1] / cpp[1]
                compared |= {java.key, cpp.key}
        if len(gaps) >= 2:
            found.append((tm.model, gaps))
    if not found:
        return None
    return Outcome("; ".join(f"{model}: " + ", ".join(f"{multiple(g)} at n = {n:,}"
                                                      for n, g in gaps.items())
                             for model, gaps in found),
                   "fastest Java / fastest C++ median per n, depth materialize",
                   "; ".join(f"{model}: " + _gap_verdict(gaps) for model, gaps in found),
                   Methods(compared))


def _gap_verdict(gaps: dict[int, float]) -> str:
    smallest = min(gaps)
    if gaps[smallest] > max(g for n, g in gaps.items() if n != smallest):
        return "same direction (largest at the smallest n)"
    return "differs (not largest at the smallest n)"


def memory_ratio(numerator: str, denominator: str) -> Comparison:
    """Retained bytes per object, `numerator` / `denominator`, per language."""
    def compare(fig: PublishedFigure, m: Measured) -> Outcome | None:
        tm = m.task_model("memory", fig.model)
        cells = {(s.key.language, s.key.method): c.counters["retained_bytes_per_object"]
                 for s in (tm.series if tm else []) if not s.key.variant
                 for c in [s.cells.get(tm.n)]
                 if c and c.measured and "retained_bytes_per_object" in c.counters}
        ratios = {lang: cells[(lang, numerator)] / cells[(lang, denominator)]
                  for lang in LANGUAGES if (lang, numerator) in cells
                  and (lang, denominator) in cells and cells[(lang, denominator)]}
        if not ratios:
            return None
        published = (fig.values[f"{numerator}_memory_mb"]
                     / fig.values[f"{denominator}_memory_mb"])
        return Outcome(", ".join(f"{multiple(r)} ({lang})" for lang, r in ratios.items()),
                       f"{numerator} / {denominator} retained bytes per object at "
                       f"n = {tm.n:,}", _verdicts(ratios, published),
                       _both(ratios, numerator, denominator))
    return compare


def java_buffers(fig: PublishedFigure, m: Measured) -> Outcome | None:
    """Java's micro round trip per object of each published buffer method beside its range."""
    tm = m.task_model(fig.task, fig.model)
    trips = micro_round_trips(tm, steady_only=True) if tm and tm.n else {}
    java = defaultdict(list)
    for (method, language, _), ns in trips.items():
        if language == "java" and method in fig.values:
            java[method].append(ns)
    found = {method: min(times) for method, times in java.items()}
    if not found:
        return None
    text = "; ".join(f"{method} {_duration(ns)} (published {low}-{high} ns)"
                     for method, ns in found.items() for low, high in [fig.values[method]])
    judged = (order_verdict(spearman([sum(fig.values[k]) for k in found], list(found.values())),
                            len(found)) if len(found) >= 3 else "")
    return Outcome(text, f"encode + decode per object, materialized, the faster buffer, at "
                         f"n = {tm.n:,}", judged, _both(["java"], *found))


def _java_micro(m: Measured, model: str) -> dict[tuple[str, str], Cell]:
    """Java's steady micro cells of `model` by (method, setting): one per k and buffer."""
    tm = m.task_model("micro", model)
    return {(s.key.method, s.key.setting): c for s in (tm.series if tm else [])
            if s.key.language == "java" and not s.key.variant
            and s.key.depth in ("materialize", "") for c in s.cells.values()
            if c.measured and c.steady is not False}


def arrays_time(fig: PublishedFigure, m: Measured) -> Outcome | None:
    """Per phase, each method's ns per object / Java built-in's, over the k and buffers."""
    cells = _java_micro(m, fig.model)
    parts, verdicts, compared = [], [], set()
    for method, published in fig.values.items():
        for phase in ("encode", "decode"):
            ratios = sorted(a / b for (meth, setting), c in cells.items() if meth == method
                            and (base := cells.get(("java_builtin", setting)))
                            and (a := per_object(c, f"{phase}_ns"))
                            and (b := per_object(base, f"{phase}_ns")))
            if ratios:
                parts.append(f"{method} {phase} {multiple(ratios[0])}–{multiple(ratios[-1])}")
                verdicts.append(f"{method} {phase}: " + verdict(
                    statistics.median(ratios), published if phase == "encode" else None))
                compared |= _both(["java"], method, "java_builtin")
    if not parts:
        return None
    return Outcome("; ".join(parts), "Java, per object, / java_builtin at the same k and "
                                     "buffer, lowest–highest", "; ".join(verdicts),
                   Methods(compared))


def builtin_overhead(fig: PublishedFigure, m: Measured) -> Outcome | None:
    """Java built-in's bytes per object minus the hand-coded layout's at each k."""
    cells = _java_micro(m, fig.model)
    extra = {}
    for (method, setting), c in cells.items():
        raw = cells.get(("handcoded", setting))
        if method == "java_builtin" and raw and "k" in c.settings and \
                "encoded_bytes" in c.counters and "encoded_bytes" in raw.counters:
            extra[c.settings["k"]] = (c.counters["encoded_bytes"]
                                      - raw.counters["encoded_bytes"]) / c.n
    if len(extra) < 2:
        return None
    low, high = min(extra.values()), max(extra.values())
    return Outcome(", ".join(f"{b:+,.0f} B at k = {k:,}" for k, b in sorted(extra.items())),
                   "java_builtin bytes per object minus handcoded's; constant: within 16 B "
                   "across k",
                   "same direction (constant)" if high - low <= 16 else
                   f"differs (varies by {high - low:,.0f} B across k)",
                   _both(["java"], "java_builtin", "handcoded"))


COMPARISONS: dict[str, Comparison] = {
    "part_size": size_range,
    "lineitem_size": size_range,
    "customer_size": size_range,
    "trade_plain_binary": method_size("handcoded"),
    "trade_java_builtin": method_size("java_builtin"),
    "trade_roundtrip": round_trip_ratio("java_builtin", "handcoded_unsafe"),
    "read_seq_spread": spread,
    "sort_spread": spread,
    "org_size": size_ratio("json", "protobuf", ORG["json_mb"] / ORG["protobuf_mb"]),
    "org_write": time_ratio("json", "protobuf", ORG["json_write_s"] / ORG["protobuf_write_s"]),
    "org_read": time_ratio("json", "protobuf", ORG["json_read_s"] / ORG["protobuf_read_s"]),
    "org_memory": memory_ratio("json", "protobuf"),
    "arrays_size": arrays_ratio,
    "net_fetch_disk": fetch_size_and_time("bson", "json_gzip"),
    "net_fetch_ram_inplace": fetch_in_place,
    "net_aggregate_spread": method_over_fastest("json_gzip"),
    "part_method_sizes": method_sizes,
    "lineitem_method_sizes": method_sizes,
    "customer_method_sizes": method_sizes,
    "read_seq_inplace": time_pair(Pick("cpp", ("handcoded",)), Pick("cpp", ("inplace",))),
    "customer_inplace_size": size_ratio("inplace", "json_gzip"),
    "read_seq_cpp_java": time_pair(Pick("java", ("handcoded",)), Pick("cpp", ("inplace",))),
    "read_seq_boost": time_pair(Pick("cpp", ("boost_text",)), Pick("java", ("handcoded",))),
    "read_rand_spread": rand_against_seq,
    "read_rand_java_small": java_gap_by_n,
    "read_par_java_cpp": time_pair(Pick("java"), Pick("cpp"), _four_threads),
    "sort_part_inplace": time_pair(Pick("java", ("json_gzip",)), Pick("cpp", ("inplace",))),
    "sort_part_java_handcoded": time_pair(Pick("java", ("json_gzip",)),
                                          Pick("java", ("handcoded",))),
    "sort_customer_kryo": time_pair(Pick("java", ("kryo",)), Pick("cpp", ("inplace",))),
    "sort_java_cpp": time_pair(Pick("java"), Pick("cpp", ("inplace",))),
    "aggregate_handcoded_inplace": time_pair(Pick("cpp", ("inplace",)),
                                             Pick("cpp", ("handcoded",))),
    "aggregate_cpp_java_sparse": time_pair(Pick("java"), Pick("cpp", slowest=True),
                                           _densities),
    "aggregate_bytebuffer_dense": time_pair(Pick("java", ("handcoded",)), Pick("cpp"),
                                            _densities),
    "managed_unmanaged": managed_unmanaged,
    **{f"tweet_{task}_order": method_order for task in TWEET_TASKS},
    "trade_buffers": java_buffers,
    "arrays_time": arrays_time,
    "arrays_builtin_overhead": builtin_overhead,
}


def missing_reason(fig: PublishedFigure, measured: Measured) -> str:
    """Why a figure has no measured outcome: the cells it needs; a network finding is not yet
    measurable rather than unmeasured (the default plan's network groups are small: other
    densities and sizes are plan/embedded/network.toml's). Cells that exist but ran unsteady
    are said to be left out, not to be missing."""
    what = fig.needs or f"{fig.task or 'sizes or write'} cells of {fig.model}"
    network = (fig.task or "").startswith("net_")
    reason = f"{'not yet measurable' if network else 'not measured in this run'}: this run " \
             f"has no measured {what}"
    if _unsteady_cells(measured, fig):
        reason += f" at steady state ({fig.task} cells of {fig.model} that ran unsteady are " \
                  "left out of verdicts)"
    return reason


def _unsteady_cells(measured: Measured, fig: PublishedFigure) -> bool:
    tm = measured.task_model(fig.task, fig.model) if fig.task and fig.model else None
    return tm is not None and any(c.steady is False for s in tm.series
                                  for c in s.cells.values())


def published_outcomes(measured: Measured, figures: tuple[PublishedFigure, ...] = FIGURES
                       ) -> list[tuple[PublishedFigure, Outcome | None]]:
    """Each published figure with what this run measured for it (None: no cells for it),
    judged only inside the regime it was published for."""
    return [(fig, in_regime(fig, measured, COMPARISONS[fig.key](fig, measured)))
            for fig in figures]


def in_regime(fig: PublishedFigure, measured: Measured, outcome: Outcome | None
              ) -> Outcome | None:
    """The outcome, or, when this run's cells for the figure are all far below the size the
    finding was published at, the same figures without a verdict and the size needed."""
    if outcome is None or fig.least_objects is None:
        return outcome
    largest = largest_n(fig, measured)
    if largest is None or largest >= fig.least_objects:
        return outcome
    return replace(outcome, verdict=f"not measurable at this size: n = {largest:,} here, at "
                                    f"least {fig.least_objects:,} needed (published at "
                                    f"{fig.scale})")


def largest_n(fig: PublishedFigure, measured: Measured) -> int | None:
    """The largest n the figure's comparison could read (each task model's chosen n)."""
    found = [tm.n for need in fig.cells for tm in measured.tasks.get(need.task, [])
             if need.model in (None, tm.model) and tm.n]
    return max(found, default=None)


def cell_links(fig: PublishedFigure, measured: Measured) -> tuple[tuple[str, str], ...]:
    """The report's sections holding the cells a figure reads, as (label, section id)."""
    links = {}
    for need in fig.cells:
        if need.task == "sizes":
            models = [need.model] if need.model else list(measured.sizes)
            links.update({f"sizes · {m}": f"sizes-{m}" for m in models if m in measured.sizes})
        else:
            tms = measured.tasks.get(need.task, [])
            # the fetch comparisons fall back to the first model fetched (_fetch_cells)
            chosen = [tm for tm in tms if need.model in (None, tm.model)] or \
                (tms[:1] if need.task == "net_fetch" else [])
            links.update({f"{tm.task} · {tm.model}": tm.slug for tm in chosen})
    return tuple(links.items())


PUBLISHED_COLUMNS = ["figure", "published", "source", "measured in this run", "note", "verdict",
                     "reason"]


def published_rows(measured: Measured, figures: tuple[PublishedFigure, ...] = FIGURES,
                   outcomes: list | None = None) -> list[Row]:
    """One row per figure: published, measured, why not, verdict, what may explain a
    difference; links to its cells. `outcomes`: published_outcomes of the figures, when the
    caller has them."""
    rows = []
    for fig, outcome in outcomes or published_outcomes(measured, figures):
        found = reasons(fig, measured, measured.run, outcome.compared) if outcome else []
        why = "; ".join(r.short for r in found)
        published = f"{fig.figure} (at {fig.scale})" if fig.scale else fig.figure
        rows.append(Row([fig.subject, published, fig.source,
                         outcome.measured if outcome else "—",
                         outcome.note if outcome else missing_reason(fig, measured),
                         outcome.verdict if outcome else "—", why or "—"],
                        kind="" if outcome else "not run",
                        links=cell_links(fig, measured) if outcome else (),
                        titles=("",) * 6 + ("; ".join(r.text for r in found),)))
    return rows


def published_section(measured: Measured) -> Section:
    outcomes = published_outcomes(measured)
    table = Table("Published and measured", PUBLISHED_COLUMNS,
                  published_rows(measured, outcomes=outcomes), links_column="cells")
    figure = published_figure([(fig.subject, o.verdict) for fig, o in outcomes
                               if o is not None and o.verdict])
    plot = [Plot("plot-published", figure, "Each figure whose verdict compares two ratios: "
                 "the published one across, this run's up, on log axes. On the diagonal they "
                 "agree; between the dotted lines this run's is about as large (0.8x to "
                 "1.25x); under it, this run found the gap smaller than the study did. Green: "
                 "the same implementation wins; orange: the order is reversed. Hover a dot "
                 "for its figure; the table below has every figure, with the reasons.")] \
        if figure else []
    return Section("published", "Published figures beside this run",
                   "The reference studies' figures come from other machines, library versions "
                   "and data sizes: compare shapes and ratios, not absolute values. "
                   + shared_facts(measured.run), blocks=[*plot, table])


NETWORK_FIGURES = tuple(fig for fig in FIGURES if (fig.task or "").startswith("net_"))


def network_findings_section(measured: Measured) -> Section | None:
    """The published chapter's rows for the network tasks, beside the network sections: the
    same comparisons, so the two never disagree; None when the run has no network cells."""
    if not any(task.startswith("net_") for task in measured.tasks):
        return None
    table = Table("The studies' network findings beside this run", PUBLISHED_COLUMNS,
                  published_rows(measured, NETWORK_FIGURES),
                  "The rows of the chapter Published figures beside this run whose figure is a "
                  "network task. Verdict: the sign (same direction, reversed, about equal, or "
                  "the order's rank correlation) and how this run's ratio compares with the "
                  "published one. The studies ran 7-node trees and requests of 10^4 to 10^6 "
                  "objects on real networks; the default plan's are small: compare directions, "
                  "not sizes.", links_column="cells")
    return Section("network-findings", "Network: the studies' findings beside this run",
                   "What the reference study (SoCC) and the later study (VLDB draft) found on "
                   "networks, beside the same ratios measured by this run's nodes in every "
                   "language it ran. " + shared_facts(measured.run), blocks=[table])
