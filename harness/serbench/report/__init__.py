"""Reports: one run of the results database as a self-contained HTML page and a Markdown summary."""
from .data import ReportError
from .render import render_run


__all__ = ["ReportError", "render_run"]
