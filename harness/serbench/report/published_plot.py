"""The published-figures chapter as a picture: each ratio this run measured against the one
published, on log-log axes, the diagonal where they agree and a band where they are about as
large; a point under the diagonal is a gap this run found smaller than the study did."""
from __future__ import annotations

import re

from .plots import TOP_LEGEND, plot_axis, plot_layout

# what reproduction.verdict writes after a judged ratio, read back here
MEASURED_PUBLISHED = re.compile(r"\(measured ([\d,.]+)x / published ([\d,.]+)x\)")
# "about as large as published": reproduction.size_in_words's band
ABOUT = (0.8, 1.25)
SAME, REVERSED = "#1b9e77", "#d95f02"


def points(verdict: str) -> list[tuple[float, float, bool]]:
    """Every (measured, published, same direction) a verdict names."""
    found = []
    for part in verdict.split("; "):
        for m in MEASURED_PUBLISHED.finditer(part):
            measured, published = (float(g.replace(",", "")) for g in m.groups())
            found.append((measured, published, "reversed (" not in part))
    return found


def published_figure(judged: list[tuple[str, str]]) -> dict | None:
    """(subject, verdict) of each judged figure -> the plot, or None when none has a ratio."""
    dots = [(subject, m, p, same) for subject, verdict in judged
            for m, p, same in points(verdict)]
    if not dots:
        return None
    values = [v for _, m, p, _ in dots for v in (m, p)]
    low, high = min(values + [1.0]) / 1.5, max(values) * 1.5
    traces = [{"type": "scatter", "mode": "lines", "x": [low, high], "y": [k * low, k * high],
               "line": {"color": "#bbb", "width": 1, "dash": "dot" if k != 1 else "solid"},
               "hoverinfo": "skip", "showlegend": k == 1,
               "name": "as published (dotted: about as large, 0.8x to 1.25x)"}
              for k in (ABOUT[0], 1.0, ABOUT[1])]
    for same, name, color in ((True, "same direction", SAME), (False, "reversed", REVERSED)):
        mine = [d for d in dots if d[3] is same]
        if mine:
            traces.append({"type": "scatter", "mode": "markers", "name": name,
                           "x": [p for _, _, p, _ in mine], "y": [m for _, m, _, _ in mine],
                           "text": [s for s, _, _, _ in mine],
                           "marker": {"color": color, "size": 9, "line": {"color": "#fff",
                                                                          "width": 1}},
                           "hovertemplate": "%{text}<br>measured %{y:,.3~g}x, published "
                                            "%{x:,.3~g}x<extra></extra>"})
    layout = plot_layout("Measured against published: each judged ratio", 460,
                         xaxis=plot_axis("published ratio (log axis)", log=True),
                         yaxis=plot_axis("this run's ratio (log axis)", log=True),
                         legend=TOP_LEGEND)
    return {"data": traces, "layout": layout}
