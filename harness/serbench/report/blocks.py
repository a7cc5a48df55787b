"""The report's content as plain data, rendered twice: to HTML (with plots) and to Markdown."""
from __future__ import annotations

from dataclasses import dataclass, field, replace


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
    # per column, the detail a short value stands for: the page's hover, the Markdown's text
    titles: tuple[str, ...] = ()
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
    note: str = ""                         # said above the rows (what every row shares)


def said_once(table: Table, names: tuple[str, ...]) -> Table:
    """The table without those of the `names` columns in which every row that has a value
    holds the same one, each said once in its note instead ("network: tbf 1 Gbit/s"): a
    column repeating one setting down a long table only makes it taller."""
    if len(table.rows) < 2:
        return table
    constant = {}
    for i, name in enumerate(table.columns):
        values = {r.values[i] for r in table.rows if r.values[i]}
        if name in names and len(values) == 1:
            constant[i] = values.pop()
    if not constant:
        return table
    keep = [i for i in range(len(table.columns)) if i not in constant]
    moved = {old: new for new, old in enumerate(keep)}
    said = "; ".join(f"{table.columns[i]}: {value}" for i, value in constant.items())
    return replace(
        table, columns=[table.columns[i] for i in keep],
        rows=[replace(r, values=[r.values[i] for i in keep]) for r in table.rows],
        numeric=frozenset(moved[i] for i in table.numeric if i in moved),
        badge=moved.get(table.badge) if table.badge is not None else None,
        accent_column=moved.get(table.accent_column) if table.accent_column is not None
        else None,
        note="; ".join(filter(None, [table.note, f"Every row: {said}."])))


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

