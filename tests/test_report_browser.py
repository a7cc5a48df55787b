"""The rendered report in a real browser: headless Chromium draws every plot, offline, without
a script error. The page reports its own errors into #render-errors (window.onerror, unhandled
rejections and blocked loads); a negative test proves that hook, and Chromium's console log on
stderr, catch an injected failure.
"""
import html
import json
import re
import shutil
import struct
import subprocess

import pytest

from conftest import require
from serbench.reproduce.published import FIGURES
from serbench.report import render_run
from test_report import RUN, figures, make_results_db

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  "--enable-logging=stderr", "--v=0",
                  # run the page's timers and promises to completion before dumping
                  "--virtual-time-budget=15000"]
CONSOLE_PROBLEM = re.compile(r":CONSOLE[^\]]*\] \"(?:Uncaught|.*(?:Error|violates|Refused|Failed))")


def chromium() -> str:
    path = shutil.which("chromium")
    require(path is not None, "headless Chromium is required: install the Debian package "
                              "`chromium` (apt-get install --no-install-recommends chromium)")
    return path


def run_chromium(page, profile, *args):
    proc = subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args,
                           page.as_uri()], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, proc.stderr


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser")
    make_results_db(root / "results.duckdb")
    html, _ = render_run(root / "results.duckdb", RUN, root / "out")
    return html


def probed(page, tmp_path, probe: str, attribute: str):
    """What a probe script, added to the page, left in the body's data-`attribute` (JSON),
    drawn at 1366 x 768."""
    copy = tmp_path / "probed.html"
    copy.write_text(page.read_text("utf-8").replace("</body>", probe), "utf-8")
    dom, _ = run_chromium(copy, tmp_path / "profile", "--window-size=1366,768", "--dump-dom")
    found = re.search(rf'data-{attribute}="([^"]*)"', dom)
    assert found, "the probe did not run"
    return json.loads(html.unescape(found.group(1)))


def render_errors(dom):
    box = re.search(r'<div id="render-errors"([^>]*)>(.*?)</div>', dom, re.S)
    assert box, "the error box is part of every report"
    return "hidden" in box.group(1), re.findall(r"<li>(.*?)</li>", box.group(2))


def plot_markup(dom, plot_id):
    """The markup of one plot div, up to the next plot div or section."""
    start = dom.index(f'id="{plot_id}"')
    ends = [i for i in (dom.find('id="plot-', start + 1), dom.find("<section", start)) if i > 0]
    return dom[start:min(ends) if ends else len(dom)]


def test_every_plot_renders_without_errors(page, tmp_path):
    dom, stderr = run_chromium(page, tmp_path / "profile", "--dump-dom")
    plot_ids = list(figures(page.read_text("utf-8")))
    assert plot_ids
    for plot_id in plot_ids:
        markup = plot_markup(dom, plot_id)
        assert 'class="main-svg"' in markup, f"{plot_id} was not drawn"
        assert "<path" in markup, f"{plot_id} has no marks"
    assert f'data-plots-drawn="{len(plot_ids)}"' in dom
    hidden, errors = render_errors(dom)
    assert hidden and errors == []
    assert not CONSOLE_PROBLEM.findall(stderr), stderr


def test_an_injected_error_and_a_network_fetch_are_caught(page, tmp_path):
    broken = tmp_path / "broken.html"
    injected = ('<script>throw new Error("injected failure");</script>'
                '<script>fetch("https://example.com/data.json");</script></body>')
    broken.write_text(page.read_text("utf-8").replace("</body>", injected), "utf-8")
    dom, stderr = run_chromium(broken, tmp_path / "profile", "--dump-dom")
    hidden, errors = render_errors(dom)
    assert not hidden
    assert "Uncaught Error: injected failure" in errors
    assert any("blocked a load of https://example.com/data.json" in e for e in errors)
    assert CONSOLE_PROBLEM.search(stderr), "Chromium's console log should show the error too"


def png_size(path):
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


def test_screenshot_is_not_blank(page, tmp_path):
    shot = tmp_path / "report.png"
    run_chromium(page, tmp_path / "profile", "--hide-scrollbars", "--window-size=1400,3000",
                 f"--screenshot={shot}")
    assert png_size(shot) == (1400, 3000)
    # an empty page of this size compresses to about 20 KB; text, tables and plots do not
    assert shot.stat().st_size > 100_000


# what the page measures of itself after drawing: the summary's place on the first screen
FIRST_SCREEN_PROBE = """<script>addEventListener("load", () => {
  const summary = document.getElementById("summary");
  const bottom = el => el.getBoundingClientRect().bottom;
  const rows = [...summary.querySelectorAll("table tbody tr")];
  document.body.dataset.firstScreen = JSON.stringify({
    viewport: innerHeight, heading: bottom(summary.querySelector("h2")),
    takeaways: bottom(summary.querySelector("dl.facts.wide")), rows: rows.map(bottom),
    contents: document.querySelector("nav.toc").getBoundingClientRect().top});
});</script></body>"""


def test_the_summary_answers_on_a_laptops_first_screen(page, tmp_path):
    """At 1366 x 768 (the commonest laptop screen), before any scrolling: the summary's heading,
    its takeaways and the first rows of the answer table; the contents after it."""
    screen = probed(page, tmp_path, FIRST_SCREEN_PROBE, "first-screen")
    assert screen["viewport"] > 600  # the window size took effect (minus any browser chrome)
    assert screen["heading"] < screen["takeaways"] <= screen["viewport"]
    visible = [b for b in screen["rows"] if b <= screen["viewport"]]
    assert len(visible) >= 3, screen
    assert screen["contents"] > screen["rows"][0]
    shot = tmp_path / "first-screen.png"
    run_chromium(page, tmp_path / "profile", "--hide-scrollbars", "--window-size=1366,768",
                 f"--screenshot={shot}")
    assert png_size(shot) == (1366, 768)


def test_the_published_chapter_has_a_row_per_figure_and_links_that_land(page, tmp_path):
    """Drawn by the browser: one row per published figure, each with a value or the reason it
    has none, and every link to the cells behind a figure lands on a section of the page."""
    dom, _ = run_chromium(page, tmp_path / "profile", "--dump-dom")
    chapter = dom[dom.index('id="published"'):]
    chapter = chapter[:chapter.index("</table>")]
    rows = re.findall(r"<tr( class=\"[^\"]*\")?>(.*?)</tr>", chapter, re.S)[1:]  # past the head
    assert len(rows) == len(FIGURES)
    for _, row in rows:
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
                 for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        measured, note = cells[3], cells[4]
        assert measured != "—" or note.startswith("not "), cells
    targets = re.findall(r'href="#([^"]+)"', chapter)
    assert targets, "measured figures link to their cells"
    assert all(f'id="{t}"' in dom for t in targets), targets


# after a scroll to the bottom: where the sections bar is, and whether it links every section
# (read in the same task as the scroll, as layout is synchronous: an animation frame is not
# always granted to a headless page on a loaded machine, which CI once showed)
BAR_PROBE = """<script>addEventListener("load", () => {
  scrollTo(0, document.body.scrollHeight);
  const bar = document.querySelector("nav.bar");
  const links = [...bar.querySelectorAll("a")].map(a => a.getAttribute("href"));
  const sections = [...document.querySelectorAll("section.top")].map(s => "#" + s.id);
  document.body.dataset.bar = JSON.stringify({top: bar.getBoundingClientRect().top,
    scrolled: scrollY, links: links, sections: sections});
});</script></body>"""


def test_the_sections_bar_stays_in_reach_while_the_page_scrolls(page, tmp_path):
    bar = probed(page, tmp_path, BAR_PROBE, "bar")
    assert bar["scrolled"] > 1000 and bar["top"] == 0, bar
    assert bar["links"] == ["#", *bar["sections"]]


# once every plot is drawn: each legend's box and each plot area's (Plotly's drag rectangles,
# one per subplot) in page pixels
LEGEND_PROBE = """<script>const wait = setInterval(() => {
  if (!document.body.dataset.plotsDrawn) return;
  clearInterval(wait);
  const box = el => { const r = el.getBoundingClientRect();
                      return [r.left, r.top, r.right, r.bottom]; };
  const plots = {};
  for (const div of document.querySelectorAll("div.plot[id]")) {
    const legend = div.querySelector("g.legend");
    plots[div.id] = {legend: legend ? box(legend) : null,
                     areas: [...div.querySelectorAll(".draglayer .nsewdrag")].map(box)};
  }
  document.body.dataset.legends = JSON.stringify(plots);
}, 50);</script></body>"""


def overlap(a, b) -> float:
    """The area two [left, top, right, bottom] boxes share."""
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


def test_no_legend_covers_its_plot(page, tmp_path):
    plots = probed(page, tmp_path, LEGEND_PROBE, "legends")
    assert plots and all(p["areas"] for p in plots.values())
    with_legend = {plot_id: p for plot_id, p in plots.items() if p["legend"]}
    assert with_legend, "the fixture's plots have legends"
    covered = {plot_id: p for plot_id, p in with_legend.items()
               if any(overlap(p["legend"], area) > 0 for area in p["areas"])}
    assert not covered, covered
