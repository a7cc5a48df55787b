"""Units and number formatting: one time unit per plot or table, thousands separators everywhere."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from statistics import median


@dataclass(frozen=True)
class TimeUnit:
    name: str
    ns: float  # nanoseconds in one unit

    def of(self, ns: float) -> float:
        return ns / self.ns


TIME_UNITS = (TimeUnit("ns", 1), TimeUnit("µs", 1e3), TimeUnit("ms", 1e6), TimeUnit("s", 1e9))


def unit_for(reference_ns: float) -> TimeUnit:
    """The largest unit in which the reference value is still at least 1."""
    fitting = [u for u in TIME_UNITS if reference_ns >= u.ns]
    return fitting[-1] if fitting else TIME_UNITS[0]


def unit_for_plot(values_ns: Iterable[float]) -> TimeUnit:
    # the typical value decides, so a log axis reads around 1..1000 rather than in 1e-4 steps
    values = list(values_ns)
    return unit_for(median(values)) if values else TIME_UNITS[0]


def number(value: float) -> str:
    """About three significant digits, thousands separators for large values."""
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def multiple(ratio: float) -> str:
    if ratio >= 100:
        return f"{ratio:,.0f}x"
    if ratio >= 10:
        return f"{ratio:.1f}x"
    return f"{ratio:.2f}x"


def byte_size(value: float) -> str:
    """Object-sized values in bytes; file-sized ones in KiB, MiB, GiB."""
    for name, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= 10 * scale:
            return f"{number(value / scale)} {name}"
    return f"{value:,.0f} B"
