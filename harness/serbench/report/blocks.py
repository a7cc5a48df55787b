"""The report's content as plain data, rendered twice: to HTML (with plots) and to Markdown."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Plot:
    id: str
    figure: dict
    caption: str = ""


@dataclass(frozen=True)
class Row:
    values: list[str]
    # "", floor, partial (numbers, but not at every n), or why there is no number: invalid,
    # failed, unsupported, no samples, not run; styles the row and its status badge
    kind: str = ""
    # (label, section id) pairs: where the row's numbers come from, in the table's
    # `links_column`, so a reader can click through to the plots
    links: tuple[tuple[str, str], ...] = ()
    strip: object = None  # a strip.Strip drawn in the table's `strip_column` (HTML only)
    accent: str = ""      # a colour marking the table's `accent_column` (its language's)


def badge_kind(row_kind: str) -> str:
    """The status badge's style: a measured row (plain or floor) is simply ok."""
    return "ok" if row_kind in ("", "floor") else row_kind


@dataclass(frozen=True)
class Table:
    title: str
    columns: list[str]
    rows: list[Row]
    caption: str = ""
    numeric: frozenset[int] = frozenset()  # right-aligned column indices
    badge: int | None = None               # column whose value is a status marker
    links_column: str = ""                 # a last column of each row's links, titled so
    strip_column: str = ""                 # a last column of each row's strip, titled so
    accent_column: int | None = None       # column marked in each row's accent colour


@dataclass(frozen=True)
class Details:
    """Long text (a plan, stderr) kept folded in the page and fenced in Markdown."""
    title: str
    text: str


@dataclass(frozen=True)
class Facts:
    """Label → value pairs (provenance): a definition grid in the page, a list in Markdown.
    A label in `links` makes its value a link to the section of that id."""
    items: list[tuple[str, str]]
    links: dict[str, str] = field(default_factory=dict)
    wide: bool = False  # one item per line across the page (takeaways), not a grid


@dataclass
class Section:
    id: str
    title: str
    intro: str = ""
    blocks: list[Plot | Table | Details | Facts] = field(default_factory=list)
    children: list[Section] = field(default_factory=list)
    lead: bool = False  # shown above the table of contents (the summary)

