"""A row's every implementation at a glance: one tick per implementation on a log axis of its
multiple of the row's fastest, coloured by language, the floor a grey tick. Drawn as inline
SVG (no script, so the page's content-security policy allows it); the Markdown has no strip."""
from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

from .plots import FLOOR_COLOR, language_color

WIDTH, HEIGHT, PAD = 160, 18, 4


@dataclass(frozen=True)
class Mark:
    ratio: float    # its median over the row's fastest median
    language: str
    text: str       # what hovering over it says


@dataclass(frozen=True)
class Strip:
    marks: tuple[Mark, ...]
    floor: float | None  # the floor's median over the row's fastest, None without one
    low: float           # the axis, shared by every strip of a table
    high: float

    def x(self, ratio: float) -> float:
        span = math.log(self.high / self.low) or 1.0
        where = math.log(min(max(ratio, self.low), self.high) / self.low) / span
        return PAD + where * (WIDTH - 2 * PAD)


def axis(ratios: list[float]) -> tuple[float, float]:
    """A log axis over every strip of a table: from the least (a floor may be under 1x) to the
    greatest, at least 1x to 2x."""
    return min([1.0, *ratios]), max([2.0, *ratios])


def svg(strip: Strip) -> str:
    parts = [f'<svg class="strip" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{len(strip.marks)} '
             f'implementations, log axis {strip.low:.2g}x to {strip.high:.3g}x">',
             f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{HEIGHT / 2}" y2="{HEIGHT / 2}" '
             'stroke="#ddd"/>']
    if strip.floor is not None:
        x = strip.x(strip.floor)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="0" y2="{HEIGHT}" '
                     f'stroke="{FLOOR_COLOR}" stroke-width="2" opacity="0.6">'
                     f'<title>floor {strip.floor:.2f}x</title></line>')
    for mark in sorted(strip.marks, key=lambda m: -m.ratio):  # the fastest drawn last, on top
        x = strip.x(mark.ratio)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="3" y2="{HEIGHT - 3}" '
                     f'stroke="{language_color(mark.language)}" stroke-width="2">'
                     f'<title>{escape(mark.text)}</title></line>')
    parts.append("</svg>")
    return "".join(parts)
