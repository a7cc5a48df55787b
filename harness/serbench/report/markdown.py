"""The Markdown summary: the same sections as the page, tables only (plots live in the HTML)."""
from __future__ import annotations

from .blocks import Details, Facts, Section, Table, badge_kind


def _cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def table(t: Table) -> list[str]:
    columns = t.columns + [t.links_column] * bool(t.links_column)
    align = ["---:" if i in t.numeric else "---" for i in range(len(columns))]
    lines = [f"**{t.title}**", "", *([t.note, ""] if t.note else []),
             "| " + " | ".join(map(_cell, columns)) + " |", "| " + " | ".join(align) + " |"]
    for row in t.rows:
        # a value's detail (Row.titles, the page's hover) in full; statuses other than ok
        # stand out, as their badges do in the page
        values = [(row.titles[i] if i < len(row.titles) and row.titles[i] else v)
                  if i != t.badge or badge_kind(row.kind) == "ok" else f"**{v}**"
                  for i, v in enumerate(row.values)]
        if t.links_column:
            values.append(", ".join(f"[{label}](report.html#{id_})" for label, id_ in row.links))
        lines.append("| " + " | ".join(map(_cell, values)) + " |")
    if t.caption:
        lines += ["", f"_{t.caption}_"]
    return lines + [""]


def block(b) -> list[str]:
    if isinstance(b, Table):
        return table(b)
    if isinstance(b, Facts):
        return [f"- **{label}**: " + (f"[{value}](report.html#{b.links[label]})"
                                      if label in b.links else value)
                for label, value in b.items] + [""]
    if isinstance(b, Details):
        return [f"<details><summary>{b.title}</summary>", "", "```text", b.text.rstrip("\n"),
                "```", "", "</details>", ""]
    return []  # plots: see report.html


def section(s: Section, level: int) -> list[str]:
    lines = [f"{'#' * level} {s.title}", ""]
    if s.intro:
        lines += [s.intro, ""]
    for b in s.blocks:
        lines += block(b)
    for child in s.children:
        lines += section(child, level + 1)
    return lines


def render_markdown(title: str, subtitle: str, warning: str, sections: list[Section]) -> str:
    lines = [f"# {title}", "", subtitle + ". Plots are in report.html next to this file.", ""]
    if warning:
        lines += [f"> **{warning}**", ""]
    for s in sections:
        lines += section(s, 2)
    return "\n".join(lines).rstrip("\n") + "\n"
