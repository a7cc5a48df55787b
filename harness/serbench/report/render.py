"""Render one run of the results database as report.html (self-contained) and report.md."""
from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import jinja2
import markupsafe
from plotly.offline import get_plotlyjs

from .. import __version__
from ..compare import Comparison, compare_runs, noise
from ..results import Results, ResultsError
from .baseline import baseline_section
from .blocks import Details, Facts, Plot, Section, Table, badge_kind
from .data import ReportError, RunData, load_run
from .markdown import render_markdown
from .paste import paste_tables
from .plots import Palette
from .provenance import provenance_section
from .reproduction import Measured, network_findings_section, published_section
from .size_views import size_entries, sizes_section
from .status import status_section
from .strip import svg
from .summary import summary_section
from .tasks import TaskModel, task_models, task_section


def run_tasks(data: RunData, across_hosts: bool = False) -> dict[str, list[TaskModel]]:
    palette = Palette({c.method for c in data.cells if not c.is_floor})
    return task_models(data.cells, palette, noise.from_json(data.run.params.get("noise")),
                       across_hosts)


def build_sections(data: RunData, tasks: dict[str, list[TaskModel]] | None = None
                   ) -> list[Section]:
    cells = data.cells
    tasks = run_tasks(data) if tasks is None else tasks
    sizes = size_entries(cells)
    measured = Measured(sizes, tasks, data.run)
    recorded = noise.from_json(data.run.params.get("noise"))
    sections = [summary_section(tasks, sizes, cells, recorded.describe()),
                provenance_section(data.run, cells)]
    sections += [s for task, models in tasks.items() if (s := task_section(task, models))]
    # after the network tasks' sections (the last tasks in canonical order), before the sizes
    if (section := network_findings_section(measured)) is not None:
        sections.append(section)
    if (section := sizes_section(sizes)) is not None:
        sections.append(section)
    sections += [published_section(measured), status_section(cells)]
    return sections


def plots(sections: list[Section]) -> list[Plot]:
    found = []
    for section in sections:
        found += [b for b in section.blocks if isinstance(b, Plot)]
        found += plots(section.children)
    return found


def figures_json(sections: list[Section]) -> str:
    """Figures by plot id, safe inside a <script> element: no '<', '>' or '&' survives."""
    text = json.dumps({p.id: p.figure for p in plots(sections)}, ensure_ascii=False,
                      separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def titles(data: RunData) -> tuple[str, str, str]:
    """Page title, subtitle, and a warning when the run did not complete."""
    run = data.run
    title = f"serbench report: {run.plan_name or run.run_id}"
    when = run.finished_at or run.started_at
    subtitle = f"run {run.run_id}" + (f", {when:%Y-%m-%d %H:%M}" if when else "")
    warning = "" if run.status == "complete" else (
        f"This run is {run.status}, not complete: some cells may be missing or partial.")
    return title, subtitle, warning


def css_class(kind: str) -> str:
    return kind.replace(" ", "-")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["css"] = css_class
    env.filters["badge"] = lambda kind: css_class(badge_kind(kind))
    env.filters["strip"] = lambda strip: markupsafe.Markup(svg(strip))  # escaped by svg()
    for name, kind in (("plot", Plot), ("table", Table), ("details", Details), ("facts", Facts)):
        env.tests[name] = lambda block, kind=kind: isinstance(block, kind)
    return env


# a table of more rows than this is detail, collapsed under its title (the summary's never;
# each section's per-language table is open): the default run's page was some 215 screens,
# most of it long tables under their plots; folded over 15 rows, 60 screens; over 6, 51
FOLD_ROWS = 6


def render_html(data: RunData, sections: list[Section]) -> str:
    here = files(__package__)
    template = _environment().from_string((here / "report.html.j2").read_text(encoding="utf-8"))
    title, subtitle, warning = titles(data)
    return template.render(title=title, subtitle=subtitle, warning=warning, sections=sections,
                           css=(here / "report.css").read_text(encoding="utf-8"),
                           plotly_js=get_plotlyjs(), figures_json=figures_json(sections),
                           version=__version__, run_id=data.run.run_id, fold_rows=FOLD_ROWS)


def render_run(db_path: Path, run_id: str, out_dir: Path, allow_incomplete: bool = False,
               baseline: str | None = None, across_hosts: bool = False) -> tuple[Path, Path]:
    """Write out_dir/report.html, report.md and tables.md (Markdown tables to paste) for one
    run; refuses an incomplete run unless allow_incomplete. With a baseline run, a section
    compares the two. Cells of two cluster hosts are ranked and compared apart unless
    across_hosts. Returns (html path, markdown path)."""
    data = load_run(Path(db_path), run_id, allow_incomplete)
    tasks = run_tasks(data, across_hosts)
    sections = build_sections(data, tasks)
    if baseline is not None:
        sections.insert(1, baseline_section(_compare(Path(db_path), baseline, run_id,
                                                     across_hosts)))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    html_path, md_path = out_dir / "report.html", out_dir / "report.md"
    html_path.write_text(render_html(data, sections), encoding="utf-8")
    md_path.write_text(render_markdown(*titles(data), sections), encoding="utf-8")
    (out_dir / "tables.md").write_text(paste_tables(data.run, tasks), encoding="utf-8")
    return html_path, md_path


def _compare(db_path: Path, baseline: str, run_id: str, across_hosts: bool) -> Comparison:
    try:
        with Results(db_path, read_only=True) as results:
            return compare_runs(results, baseline, run_id, across_hosts=across_hosts)
    except ResultsError as exc:
        raise ReportError(f"baseline: {exc}") from None
