"""Cells that produced no number (invalid, failed, unsupported, no samples), shown as such."""
from __future__ import annotations

from .blocks import Details, Row, Section, Table
from .data import Cell
from .series import LANGUAGES, MODELS, TASKS, canonical
from .tasks import spec_for


STDERR_TAIL = 4000  # characters: the end of a driver's stderr is where the error is


def unmeasured_status(cell: Cell) -> str | None:
    """The status to show for a cell without numbers, None for a cell that has them."""
    if cell.status != "ok":
        return cell.status
    timed = bool(spec_for(cell.task).builders)
    return "no samples" if timed and cell.total is None else None


def _label(cell: Cell) -> str:
    return " · ".join(filter(None, [cell.language, cell.method, cell.depth, cell.variant]))


def _message(cell: Cell) -> str:
    parts = [cell.message]
    if cell.got_count is not None and cell.got_count != cell.expected_count:
        parts.append(f"count {cell.got_count:,}, expected {cell.expected_count:,}")
    if cell.got_sum and cell.got_sum != cell.expected_sum:
        parts.append(f"checksum sum {cell.got_sum}, expected {cell.expected_sum or '—'}")
    return "; ".join(filter(None, parts))


def _order(cell: Cell) -> tuple:
    return (canonical(cell.task, TASKS), canonical(cell.model, MODELS), cell.method,
            canonical(cell.language, LANGUAGES), cell.depth, cell.variant, cell.n)


def status_section(cells: list[Cell]) -> Section:
    """One row per implementation and outcome; the n it happened at are listed together."""
    unmeasured = sorted(((c, s) for c in cells if (s := unmeasured_status(c))),
                        key=lambda cs: _order(cs[0]))
    section = Section("not-measured", "Cells without numbers",
                      "Invalid (wrong checksum or count), failed (an error), unsupported (outside "
                      "the driver's capability matrix) and sample-less cells are listed here and "
                      "never plotted or ranked as numbers.")
    if not unmeasured:
        section.intro = "Every cell of this run was measured and verified."
        return section
    groups: dict[tuple, list[Cell]] = {}
    for cell, status in unmeasured:
        key = (cell.task, cell.model, _label(cell), status, cell.error_kind, _message(cell))
        groups.setdefault(key, []).append(cell)
    rows = [Row([task, model, label, ", ".join(f"{c.n:,}" for c in group), status,
                 kind or "—", message], kind=status)
            for (task, model, label, status, kind, message), group in groups.items()]
    section.blocks.append(Table(f"{len(unmeasured):,} cells without numbers",
                                ["task", "model", "implementation", "n", "status", "error kind",
                                 "message"], rows, numeric=frozenset({3}), badge=4))
    section.blocks += [_stderr(group) for group in groups.values() if group[0].stderr]
    return section


def _stderr(group: list[Cell]) -> Details:
    first = group[0]
    where = f"{first.task} · {first.model} · {_label(first)}"
    return Details(f"stderr of {where}, n = {first.n:,}", first.stderr[-STDERR_TAIL:])
