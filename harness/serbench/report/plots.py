"""Plotly figures as plain JSON-ready dicts (rendered in the page by the inlined plotly.js)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from plotly.colors import qualitative

from .series import DEPTHS, Series, canonical
from .units import TimeUnit, unit_for, unit_for_plot


FONT = {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 13,
        "color": "#222"}
FLOOR_COLOR = "#6b6b6b"
CPU_COLOR, IO_COLOR = "#4c78a8", "#f58518"
SIZE_COLORS = {"encoded": "#4c78a8", "gzip": "#54a24b", "zstd": "#b279a2"}
LANGUAGE_SYMBOLS = {"rust": "circle", "cpp": "square", "java": "diamond"}
# one colour per language wherever languages, not methods, are told apart (ColorBrewer's Dark2,
# safe for the common colour-vision deficiencies); a language this harness does not know: ink
LANGUAGE_COLORS = {"rust": "#d95f02", "cpp": "#1b9e77", "java": "#7570b3"}


def language_color(language: str) -> str:
    return LANGUAGE_COLORS.get(language, FONT["color"])
# a one-row legend above the plot, left (the mode bar is on the right), cpu before io
TOP_LEGEND = {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0, "xanchor": "left",
              "traceorder": "normal"}
PANEL_GAP = 0.07  # between the per-depth panels, as a fraction of the plot width
# values spread wider than this read on a log axis: on a linear one the shortest bars of a
# 1,000x range are a few pixels (write · part's 30 leading bars filled 3 % of the width)
LOG_SPAN = 30.0


# 50 distinct colours (Plotly's Dark24, then Alphabet): a run's methods (28 in the default
# plan) each get their own, where 24 gave avro and postcard, bincode and protobuf one colour
METHOD_COLORS = tuple(dict.fromkeys(c.lower() for c in (*qualitative.Dark24,
                                                          *qualitative.Alphabet)))


class Palette:
    """One colour per method across the whole report, so a method looks the same in every plot
    and no two methods share one (up to len(METHOD_COLORS) methods)."""

    def __init__(self, methods: set[str]):
        colors = METHOD_COLORS
        self._colors = {m: colors[i % len(colors)] for i, m in enumerate(sorted(methods))}

    def __call__(self, method: str) -> str:
        return self._colors.get(method, FLOOR_COLOR)


def plot_layout(title: str, height: int, top: int = 85, **axes) -> dict:
    # the top margin holds the title and, below it, a top legend or the panel titles
    return {"title": {"text": title, "x": 0, "xanchor": "left", "y": 1, "yanchor": "top",
                      "yref": "container", "pad": {"t": 10}, "font": {"size": 15}},
            "font": FONT, "height": height, "margin": {"l": 70, "r": 20, "t": top, "b": 60},
            "paper_bgcolor": "#fff", "plot_bgcolor": "#fff", "hovermode": "closest", **axes}


def plot_axis(title: str, log: bool = False, **extra) -> dict:
    axis = {"title": {"text": title}, "gridcolor": "#e6e6e6", "linecolor": "#999",
            "zeroline": False, "separatethousands": True, "exponentformat": "none", **extra}
    if log:
        axis["type"] = "log"
    return axis


def spans_widely(values) -> bool:
    """Do the positive values spread wider than LOG_SPAN (so they read on a log axis)?"""
    positive = [v for v in values if v is not None and v > 0]
    return bool(positive) and max(positive) / min(positive) > LOG_SPAN


def value_axis(title: str, values, **extra) -> dict:
    """A bar chart's value axis: log where the values spread wider than LOG_SPAN, the title
    saying so."""
    log = spans_widely(values)
    return plot_axis(f"{title}{' (log axis)' if log else ''}", log=log, **extra)


def _group(series: Series) -> str:
    return "floor" if series.is_floor else (series.key.depth or "all")


def _line_style(series: Series, palette: Palette) -> tuple[dict, dict]:
    if series.is_floor:
        return ({"color": FLOOR_COLOR, "dash": "dash", "width": 2},
                {"color": FLOOR_COLOR, "symbol": LANGUAGE_SYMBOLS.get(series.key.language,
                                                                     "triangle-up") + "-open",
                 "size": 7})
    depth = series.key.depth
    symbol = LANGUAGE_SYMBOLS.get(series.key.language, "triangle-up")
    if depth not in ("", "materialize"):
        symbol += "-open"  # hollow markers: the object was never fully decoded
    color = palette(series.key.method)
    return {"color": color, "width": 1.5}, {"color": color, "symbol": symbol, "size": 7}


def time_figure(series: list[Series], floors: list[Series], palette: Palette,
                title: str) -> dict | None:
    """Median total time against n, log-log, min–max whiskers: one panel per access depth, so
    each panel compares equal work; the floor (dashed) is drawn in every panel."""
    lines = [s for s in series if not s.is_floor and s.measured_ns]
    floors = [f for f in floors if f.measured_ns]
    if not lines:
        return None
    depths = sorted({s.key.depth for s in lines}, key=lambda d: canonical(d, DEPTHS))
    unit = unit_for_plot(s.cells[n].total.median for s in lines + floors for n in s.measured_ns)
    extent = [unit.of(v) for s in lines + floors for c in s.cells.values() if c.measured
              for v in (c.total.low, c.total.high)]
    width = (1 - PANEL_GAP * (len(depths) - 1)) / len(depths)
    traces, layout_axes, panel_titles = [], {}, []
    for i, depth in enumerate(depths):
        suffix = str(i + 1) if i else ""
        start = i * (width + PANEL_GAP)
        panel = floors + [s for s in lines if s.key.depth == depth]
        traces += [_time_trace(s, unit, palette, suffix, first_panel=not i) for s in panel]
        ticks = _n_ticks({n for s in panel for n in s.measured_ns})
        layout_axes[f"xaxis{suffix}"] = plot_axis("n (objects)", log=True, anchor=f"y{suffix}",
                                                  domain=[start, start + width], **ticks)
        shared = {"matches": "y"} if i else {}
        layout_axes[f"yaxis{suffix}"] = plot_axis("" if i else f"time ({unit.name})", log=True,
                                                  anchor=f"x{suffix}", **shared,
                                                  **_log_ticks(extent))
        panel_titles.append({"text": f"<b>depth: {depth}</b>" if depth else "", "showarrow": False,
                             "xref": "paper", "yref": "paper", "x": start + width / 2, "y": 1.0,
                             "xanchor": "center", "yanchor": "bottom"})
    groups = _title_legend_groups(traces)
    # tall enough for the legend not to scroll, up to a point
    height = min(1300, max(500, 120 + 21 * sum(t["showlegend"] for t in traces) + 34 * groups))
    layout = plot_layout(title, height, **layout_axes, annotations=panel_titles,
                         legend={"groupclick": "togglegroup", "tracegroupgap": 10,
                                 "font": {"size": 12}})
    return {"data": traces, "layout": layout}


def _title_legend_groups(traces: list[dict]) -> int:
    """Name each legend group (floor, materialize, access, …) once, on its first entry."""
    titled = set()
    for trace in traces:
        group = trace["legendgroup"]
        if trace["showlegend"] and group not in titled:
            trace["legendgrouptitle"] = {"text": group}
            titled.add(group)
    return len(titled)


def _n_ticks(ns: set[int]) -> dict:
    """Label the n the plan measured, as long as they are few enough to read."""
    if len(ns) > 8:
        return _log_ticks(list(ns))
    ticks = sorted(ns)
    return {"tickvals": ticks, "ticktext": [f"{n:,}" for n in ticks]}


def _log_ticks(values: list[float]) -> dict:
    """Log-axis ticks with full labels: powers of ten over a wide span, 1-2-5 steps over a few
    decades, every digit over a narrow one (plotly's own minor labels are a bare digit)."""
    positive = [v for v in values if v > 0]
    if not positive:
        return {}
    low, high = min(positive), max(positive)
    steps = (1,) if high >= 1000 * low else (1, 2, 5) if high >= 5 * low else range(1, 10)
    ticks = [step * 10.0 ** exp
             for exp in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1)
             for step in steps if low / 1.5 <= step * 10.0 ** exp <= high * 1.5]
    return {"tickvals": ticks, "ticktext": [f"{t:,.0f}" if t >= 1 else f"{t:g}" for t in ticks]}


def _time_trace(s: Series, unit: TimeUnit, palette: Palette, axes: str,
                first_panel: bool) -> dict:
    cells = [s.cells[n] for n in s.measured_ns]
    med = [unit.of(c.total.median) for c in cells]
    line, marker = _line_style(s, palette)
    return {
        "type": "scatter", "mode": "lines+markers", "name": s.label,
        "xaxis": f"x{axes}", "yaxis": f"y{axes}", "legendgroup": _group(s),
        # a floor repeats in every panel but is listed in the legend once
        "showlegend": first_panel or not s.is_floor,
        "x": [c.n for c in cells], "y": med,
        "error_y": whiskers(med, [unit.of(c.total.low) for c in cells],
                            [unit.of(c.total.high) for c in cells]),
        "customdata": [[unit.of(c.total.low), unit.of(c.total.high), c.reps] for c in cells],
        "hovertemplate": (f"<b>{s.label}</b><br>n = %{{x:,}}<br>median %{{y:,.4~g}} {unit.name}"
                          f"<br>min–max %{{customdata[0]:,.4~g}}–%{{customdata[1]:,.4~g}} "
                          f"{unit.name}<br>%{{customdata[2]}} repetitions<extra></extra>"),
        "line": line, "marker": marker,
    }


def cpu_io_split(cell) -> tuple[float, float]:
    """(cpu, io) ns adding up to the median total: the median total times the median of each
    repetition's cpu share, cpu_ns / (cpu_ns + io_ns), and the rest. Stacking the cpu median on
    the io median would not: medians of parts need not add up to the median of the whole."""
    cpu = cell.total.median * cell.cpu_share
    return cpu, cell.total.median - cpu


def cpu_io_figure(series: list[Series], n: int, title: str) -> dict | None:
    """Per series at one n a bar as long as the median total time, split into cpu and io by
    the median cpu share (cpu_io_split), fastest on top; the floor hatched."""
    rows = sorted(((s, c) for s in series if (c := s.cells.get(n)) is not None and c.measured
                   and c.cpu_share is not None),
                  key=lambda sc: (sc[1].total.median, sc[0].label))
    if not rows:
        return None
    unit = unit_for(min(c.total.median for _, c in rows))
    if spans_widely(c.total.median for _, c in rows):
        return _total_figure(rows, unit, n, title)
    traces = []
    for floor in (True, False):
        part = [(s, c) for s, c in rows if s.is_floor == floor]
        if part:
            traces += [_cpu_io_bar(part, unit, i, name, color, floor)
                       for i, (name, color) in enumerate((("cpu", CPU_COLOR), ("io", IO_COLOR)))]
    traces.append(min_max_whiskers(rows, unit))
    height = bar_chart_height(len(rows))
    layout = plot_layout(title, height, barmode="stack",
                         xaxis=plot_axis(f"median total time at n = {n:,} ({unit.name}), "
                                         "split by the median cpu share"),
                         yaxis={"autorange": "reversed", "automargin": True, **BAR_LABELS,
                                "title": {"text": ""},
                                "categoryorder": "array",
                                "categoryarray": [s.label for s, _ in rows]},
                         legend=TOP_LEGEND)
    return {"data": traces, "layout": layout}


def _total_figure(rows: list, unit: TimeUnit, n: int, title: str) -> dict:
    """Times spread wider than LOG_SPAN: one bar per row, its median total on a log axis (a
    stacked split cannot be read there: a log axis stretches the first part), the cpu share
    in its hover and its colour saying which dominates."""
    bars = {"type": "bar", "orientation": "h", "name": "median total",
            "y": [s.label for s, _ in rows], "x": [unit.of(c.total.median) for _, c in rows],
            "marker": {"color": [FLOOR_COLOR if s.is_floor else
                                 CPU_COLOR if c.cpu_share >= 0.5 else IO_COLOR
                                 for s, c in rows]},
            "customdata": [[c.cpu_share] for _, c in rows],
            "hovertemplate": (f"%{{y}}<br>median total %{{x:,.4~g}} {unit.name}<br>median cpu "
                              f"share %{{customdata[0]:.1%}}<extra></extra>")}
    height = bar_chart_height(len(rows))
    layout = plot_layout(title, height,
                         xaxis=plot_axis(f"median total time at n = {n:,} ({unit.name}; log "
                                         "axis): blue mostly cpu, orange mostly io, grey the "
                                         "raw floor", log=True),
                         yaxis={"autorange": "reversed", "automargin": True, **BAR_LABELS,
                                "title": {"text": ""},
                                "categoryorder": "array",
                                "categoryarray": [s.label for s, _ in rows]},
                         showlegend=False)
    return {"data": [bars, min_max_whiskers(rows, unit)], "layout": layout}


# a bar per row: 14 px each, its label in 11 px type (the default run's 75-bar charts were
# 1,900 px tall at 24 px a bar)
BAR_PX = 14
BAR_LABELS = {"tickfont": {"size": 11}, "tickmode": "linear", "dtick": 1}  # every bar named


def bar_chart_height(bars: int) -> int:
    return max(260, 110 + BAR_PX * bars)


def whiskers(values: list[float], lows: list[float], highs: list[float]) -> dict:
    """Plotly error bars from each value down to its low and up to its high (the min–max over
    the measured repetitions: a median alone does not say how sure it is)."""
    return {"type": "data", "symmetric": False, "thickness": 1, "width": 3,
            "array": [h - v for v, h in zip(values, highs)],
            "arrayminus": [v - lo for v, lo in zip(values, lows)]}


def min_max_whiskers(rows: list, unit: TimeUnit) -> dict:
    """Each bar's min–max over its measured repetitions, as whiskers around its median (its
    interval: a bar alone does not say how sure it is)."""
    return {"type": "scatter", "mode": "markers", "name": "min–max",
            "y": [s.label for s, _ in rows], "x": [unit.of(c.total.median) for _, c in rows],
            "marker": {"size": 4, "color": "#222", "symbol": "line-ns-open"},
            "error_x": {**whiskers([unit.of(c.total.median) for _, c in rows],
                                   [unit.of(c.total.low) for _, c in rows],
                                   [unit.of(c.total.high) for _, c in rows]), "color": "#222"},
            "hovertemplate": (f"%{{y}}<br>median %{{x:,.4~g}} {unit.name}, min–max over the "
                              "measured repetitions<extra></extra>")}


def _cpu_io_bar(rows: list, unit: TimeUnit, index: int, part: str, color: str,
                floor: bool) -> dict:
    """One part (0 cpu, 1 io) of every row's split bar; the hover gives the whole and the share."""
    name = f"{part} (raw floor)" if floor else part
    marker = {"color": color}
    if floor:
        marker["pattern"] = {"shape": "/", "solidity": 0.4}
    shares = [c.cpu_share if index == 0 else 1 - c.cpu_share for _, c in rows]
    return {"type": "bar", "orientation": "h", "name": name, "y": [s.label for s, _ in rows],
            "x": [unit.of(cpu_io_split(c)[index]) for _, c in rows], "marker": marker,
            "customdata": [[unit.of(c.total.median), share] for (_, c), share in
                           zip(rows, shares)],
            "hovertemplate": (f"%{{y}}<br>{name} %{{x:,.4~g}} {unit.name}: "
                              f"%{{customdata[1]:.1%}} (median {part} share) of the median "
                              f"total %{{customdata[0]:,.4~g}} {unit.name}<extra></extra>")}


@dataclass(frozen=True)
class SizeBar:
    label: str
    encoded: float
    gzip: float | None
    zstd: float | None


def size_figure(bars: list[SizeBar], title: str) -> dict:
    """Encoded and compressed bytes per object, grouped per method × language, smallest on top."""
    labels = [b.label for b in bars]
    traces = []
    for kind in ("encoded", "gzip", "zstd"):
        values = [getattr(b, kind) for b in bars]
        if all(v is None for v in values):
            continue
        traces.append({"type": "bar", "orientation": "h", "name": kind, "y": labels, "x": values,
                       "marker": {"color": SIZE_COLORS[kind]},
                       "hovertemplate": f"%{{y}}<br>{kind} %{{x:,.0f}} B per object"
                                        "<extra></extra>"})
    height = max(260, 110 + (6 + 7 * len(traces)) * len(bars))
    layout = plot_layout(title, height, barmode="group",
                         xaxis=value_axis("bytes per object",
                                          [v for t in traces for v in t["x"]]),
                         yaxis={"autorange": "reversed", "automargin": True, **BAR_LABELS,
                                "title": {"text": ""}},
                         legend=TOP_LEGEND)
    return {"data": traces, "layout": layout}

