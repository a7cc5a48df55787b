"""The sections of the tasks that are not a time against n: read_par (throughput against
threads), sort_dedup (time and peak RSS against the memory budget), memory (retained bytes per
object) and micro (encode and decode per object, fresh against reused buffers, the `arrays`
size sweep). Only measured (ok) cells become numbers; the rest are listed with their status."""
from __future__ import annotations

import math
from collections import defaultdict

from .blocks import Plot, Row, Table
from .data import Cell
from .plots import (BAR_LABELS, LANGUAGE_SYMBOLS, TOP_LEGEND, bar_chart_height, plot_axis,
                    plot_layout, value_axis, whiskers)

# the peak RSS beside a one-budget sort's times
RSS_COLOR = "#9ecae9"
from .series import Series, marks, ok_status
from .units import byte_size, number, unit_for


DASHES = ("solid", "dot", "dash", "dashdot")


def _base_label(s: Series, drop: tuple[str, ...]) -> str:
    """The series label without the setting keys that become an axis or a column."""
    k = s.key
    kept = " ".join(f"{key}={v}" for key, v in _settings(k.setting).items() if key not in drop)
    return " · ".join(filter(None, [k.language, "raw floor" if s.is_floor else k.method,
                                    "" if s.is_floor else k.depth, k.variant,
                                    kept])) + marks(s)


def _settings(setting: str) -> dict:
    return {k: int(v) if v.isdigit() else v
            for k, v in (item.split("=", 1) for item in setting.split())}


def series_cells(tm) -> list[tuple[Series, Cell]]:
    return [(s, c) for s in tm.series for c in s.cells.values()]


def status_rows(pairs: list[tuple[Series, Cell]], width: int) -> list[Row]:
    """Rows for cells without numbers, so a failure is never hidden by its absence."""
    rows = []
    for s, c in sorted(pairs, key=lambda sc: (sc[0].label, sc[1].n)):
        if not c.measured:
            status = c.status if c.status != "ok" else "no samples"
            note = f"{status} {c.message}".strip()
            rows.append(Row([s.label, f"{c.n:,}", *[""] * (width - 3), note], kind=status))
    return rows


def _marker(s: Series, palette, dash: int = 0) -> dict:
    color = palette(s.key.method)
    return {"line": {"color": color, "width": 1.5, "dash": DASHES[dash % len(DASHES)]},
            "marker": {"color": color, "symbol": LANGUAGE_SYMBOLS.get(s.key.language, "circle"),
                       "size": 7}}


# -- read_par -----------------------------------------------------------------------------------

def par_views(tm) -> list:
    """Objects per second against threads, one line per implementation and mode, at n."""
    lines: dict[str, list[tuple[int, Series, Cell]]] = defaultdict(list)
    for s, c in series_cells(tm):
        if c.n == tm.n and c.measured:
            lines[_base_label(s, ())].append((c.threads or 1, s, c))
    if not lines:
        return [Table(f"read_par · {tm.where}: nothing measured", ["implementation", "n",
                                                                   "status"],
                      status_rows(series_cells(tm), 3), badge=2)]
    traces, rows = [], []
    for label, points in sorted(lines.items()):
        points.sort(key=lambda p: p[0])
        rate = [c.n / (c.total.median / 1e9) for _, _, c in points]
        mode = _settings(points[0][1].key.setting).get("mode", "")
        traces.append({"type": "scatter", "mode": "lines+markers", "name": label,
                       "x": [t for t, _, _ in points], "y": rate,
                       # the rate at the slowest and the fastest repetition
                       "error_y": whiskers(rate, [c.n / (c.total.high / 1e9)
                                                  for _, _, c in points],
                                           [c.n / (c.total.low / 1e9) for _, _, c in points]),
                       **_marker(points[0][1], tm.palette, 0 if mode == "seq" else 2),
                       "hovertemplate": f"<b>{label}</b><br>%{{x}} threads<br>"
                                        "%{y:,.4~g} objects/s<extra></extra>"})
        one = rate[0] if points[0][0] == 1 else None
        for (t, _, c), r in zip(points, rate):
            unit = unit_for(c.total.median)
            rows.append(Row([label, f"{t}", f"{number(unit.of(c.total.median))} {unit.name}",
                             f"{r:,.0f}", f"{r / one:.2f}x" if one else "",
                             f"{c.reps:,}", ok_status(c)]))
    layout = plot_layout(f"read_par · {tm.where}: throughput against threads at n = {tm.n:,}",
                         420, xaxis=plot_axis("threads", dtick=1),
                         yaxis=plot_axis("objects per second"), legend=TOP_LEGEND)
    plot = Plot(f"plot-{tm.slug}-threads", {"data": traces, "layout": layout},
                "n objects divided by the median total time (threads started together, until "
                "the last ends); whiskers: the rate of the slowest and the fastest measured "
                "repetition. Solid: mode seq (a range); dashed: mode rand (the random id "
                "list). Marker: language.")
    columns = ["implementation", "threads", "median time", "objects / s", "× 1 thread", "reps",
               "status"]
    failed = [(s, c) for s, c in series_cells(tm) if c.n == tm.n]
    table = Table(f"read_par · {tm.where} at n = {tm.n:,}", columns,
                  rows + status_rows(failed, len(columns)), numeric=frozenset({1, 2, 3, 4, 5}),
                  badge=len(columns) - 1)
    return [plot, table]


# -- sort_dedup ---------------------------------------------------------------------------------

def sort_views(tm) -> list:
    """Time (phases) and peak RSS against the memory budget."""
    lines: dict[str, list[tuple[int, Series, Cell]]] = defaultdict(list)
    for s, c in series_cells(tm):
        if c.measured:
            lines[_base_label(s, ("budget_bytes",))].append(
                (_settings(c.setting).get("budget_bytes", 0), s, c))
    columns = ["implementation", "budget", "median time", "phase 1 (runs)", "phase 2 (merge)",
               "runs", "merge passes", "peak RSS", "RSS over start", "status"]
    floors = _sort_floors(tm)
    rows, time_traces, rss_traces = [], [], []
    for label, points in sorted(lines.items()):
        points.sort(key=lambda p: p[0])
        style = _marker(points[0][1], tm.palette)
        budgets = [b for b, _, _ in points]
        seconds = [c.total.median / 1e9 for _, _, c in points]
        time_traces.append({"type": "scatter", "mode": "lines+markers", "name": label,
                            "x": budgets, "y": seconds,
                            "error_y": whiskers(seconds,
                                                [c.total.low / 1e9 for _, _, c in points],
                                                [c.total.high / 1e9 for _, _, c in points]),
                            "legendgroup": label, **style})
        rss_traces.append({"type": "scatter", "mode": "lines+markers", "name": label,
                           "x": budgets, "y": [c.counters.get("peak_rss_bytes", 0) / 2**20
                                               for _, _, c in points],
                           "xaxis": "x2", "yaxis": "y2", "legendgroup": label,
                           "showlegend": False, **style})
        rows += [_sort_row(label, b, c, None if s.is_floor else
                           floors.get((s.key.language, s.key.method, b)))
                 for b, s, c in points]
    blocks = []
    if time_traces and len({b for points in lines.values() for b, _, _ in points}) == 1:
        blocks.append(_one_budget_plot(tm, lines))
    elif time_traces:
        layout = plot_layout(f"sort_dedup · {tm.where}: time and peak RSS against the budget", 420,
                             xaxis=plot_axis("memory budget (bytes)", log=True, domain=[0, 0.45]),
                             yaxis=plot_axis("median time (s)"),
                             xaxis2=plot_axis("memory budget (bytes)", log=True, domain=[0.55, 1],
                                      anchor="y2"),
                             yaxis2=plot_axis("peak RSS (MiB)", anchor="x2"), legend=TOP_LEGEND)
        blocks.append(Plot(f"plot-{tm.slug}-budget", {"data": time_traces + rss_traces,
                                                     "layout": layout},
                           "Left: median total time of both phases, whiskers min–max over the "
                           "measured repetitions. Right: the driver's peak "
                           "RSS (VmHWM, reset at the task's start) against the budget."))
    blocks.append(Table(f"sort_dedup · {tm.where}", columns,
                        rows + status_rows(series_cells(tm), len(columns)),
                        "Each output checked: the dataset's distinct count and the sequence "
                        "checksum of its distinct objects in total order. Raw floor: the "
                        "method's file through the same two phases at the same budget moving "
                        "bytes only (runs in input order, the merge taking objects in turn; "
                        "nothing decoded, compared or dropped), its output checked to hold "
                        "exactly the input's bytes; (n.nx) after a time: the method's time "
                        "over its own file's floor in that phase, i.e. what decoding, "
                        "ordering and duplicate removal add to moving the bytes."
                        if floors else
                        "Each output checked: the dataset's distinct count and the sequence "
                        "checksum of its distinct objects in total order.",
                        numeric=frozenset(range(1, 9)), badge=len(columns) - 1))
    return blocks


def _time(ns: float | None) -> str:
    if ns is None:
        return ""
    unit = unit_for(ns)
    return f"{number(unit.of(ns))} {unit.name}"


def _sort_floors(tm) -> dict[tuple, Cell]:
    """The measured sort floors by (language, the method whose file they moved, budget)."""
    return {(s.key.language, s.key.variant, _settings(c.setting).get("budget_bytes", 0)): c
            for s, c in series_cells(tm) if s.is_floor and c.measured}


def _over_floor(c: Cell, floor: Cell | None, key: str) -> str:
    """A time, and after it its multiple of the floor's same time when there is one."""
    ns = c.total.median if key == "total" else c.extra.get(key)
    theirs = None if floor is None else (floor.total.median if key == "total"
                                         else floor.extra.get(key))
    return _time(ns) + (f" ({ns / theirs:.1f}x)" if ns is not None and theirs else "")


def _one_budget_plot(tm, lines: dict) -> Plot:
    """One budget measured: no line can be drawn against the budget; each implementation's
    time as a bar, fastest on top (a log axis past plots.LOG_SPAN), its peak RSS beside it."""
    bars = sorted(((label, s, c) for label, points in lines.items() for _, s, c in points),
                  key=lambda lsc: (lsc[2].total.median, lsc[0]))
    budget = _settings(bars[0][2].setting).get("budget_bytes", 0)
    labels = [label for label, _, _ in bars]
    times = [c.total.median / 1e9 for _, _, c in bars]
    rss = [c.counters.get("peak_rss_bytes", 0) / 2**20 for _, _, c in bars]
    traces = [{"type": "bar", "orientation": "h", "name": "median time", "y": labels,
               "x": times, "marker": {"color": [tm.palette(s.key.method) for _, s, _ in bars]},
               "error_x": whiskers(times, [c.total.low / 1e9 for _, _, c in bars],
                                   [c.total.high / 1e9 for _, _, c in bars]),
               "hovertemplate": "%{y}<br>%{x:,.4~g} s<extra></extra>"},
              {"type": "bar", "orientation": "h", "name": "peak RSS", "y": labels, "x": rss,
               "xaxis": "x2", "marker": {"color": RSS_COLOR},
               "hovertemplate": "%{y}<br>peak RSS %{x:,.1f} MiB<extra></extra>"}]
    layout = plot_layout(f"sort_dedup · {tm.where}: time and peak RSS at a budget of "
                         f"{byte_size(budget)}", bar_chart_height(len(bars)),
                         xaxis=value_axis("median time (s)", times, domain=[0, 0.62]),
                         xaxis2=value_axis("peak RSS (MiB)", rss, domain=[0.68, 1],
                                           anchor="y"),
                         yaxis={"autorange": "reversed", "automargin": True, **BAR_LABELS,
                                "categoryorder": "array", "categoryarray": labels},
                         showlegend=False)
    return Plot(f"plot-{tm.slug}-budget", {"data": traces, "layout": layout},
                "Left: median total time of both phases, fastest on top, whiskers min–max "
                "over the measured repetitions. Right: the driver's "
                "peak RSS (VmHWM, reset at the task's start). One budget was measured: a plan "
                "with several (budget_bytes) draws time and RSS against the budget.")


def _sort_row(label: str, budget: int, c: Cell, floor: Cell | None) -> Row:
    counters = c.counters
    peak, start = counters.get("peak_rss_bytes"), counters.get("rss_start_bytes")
    return Row([label, byte_size(budget), _over_floor(c, floor, "total"),
                _over_floor(c, floor, "phase1_ns"), _over_floor(c, floor, "phase2_ns"),
                f"{counters.get('runs', '')}",
                f"{counters.get('merge_passes', '')}",
                byte_size(peak) if peak is not None else "",
                byte_size(max(peak - start, 0)) if peak is not None and start is not None else "",
                ok_status(c)])


# -- memory -------------------------------------------------------------------------------------

def memory_views(tm) -> list:
    """Retained bytes per object of n materialized objects, smallest first."""
    measured = sorted(((s, c) for s, c in series_cells(tm) if c.measured),
                      key=lambda sc: (-sc[1].n, sc[1].counters.get("retained_bytes_per_object",
                                                                     0), sc[0].label))
    columns = ["implementation", "n", "retained bytes / object", "peak RSS", "accounting",
               "materialize time", "status"]
    rows = [Row([s.label, f"{c.n:,}", f"{c.counters.get('retained_bytes_per_object', 0):,.1f}",
                 byte_size(c.counters.get("peak_rss_bytes", 0)),
                 str(c.counters.get("accounting", "")), _time(c.total.median), ok_status(c)])
            for s, c in measured]
    blocks = []
    at_n = [(s, c) for s, c in measured if c.n == tm.n]
    if at_n:
        figure = {"data": [{"type": "bar", "orientation": "h", "y": [s.label for s, _ in at_n],
                            "x": [c.counters.get("retained_bytes_per_object", 0)
                                  for _, c in at_n],
                            "marker": {"color": [tm.palette(s.key.method) for s, _ in at_n]},
                            "hovertemplate": "%{y}<br>%{x:,.1f} B per object<extra></extra>"}],
                  "layout": plot_layout(f"memory · {tm.where}: retained bytes per object at "
                                        f"n = {tm.n:,}", bar_chart_height(len(at_n)),
                                        xaxis=value_axis("bytes per object", [
                                            c.counters.get("retained_bytes_per_object", 0)
                                            for _, c in at_n]),
                                        yaxis={"autorange": "reversed", "automargin": True,
                                               **BAR_LABELS})}
        blocks.append(Plot(f"plot-{tm.slug}-bytes", figure,
                           "Live heap after materializing n objects minus before, per object "
                           "(the container included), by the accounting each row names."))
    blocks.append(Table(f"memory · {tm.where}", columns,
                        rows + status_rows(series_cells(tm), len(columns)),
                        numeric=frozenset({1, 2, 3, 5}), badge=len(columns) - 1))
    return blocks


# -- micro --------------------------------------------------------------------------------------

def per_object(c: Cell, key: str) -> float | None:
    ns = c.extra.get(key)
    done = c.n * c.counters.get("iterations", 1)
    return ns / done if ns is not None and done else None


def _cold_jit_per_object(c: Cell) -> float | None:
    done = c.n * c.counters.get("iterations", 1)
    return c.cold_jit_ns / done if c.cold_jit_ns and done else None


def _mb_per_s(c: Cell, key: str) -> float | None:
    ns = c.extra.get(key)
    total = c.counters.get("encoded_bytes", 0) * c.counters.get("iterations", 1)
    return total / ns * 1000 if ns else None


def micro_round_trips(tm, steady_only: bool = False) -> dict[tuple[str, str, str], float]:
    """Round trip ns per object at n, by (method, language, buffer), of the default variant
    materializing: the like-for-like cells a published micro figure compares (with
    `steady_only`, only those not measured before steady state)."""
    trips = {}
    for s, c in series_cells(tm):
        encode, decode = per_object(c, "encode_ns"), per_object(c, "decode_ns")
        if (c.measured and c.n == tm.n and s.key.depth == "materialize" and not s.key.variant
                and encode is not None and decode is not None
                and not (steady_only and c.steady is False)):
            buffer = _settings(s.key.setting).get("buffer", "")
            trips[(s.key.method, s.key.language, buffer)] = encode + decode
    return trips


def micro_views(tm) -> list:
    """ns per object and MB/s of encode and decode, fresh against reused buffers; for the
    `arrays` sweep, ns per object against k."""
    measured = sorted(((s, c) for s, c in series_cells(tm) if c.measured and c.n == tm.n),
                      key=lambda sc: sc[0].label)
    with_jit = any(c.cold_jit_ns for _, c in measured)
    columns = (["implementation", "n", "encode ns / object", "decode ns / object",
                "round trip ns / object", "encode MB/s", "decode MB/s"]
               + (["cold JIT round trip ns / object"] if with_jit else []) + ["status"])

    def cell_text(value: float | None) -> str:
        return number(value) if value is not None else ""

    def row(s: Series, c: Cell) -> Row:
        encode, decode = per_object(c, "encode_ns"), per_object(c, "decode_ns")
        both = encode + decode if encode is not None and decode is not None else None
        values = [s.label, f"{c.n:,}", cell_text(encode), cell_text(decode), cell_text(both),
                  cell_text(_mb_per_s(c, "encode_ns")), cell_text(_mb_per_s(c, "decode_ns"))]
        if with_jit:
            values.append(cell_text(_cold_jit_per_object(c)))
        return Row(values + [ok_status(c)])

    rows = [row(s, c) for s, c in measured]
    sweep = any("k" in _settings(s.key.setting) for s, _ in measured)
    blocks = [_sweep_plot(tm, measured) if sweep else _buffer_plot(tm, measured)] \
        if measured else []
    blocks.append(Table(f"micro · {tm.where} at n = {tm.n:,}" if tm.n else
                        f"micro · {tm.where}", columns,
                        rows + status_rows(series_cells(tm), len(columns)),
                        "Per object: the repetition's encode (or decode) time over n objects × "
                        "iterations, median over repetitions; round trip: both. MB/s: encoded "
                        "bytes per second." + (" Cold JIT: the first repetition of each fresh "
                        "JVM (one per fork), over its n × iterations, never in the medians."
                        if with_jit else ""),
                        numeric=frozenset(range(1, len(columns) - 1)), badge=len(columns) - 1))
    return blocks


def _buffer_plot(tm, measured) -> Plot:
    # fastest on top: each implementation by its fastest round trip over both buffers
    trip: dict[str, float] = {}
    for s, c in measured:
        label = _base_label(s, ("buffer",))
        both = (per_object(c, "encode_ns") or 0) + (per_object(c, "decode_ns") or 0)
        trip[label] = min(trip.get(label, math.inf), both)
    order = sorted(trip, key=lambda label: (trip[label], label))
    traces = []
    for phase, key in (("encode", "encode_ns"), ("decode", "decode_ns")):
        for buffer, pattern in (("fresh", ""), ("reused", "/")):
            chosen = sorted(((s, c) for s, c in measured
                             if _settings(s.key.setting).get("buffer") == buffer),
                            key=lambda sc: order.index(_base_label(sc[0], ("buffer",))))
            labels = [_base_label(s, ("buffer",)) for s, _ in chosen]
            traces.append({"type": "bar", "orientation": "h", "name": f"{phase}, {buffer}",
                           "y": labels, "x": [per_object(c, key) for _, c in chosen],
                           "marker": {"color": "#4c78a8" if phase == "encode" else "#f58518",
                                      "pattern": {"shape": pattern}},
                           "hovertemplate": f"%{{y}}<br>{phase} {buffer} %{{x:,.4~g}} ns per "
                                            "object<extra></extra>"})
    # a bar per phase and buffer measured, as tight as the sizes' grouped bars (60 px a row
    # made the default run's chart 4,430 px tall with two bars a row)
    traces = [t for t in traces if t["y"]]
    height = max(280, 110 + (6 + 7 * len(traces))
                 * len({_base_label(s, ("buffer",)) for s, _ in measured}))
    layout = plot_layout(f"micro · {tm.where}: ns per object, fresh and reused buffers", height,
                         barmode="group",
                         xaxis=value_axis("ns per object", [v for t in traces for v in t["x"]]),
                         yaxis={"autorange": "reversed", "automargin": True, **BAR_LABELS,
                                "categoryorder": "array", "categoryarray": order},
                         legend=TOP_LEGEND)
    return Plot(f"plot-{tm.slug}-buffers", {"data": traces, "layout": layout},
                "Hatched: one reused output buffer; plain: a fresh buffer per object.")


def _sweep_plot(tm, measured) -> Plot:
    lines: dict[tuple[str, str], list[tuple[int, Cell, Series]]] = defaultdict(list)
    for s, c in measured:
        for phase in ("encode", "decode"):
            lines[(_base_label(s, ("k",)), phase)].append((_settings(s.key.setting)["k"], c, s))
    traces = []
    for (label, phase), points in sorted(lines.items()):
        points.sort(key=lambda p: p[0])
        traces.append({"type": "scatter", "mode": "lines+markers", "name": f"{label} · {phase}",
                       "x": [k for k, _, _ in points],
                       "y": [per_object(c, f"{phase}_ns") for _, c, _ in points],
                       **_marker(points[0][2], tm.palette,
                                 (phase == "decode") * 2 + ("reused" in label))})
    layout = plot_layout(f"micro · {tm.where}: ns per object against k", 460,
                         xaxis=plot_axis("k (strings and ints per object)", log=True),
                         yaxis=plot_axis("ns per object", log=True), legend=TOP_LEGEND)
    return Plot(f"plot-{tm.slug}-sweep", {"data": traces, "layout": layout},
                "`arrays` objects of k strings and k ints; line style: encode or decode, fresh "
                "or reused buffer.")

