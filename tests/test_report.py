"""The report renderer against a synthetic results database.

The fixture is legitimate test data for a renderer: several methods, languages, depths and n,
a raw floor, an invalid, a failed and an unsupported series, warm-ups far slower than the
measured repetitions, and samples attached to the invalid cell that must never be used.
"""
import json
import math
import re
import statistics
from datetime import datetime
from html.parser import HTMLParser

import duckdb
import pytest
from click.testing import CliRunner

from serbench.compare import noise
from serbench.tasks import TASKS
from serbench.reproduce.published import FIGURES
from serbench.report import ReportError, render_run
from serbench.report.blocks import Plot
from serbench.cli.report import report_command
from serbench.report.data import Cell
from serbench.report.plots import Palette
from serbench.report.size_views import size_entries
from serbench.report.tasks import task_models, task_section
from serbench.report.units import multiple, number, unit_for
from serbench.results import Results

RUN = "20250101-000000-good"
RUNNING = "20250102-000000-busy"
REPS = 5
WARMUP_FACTOR = 1000  # warm-ups this much slower: any that leaks into a statistic is obvious
INVALID_NS = 7        # samples of the invalid cell: they would win every ranking if used

# ns per object for (language, method, depth); raw is keyed by the file's method
PER_OBJECT_NS = {
    ("rust", "handcoded", "materialize"): 200, ("rust", "handcoded", "access"): 80,
    ("cpp", "handcoded", "materialize"): 180, ("cpp", "handcoded", "access"): 70,
    ("java", "handcoded", "materialize"): 300,
    ("rust", "json", "materialize"): 2000, ("cpp", "json", "materialize"): 1800,
    ("java", "json", "materialize"): 2600,
    ("rust", "protobuf", "materialize"): 600, ("rust", "protobuf", "access"): 250,
    ("cpp", "protobuf", "materialize"): 500, ("cpp", "protobuf", "access"): 220,
    ("java", "protobuf", "materialize"): 900, ("java", "protobuf", "access"): 400,
    ("java", "java_builtin", "materialize"): 9000,
}
RAW_NS = {"handcoded": 40, "json": 160, "protobuf": 45, "java_builtin": 90}
WRITE_NS = {"handcoded": 150, "json": 900, "protobuf": 300, "java_builtin": 2500}
SIZES = {  # avg_object_bytes per (model, method)
    ("part", "handcoded"): 150, ("part", "json"): 290, ("part", "protobuf"): 120,
    ("part", "java_builtin"): 410,
    ("trade", "handcoded"): 185, ("trade", "json"): 262, ("trade", "protobuf"): 130,
    ("trade", "java_builtin"): 340,
}
LANGUAGES = ("rust", "cpp", "java")
NS = (100, 1000, 10000)
MODELS = ("part", "trade")
READS = ("read_seq", "read_rand")
COUNT = 10000

# the non-ok cells, by identity (task, model, language, method, depth, n)
INVALID = ("read_seq", "part", "rust", "json", "materialize", 10000)
FAILED = ("read_rand", "part", "cpp", "protobuf", "access")             # at every n
UNSUPPORTED = ("read_seq", "part", "java", "handcoded", "access")       # at every n
FAILED_MESSAGE = "part.pages: page 3, object 1021 at offset 8844: string length exceeds the page"
UNSUPPORTED_MESSAGE = "java handcoded does not support depth access"
# timed in rounds with its own file's raw read (floor_rounds): each sample carries its floor
PAIRED = ("read_seq", "trade", "rust", "handcoded", "materialize", 10000)
PAIRED_RATIO = 1.25
# cells whose measured repetitions were not (or could not be shown to be) at steady state
UNSTEADY = ("read_seq", "trade", "java", "java_builtin", "materialize", 10000)
UNSTEADY_NOTE = "the JIT compiled for 90 ms during the measured repetitions (20% of 450 ms)"
UNJUDGED = ("write", "trade", "cpp", "json", "", COUNT)
STEADINESS = {UNSTEADY: (False, UNSTEADY_NOTE), UNJUDGED: (None, "too few to judge")}
MACHINE = {"before": {"load_average": [0.25, 0.5, 1.0], "governors": ["performance"],
                      "busy_processes": []},
           "after": {"load_average": [1.5, 0.75, 1.0], "governors": ["performance"],
                     "busy_processes": [{"pid": 7, "name": "cc1plus", "cpu_share": 0.95}]}}


def methods_of(language):
    return [m for m in ("handcoded", "json", "protobuf", "java_builtin")
            if (language, m, "materialize") in PER_OBJECT_NS]


def sample_times(base_ns):
    """Measured repetitions spread ±4 %, and one much slower warm-up."""
    measured = [round(base_ns * f) for f in (1.0, 0.96, 1.04, 1.01, 0.99)]
    return measured, round(base_ns * WARMUP_FACTOR)


class Fixture:
    def __init__(self):
        self.cell_id = 0
        self.runs, self.cells, self.samples = [], [], []
        self.medians = {}  # (run, task, model, language, method, depth, variant, n) -> median ns

    def write(self, con):
        """One multi-row INSERT per table: row-by-row inserts would take seconds."""
        for table, rows in (("runs", self.runs), ("cells", self.cells),
                            ("samples", self.samples)):
            marks = "(" + ", ".join("?" * len(rows[0])) + ")"
            con.execute(f"INSERT INTO {table} VALUES " + ", ".join([marks] * len(rows)),
                        [v for row in rows for v in row])

    def cell(self, run, task, model, language, method, depth, variant, n, status="ok",
             error_kind=None, message=None, stderr=None, counters=None, base_ns=None,
             got_sum=None, floor_ratio=None):
        self.cell_id += 1
        expected_sum = "00000000deadbeef"
        if task != "write":  # cold: its eviction left nothing cached
            counters = {"cached_after_eviction": 0.0, **(counters or {})}
        self.cells.append(
            [run, self.cell_id, language, task, model, method, depth, variant, "", "default", n, 1,
             262144, task != "write", status, error_kind, message, stderr, n, expected_sum, n,
             got_sum or expected_sum, "fadvise_dontneed" if task != "write" else None,
             json.dumps(counters or {}), "{}", *STEADINESS.get(
                 (task, model, language, method, depth, n), (True, "no drift across 5 "
                                                                    "repetitions"))])
        if base_ns is not None:
            measured, warmup = sample_times(base_ns)
            # a Java cell's JVM marks its first repetition (here the warm-up) cold-JIT
            jit = (lambda state: {"jit": state}) if language == "java" else (lambda _: {})
            self.samples.append([run, self.cell_id, 0, True, warmup, warmup * 7 // 10,
                                 warmup * 3 // 10, json.dumps(jit("cold")) if language == "java" else None])
            paired = (lambda t: {"floor_ns": t / floor_ratio}) if floor_ratio else (lambda _: {})
            # one repetition a round, the rounds shared by every cell (the same machine)
            self.samples += [[run, self.cell_id, rep, False, t, t * 7 // 10, t - t * 7 // 10,
                              json.dumps({"round": rep, **jit("warm"), **paired(t)})]
                             for rep, t in enumerate(measured)]
            if status == "ok":
                self.medians[(run, task, model, language, method, depth, variant, n)] = \
                    statistics.median(measured)


# the run-to-run noise the fixture's runs recorded: 5 % for every task, so that its ties do not
# follow the defaults measured on some VM
NOISE = {"sigma": {task: 0.05 for task in TASKS}, "source": "the fixture"}


def add_run(fx, run, status):
    fx.runs.append(
        [run, status, datetime(2025, 1, 1, 10), datetime(2025, 1, 1, 10, 42), "fixture",
         'name = "fixture"\n[params]\nn = [100, 1000, 10000]\n', 42, "abc1234", True,
         json.dumps({"cpu_model": "Test CPU 9000", "logical_cores": 16,
                     "memory_bytes": 64 * 2**30, "kernel": "6.1.0-test"}),
         json.dumps({"python": "3.11.2", "rustc": "rustc 1.95.0 (2025-01-01)",
                     "g++": "g++ (Debian 12.2.0-14) 12.2.0", "mvn": None}),
         json.dumps({lang: {"path": f"/opt/serbench/{lang}/driver", "info": {
             "language": lang, "driver_version": "0.1.0",
             "toolchain": {"rustc": "1.95.0", "profile": "release"} if lang == "rust"
             else {"compiler": "g++ 12.2.0"},
             "libraries": {"serde_json": "1.0.140"} if lang == "rust"
             else {"protobuf": "3.21.12"}}} for lang in LANGUAGES}),
         json.dumps({"repetitions": REPS, "warmups": 1, "noise": NOISE}), json.dumps(MACHINE)])


def add_cells(fx, run):
    for model in MODELS:
        for language in LANGUAGES:
            for method in methods_of(language):
                size = SIZES[(model, method)]
                fx.cell(run, "write", model, language, method, "", "", COUNT,
                        counters={"objects": COUNT, "bytes": size * COUNT, "pages": 6,
                                  "avg_object_bytes": size, "gzip_bytes": size * COUNT // 3},
                        base_ns=COUNT * WRITE_NS[method] * (1.2 if language == "java" else 1))
                for task in READS:
                    add_reads(fx, run, task, model, language, method)


def add_reads(fx, run, task, model, language, method):
    for n in NS:
        fx.cell(run, task, model, language, "raw", "", method, n, base_ns=n * RAW_NS[method])
    for depth in ("materialize", "access"):
        identity = (task, model, language, method, depth)
        per_object = PER_OBJECT_NS.get((language, method, depth))
        if per_object is None and identity != UNSUPPORTED:
            continue
        for n in NS:
            if identity == UNSUPPORTED:
                fx.cell(run, task, model, language, method, depth, "", n, status="unsupported",
                        message=UNSUPPORTED_MESSAGE)
            elif identity == FAILED:
                fx.cell(run, task, model, language, method, depth, "", n, status="failed",
                        error_kind="corrupt_input", message=FAILED_MESSAGE,
                        stderr="thread 'main' panicked\nbacktrace follows")
            elif (*identity, n) == INVALID:
                # samples stored anyway: the renderer must ignore them for a non-ok cell
                fx.cell(run, task, model, language, method, depth, "", n, status="invalid",
                        error_kind="checksum_mismatch", message="set checksum differs",
                        base_ns=INVALID_NS, got_sum="00000000badc0ffe")
            else:
                fx.cell(run, task, model, language, method, depth, "", n,
                        base_ns=n * per_object,
                        floor_ratio=PAIRED_RATIO if (*identity, n) == PAIRED else None)


def make_results_db(path):
    fx = Fixture()
    add_run(fx, RUN, "complete")
    add_cells(fx, RUN)
    add_run(fx, RUNNING, "running")
    fx.cell(RUNNING, "write", "part", "rust", "handcoded", "", "", COUNT,
            counters={"objects": COUNT, "avg_object_bytes": 150}, base_ns=COUNT * 150)
    Results(path).close()  # the results module creates its schema
    with duckdb.connect(str(path)) as con:
        fx.write(con)
    return fx.medians


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    db = root / "results.duckdb"
    medians = make_results_db(db)
    html_path, md_path = render_run(db, RUN, root / "out")
    return {"db": db, "root": root, "medians": medians, "html": html_path.read_text("utf-8"),
            "md": md_path.read_text("utf-8"), "html_path": html_path}


class Tags(HTMLParser):
    """Every tag with its attributes, and the text of <style> and JSON <script> elements."""

    def __init__(self):
        super().__init__()
        self.tags, self.styles, self.json, self._in = [], [], {}, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "style" or (tag == "script" and attrs.get("type") == "application/json"):
            self._in = (tag, attrs.get("id"))

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in and self._in[0] == "style":
            self.styles.append(data)
        elif self._in:
            self.json[self._in[1]] = self.json.get(self._in[1], "") + data


def parse(html):
    tags = Tags()
    tags.feed(html)
    return tags


def figures(html):
    return json.loads(parse(html).json["figures"])


def traces(html, plot_id):
    return figures(html)[plot_id]["data"]


def section_html(html, section_id):
    start = html.index(f'id="{section_id}"')
    end = html.find('<section class="top"', start)
    return html[start:end if end > 0 else len(html)]


def markdown_table(md, title):
    """Rows of the Markdown table under **title**, as lists of cell strings."""
    lines = md.splitlines()
    start = lines.index(f"**{title}**") + 1
    while not lines[start].startswith("|"):  # past a note said above the rows
        start += 1
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split(" | ")])
    return rows


# --- self-contained -------------------------------------------------------------------------

def test_html_loads_nothing_from_outside(rendered):
    tags = parse(rendered["html"])
    for tag, attrs in tags.tags:
        assert not (tag == "script" and "src" in attrs), "scripts are inlined"
        assert tag != "link", "stylesheets are inlined"
        assert tag not in ("img", "iframe", "object", "embed"), f"<{tag}> would load a file"
        for name in ("src", "href"):
            value = attrs.get(name) or ""
            assert not re.match(r"\s*(https?:)?//", value), f"<{tag} {name}={value}>"
    assert tags.styles and not any(re.search(r"url\(|@import", css) for css in tags.styles)
    # plotly.js is inlined once, and the page forbids loading anything else
    assert rendered["html"].count("plotly.js v") == 1
    assert "default-src 'none'" in rendered["html"]


def test_no_machine_paths_in_the_report(rendered):
    root = str(rendered["root"])
    assert root not in rendered["html"] and root not in rendered["md"]


# --- plots ----------------------------------------------------------------------------------

def test_plot_divs_exist_for_every_task_and_model(rendered):
    html = rendered["html"]
    figs = figures(html)
    expected = [f"plot-{task}-{model}-{kind}" for task in READS for model in MODELS
                for kind in ("time", "cpuio")]
    expected += [f"plot-write-{model}-cpuio" for model in MODELS]
    expected += [f"plot-sizes-{model}" for model in MODELS]
    for plot_id in expected:
        assert f'<div class="plot" id="{plot_id}"></div>' in html
        assert figs[plot_id]["data"], plot_id
    # every div has its figure and every figure its div
    assert set(figs) == set(re.findall(r'<div class="plot" id="([^"]+)"', html))


def test_time_plot_is_log_log_with_floor_dashed_and_depth_in_labels(rendered):
    fig = figures(rendered["html"])["plot-read_seq-part-time"]
    layout = fig["layout"]
    assert layout["xaxis"]["type"] == layout["yaxis"]["type"] == "log"
    assert layout["yaxis"]["title"]["text"].startswith("time (")
    names = {t["name"] for t in fig["data"]}
    assert "rust · handcoded · materialize" in names and "rust · handcoded · access" in names
    floors = [t for t in fig["data"] if "raw floor" in t["name"]]
    assert floors and all(t["line"]["dash"] == "dash" for t in floors)
    # one floor per language: the fastest raw read, the handcoded file here
    assert {t["name"] for t in floors} == {f"{lang} · raw floor · handcoded file"
                                           for lang in LANGUAGES}
    # access reads sit in their own panel, never on the materialize axes
    for t in fig["data"]:
        if "raw floor" in t["name"]:
            continue
        panel_x = "x" if t["name"].endswith("materialize") else "x2"
        assert t["xaxis"] == panel_x, t["name"]


def test_non_ok_cells_are_not_plotted(rendered):
    html = rendered["html"]
    seq = {t["name"]: t for t in traces(html, "plot-read_seq-part-time")}
    assert 10000 not in seq["rust · json · materialize"]["x"]  # invalid there
    assert seq["rust · json · materialize"]["x"] == [100, 1000]
    assert "java · handcoded · access" not in seq  # unsupported
    rand = {t["name"] for t in traces(html, "plot-read_rand-part-time")}
    assert "cpp · protobuf · access" not in rand  # failed
    for plot_id, absent in (("plot-read_seq-part-cpuio", "java · handcoded · access"),
                            ("plot-read_rand-part-cpuio", "cpp · protobuf · access")):
        labels = {y for t in traces(html, plot_id) for y in t["y"]}
        assert absent not in labels and "rust · json · materialize" in labels
    # the invalid cell's samples (7 ns) never become a number anywhere
    for fig in figures(html).values():
        for t in fig["data"]:
            for value in t.get("x", []) + t.get("y", []):
                if isinstance(value, (int, float)):
                    assert value * 1e6 != INVALID_NS and value * 1e3 != INVALID_NS


def test_plotted_medians_and_whiskers_exclude_warmups(rendered):
    fig = figures(rendered["html"])["plot-read_seq-part-time"]
    unit = fig["layout"]["yaxis"]["title"]["text"].removeprefix("time (").removesuffix(")")
    scale = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}[unit]
    trace = next(t for t in fig["data"] if t["name"] == "cpp · handcoded · materialize")
    for i, n in enumerate(trace["x"]):
        measured, _ = sample_times(n * 180)
        assert trace["y"][i] * scale == pytest.approx(statistics.median(measured))
        high = trace["y"][i] + trace["error_y"]["array"][i]
        low = trace["y"][i] - trace["error_y"]["arrayminus"][i]
        assert (low * scale, high * scale) == pytest.approx((min(measured), max(measured)))


# --- status ---------------------------------------------------------------------------------

def test_status_table_lists_invalid_failed_and_unsupported(rendered):
    table = section_html(rendered["html"], "not-measured")
    assert '<span class="badge invalid">invalid</span>' in table
    assert '<span class="badge failed">failed</span>' in table
    assert '<span class="badge unsupported">unsupported</span>' in table
    assert "checksum_mismatch" in table and "corrupt_input" in table
    assert FAILED_MESSAGE in table and UNSUPPORTED_MESSAGE in table
    assert "checksum sum 00000000badc0ffe, expected 00000000deadbeef" in table
    assert "thread &#39;main&#39; panicked" in table  # stderr, folded
    md = rendered["md"]
    rows = markdown_table(md, "7 cells without numbers")  # one row per outcome, n listed
    assert sorted((r[4], r[3]) for r in rows) == [("**failed**", "100, 1,000, 10,000"),
                                                  ("**invalid**", "10,000"),
                                                  ("**unsupported**", "100, 1,000, 10,000")]


def test_ranking_marks_series_without_numbers(rendered):
    md = rendered["md"]
    seq = markdown_table(md, "Ranking: read_seq · part, depth access, n = 1,000")
    # blank: median, min–max, × best, × own raw, cold JIT, reps
    assert ["—", "java · handcoded · access", *[""] * 6, "**unsupported**"] in seq
    rand = markdown_table(md, "Ranking: read_rand · part, depth access, n = 10,000")
    assert any(r[1] == "cpp · protobuf · access" and r[-1] == "**failed**" for r in rand)
    # the series that is invalid at the largest n is ranked where it is valid, and says so
    mat = markdown_table(md, "Ranking: read_seq · part, depth materialize, n = 1,000")
    json_row = next(r for r in mat if r[1] == "rust · json · materialize")
    assert json_row[-1] == "**ok · invalid at n = 10,000**"


def test_a_task_model_with_nothing_measured_has_no_plot_and_says_why():
    cells = [Cell(i, "java", "read_seq", "org", "xml", "materialize", "", "default", n, 1,
                  262144, True, "unsupported", "", "no org in xml", "", None, "", None, "", "", {})
             for i, n in enumerate((100, 1000))]
    models = task_models(cells, Palette({"xml"}))["read_seq"]
    section = task_section("read_seq", models).children[0]
    assert not [b for b in section.blocks if isinstance(b, Plot)]
    (table,) = section.blocks
    assert table.title == "Ranking: read_seq · org, depth materialize, nothing measured"
    assert [(r.values[1], r.values[-1], r.kind) for r in table.rows] == \
        [("java · xml · materialize", "unsupported", "unsupported")]


# --- ranking --------------------------------------------------------------------------------

def expected_ranking(medians, task, model, depth, n):
    rows = {(lang, method): t for (run, tk, mdl, lang, method, d, variant, nn), t
            in medians.items() if (run, tk, mdl, d, nn) == (RUN, task, model, depth, n)
            and method != "raw"}
    best = min(rows.values())
    unsteady = {k[2:4] for k in STEADINESS if k[:2] == (task, model) and k[4] == depth
                and STEADINESS[k][0] is False}
    return {f"{lang} · {method}" + (f" · {depth}" if depth else "")
            + (" · unsteady" if (lang, method) in unsteady else ""): t / best
            for (lang, method), t in rows.items()}


@pytest.mark.parametrize("task, model, depth, n", [
    ("read_seq", "part", "materialize", 1000),  # 10,000 is not shared: rust json is invalid there
    ("read_seq", "trade", "materialize", 10000),
    ("read_rand", "part", "access", 10000),
    ("write", "trade", "", 10000),
])
def test_ranking_multiples_match_the_fixture(rendered, task, model, depth, n):
    title = f"Ranking: {task} · {model}, " + (f"depth {depth}, " if depth else "") + f"n = {n:,}"
    rows = markdown_table(rendered["md"], title)
    expected = expected_ranking(rendered["medians"], task, model, depth, n)
    ranked = [r for r in rows if r[0].rstrip("=").isdigit()]
    assert len(ranked) == len(expected)
    assert {r[1]: r[4] for r in ranked} == {label: multiple(m) for label, m in expected.items()}
    assert ranked[0][4] == "1.00x" and ranked[0][0] in ("1", "1=")
    medians = [float(r[2].replace(",", "")) for r in ranked]
    assert medians == sorted(medians)


def tie_bound(task: str, a: str, b: str) -> float:
    """The fixture's rounds move every cell alike, so two cells' per-round ratio is constant:
    the bound a step must clear is t(4 df) x the root of the two cells' run-to-run noise
    (their task's in their languages a and b)."""
    recorded = noise.from_json(NOISE)
    return 2.776 * math.hypot(recorded.of(task, a), recorded.of(task, b))


def test_ranks_are_tied_exactly_where_the_step_from_the_row_above_is_within_the_noise(rendered):
    seen = set()
    for title, task in ((TRADE_SEQ, "read_seq"), ("Ranking: write · trade, n = 10,000", "write")):
        ranked = [r for r in markdown_table(rendered["md"], title) if r[0].rstrip("=").isdigit()]
        medians = [float(r[2].replace(",", "")) for r in ranked]
        languages = [r[1].split(" · ")[0] for r in ranked]
        new_rank = [i == 0 or math.log(medians[i] / medians[i - 1])
                    > tie_bound(task, languages[i], languages[i - 1])
                    for i in range(len(ranked))]
        ranks, above = [], 0
        for i, starts in enumerate(new_rank):
            above = i + 1 if starts else above
            ranks.append(above)
        tied = [ranks.count(k) > 1 for k in ranks]
        assert [r[0] for r in ranked] == [f"{k}{'=' * t}" for k, t in zip(ranks, tied)]
        seen |= set(tied)
    assert seen == {True, False}  # both cases occur


TRADE_SEQ = "Ranking: read_seq · trade, depth materialize, n = 10,000"


def test_ranking_shows_the_floor_per_language(rendered):
    rows = markdown_table(rendered["md"], TRADE_SEQ)
    floors = [r for r in rows if r[0] == "floor"]
    assert [r[1] for r in floors] == [f"{lang} · raw floor · handcoded file" for lang in LANGUAGES]
    best = min(t for k, t in rendered["medians"].items()
               if k[1:3] == ("read_seq", "trade") and k[4] != "raw" and k[5] == "materialize"
               and k[7] == 10000)
    rust_floor = rendered["medians"][(RUN, "read_seq", "trade", "rust", "raw", "", "handcoded",
                                      10000)]
    assert floors[0][4] == multiple(rust_floor / best)
    # decode cost over reading the method's own file: json materialize over its raw read
    json_row = next(r for r in rows if r[1] == "rust · json · materialize")
    assert json_row[5] == multiple(2000 / 160)


def test_a_read_timed_in_rounds_with_its_floor_shows_the_paired_multiple(rendered):
    rows = markdown_table(rendered["md"], TRADE_SEQ)
    paired = [r for r in rows if r[5].endswith(" paired")]
    assert [(r[1], r[5]) for r in paired] == [("rust · handcoded · materialize", "1.25x paired")]
    caption = rendered["md"].split(f"**{TRADE_SEQ}**")[1].split("**Ranking")[0]
    assert "Paired: the read_seq ran in rounds" in caption
    other = rendered["md"].split("**Ranking: read_seq · trade, depth access, n = 10,000**")[1]
    assert "Paired:" not in other.split("**Ranking")[0]


def test_ranking_statistics_exclude_warmups(rendered):
    rows = markdown_table(rendered["md"], TRADE_SEQ)
    header = rendered["md"].split(f"**{TRADE_SEQ}**")[1]
    unit = re.search(r"median \((\w+)\)", header).group(1)
    scale = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}[unit]
    row = next(r for r in rows if r[1] == "java · java_builtin · materialize · unsteady")
    measured, _ = sample_times(10000 * 9000)
    low, high = (float(v.replace(",", "")) * scale for v in row[3].split("–"))
    assert low == pytest.approx(min(measured), rel=0.01)
    assert high == pytest.approx(max(measured), rel=0.01)
    assert row[7] == str(REPS)


def test_ranking_shows_the_cold_jit_repetition_apart(rendered):
    header, rows = rendered["md"].split(f"**{TRADE_SEQ}**")[1], markdown_table(rendered["md"],
                                                                              TRADE_SEQ)
    unit = re.search(r"cold JIT \((\w+)\)", header).group(1)
    scale = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}[unit]
    java = next(r for r in rows if r[1] == "java · java_builtin · materialize · unsteady")
    _, warmup = sample_times(10000 * 9000)
    assert float(java[6].replace(",", "")) * scale == pytest.approx(warmup, rel=0.01)
    rust = next(r for r in rows if r[1] == "rust · json · materialize")
    assert rust[6] == ""  # only a JVM has a cold-JIT repetition


def test_unsteady_and_unjudged_cells_are_labelled_wherever_shown(rendered):
    rows = markdown_table(rendered["md"], TRADE_SEQ)
    java = next(r for r in rows if r[1].startswith("java · java_builtin · materialize"))
    assert java[1].endswith(" · unsteady")  # the label travels to plots and every table
    assert java[-1] == f"**ok · unsteady ({UNSTEADY_NOTE})**"  # bold: not a plain ok
    steady = next(r for r in rows if r[1] == "rust · json · materialize")
    assert steady[-1] == "ok"
    write = {r[1]: r for r in markdown_table(rendered["md"], "Ranking: write · trade, n = 10,000")}
    assert write["cpp · json"][-1] == "ok · unjudged"
    names = [t["name"] for t in traces(rendered["html"], "plot-read_seq-trade-time")]
    assert "java · java_builtin · materialize · unsteady" in names


def test_published_verdicts_leave_unsteady_cells_out_and_say_so(rendered):
    rows = {r[0]: r for r in markdown_table(rendered["md"], "Published and measured")}
    spread = rows["sequential read: slowest / fastest implementation"]
    assert "left out, measured before steady state: java · java_builtin · materialize" \
        in spread[4]
    assert "unsteady vs" not in spread[4] and "vs java · java_builtin · materialize · " \
        "unsteady" not in spread[4]  # never one end of a verdict


# --- sizes, published, provenance ----------------------------------------------------------

def test_sizes_per_method_and_model(rendered):
    rows = markdown_table(rendered["md"], "Sizes: trade")
    by_label = {r[0]: r for r in rows}
    assert by_label["java · java_builtin"][1] == "340"
    assert by_label["rust · handcoded"][1] == "185"
    assert by_label["rust · protobuf"][2] == "1.00x"
    assert by_label["rust · handcoded"][3] == f"{185 * COUNT // 3 / COUNT:,.0f}"
    fig = figures(rendered["html"])["plot-sizes-trade"]
    assert [t["name"] for t in fig["data"]] == ["encoded", "gzip"]  # no zstd counters
    assert fig["layout"]["xaxis"]["title"]["text"] == "bytes per object"
    # the languages that write the same bytes share a bar, smallest first
    assert fig["data"][0]["y"] == ["protobuf (rust, cpp, java)", "handcoded (rust, cpp, java)",
                                   "json (rust, cpp, java)", "java_builtin (java)"]
    assert fig["data"][0]["x"] == [130, 185, 262, 340]


def test_a_write_floor_has_no_size_of_its_own():
    """The write floor's file is a byte copy of its method's: its counters are not a size."""
    def write(method, variant):
        return Cell(1, "rust", "write", "trade", method, "", variant, "default", COUNT, 1, 262144,
                    False, "ok", "", "", "", COUNT, "", COUNT, "", "",
                    {"objects": COUNT, "avg_object_bytes": 185.0})
    entries = size_entries([write("handcoded", ""), write("raw", "handcoded")])
    assert [(e.method, e.variant) for e in entries["trade"]] == [("handcoded", "")]


def test_published_figures_beside_measured(rendered):
    rows = {r[0]: r for r in markdown_table(rendered["md"], "Published and measured")}
    assert len(rows) == len(FIGURES)
    part = rows["Part: average object size"]
    assert part[1] == "114–298 B" and part[2] == "SoCC'17 study"
    assert part[3] == "120–410 B"
    assert rows["trade: plain binary layout"][3] == "185 B (rust), 185 B (cpp), 185 B (java)"
    assert rows["trade: Java built-in serialization"][3] == "340 B (java)"
    spread = rows["sequential read: slowest / fastest implementation"]
    assert spread[1] == "up to 100x" and spread[3].startswith("up to ")
    assert rows["org: JSON / Protocol Buffers data size"][3] == "—"  # no org cells
    for fig in FIGURES:
        assert fig.source in ("SoCC'17 study", "VLDB draft", "article: Java micro-benchmark",
                              "article: JSON vs Protocol Buffers", "article: arrays in Java")


def test_provenance_header(rendered):
    html = section_html(rendered["html"], "provenance")
    for text in ("Test CPU 9000", "16", "64.0 GiB", "6.1.0-test", "abc1234", "dirty", "42",
                 "fadvise_dontneed", "serde_json 1.0.140", "rustc 1.95.0 (2025-01-01)",
                 "g++ (Debian 12.2.0-14) 12.2.0", "not found: mvn", "rustc 1.95.0, profile release",
                 "fixture", "2025-01-01 10:00:00"):
        assert text in html, text
    assert "/opt/serbench" not in html  # driver paths name the measuring machine
    assert ("load 0.25 / 0.50 / 1.00 (1, 5, 15 min); frequency governor performance; no other "
            "busy process") in html
    assert "cc1plus (pid 7) 95% of a core" in html
    timed = sum(1 for k in rendered["medians"] if k[0] == RUN)
    assert (f"{timed - 2:,} of {timed:,} timed cells steady, 1 unsteady (labelled wherever "
            "shown), 1 not judged") in html
    assert "- **cold reads evicted by**: fadvise_dontneed" in rendered["md"]


def test_markdown_has_every_ranking_table(rendered):
    md = rendered["md"]
    for task in READS:
        for model in MODELS:
            assert f"**Ranking: {task} · {model}, depth materialize, n = " in md
            assert f"**Ranking: {task} · {model}, depth access, n = " in md
    assert "**Ranking: write · part, n = 10,000**" in md
    assert "## Published figures beside this run" in md and "## Cells without numbers" in md


# --- refusing and the command ---------------------------------------------------------------

def test_incomplete_run_is_refused_unless_allowed(rendered, tmp_path):
    with pytest.raises(ReportError, match="running, not complete.*--allow-incomplete"):
        render_run(rendered["db"], RUNNING, tmp_path / "refused")
    assert not (tmp_path / "refused").exists()
    html, md = render_run(rendered["db"], RUNNING, tmp_path / "allowed", allow_incomplete=True)
    assert "This run is running, not complete" in html.read_text("utf-8")
    assert "This run is running, not complete" in md.read_text("utf-8")


def test_unknown_run_is_refused(rendered, tmp_path):
    with pytest.raises(ReportError, match="no run 'nope'"):
        render_run(rendered["db"], "nope", tmp_path)


def test_command_defaults_to_latest_complete_run(rendered, monkeypatch):
    monkeypatch.setenv("SERBENCH_HOME", str(rendered["root"]))
    result = CliRunner().invoke(report_command, [])
    assert result.exit_code == 0, result.output
    out = rendered["root"] / "reports" / RUN
    assert result.output.split() == [str(out / "report.html"), str(out / "report.md"),
                                     str(out / "tables.md")]
    refused = CliRunner().invoke(report_command, ["--run", RUNNING])
    assert refused.exit_code != 0 and "not complete" in refused.output


# --- units ----------------------------------------------------------------------------------

def test_units_and_numbers():
    assert unit_for(999).name == "ns" and unit_for(1500).name == "µs"
    assert unit_for(2.5e6).name == "ms" and unit_for(3e9).name == "s"
    assert number(12345.6) == "12,346" and number(12.34) == "12.3" and number(1.234) == "1.23"
    assert multiple(1) == "1.00x" and multiple(12.34) == "12.3x" and multiple(1234) == "1,234x"


def test_a_column_every_row_shares_is_said_once_above_the_rows():
    from serbench.report.blocks import Row, Table, said_once
    t = Table("t", ["name", "link", "time", "status"],
              [Row(["a", "1 Gbit/s", "2", "ok"]), Row(["b", "1 Gbit/s", "3", "ok"]),
               Row(["c", "", "", "failed"], kind="failed")], numeric=frozenset({2}), badge=3)
    shared = said_once(t, ("link", "time", "status"))
    # only the named column holding one value (an empty cell holds none) goes; the rest and
    # their roles (numeric, badge) follow their new places
    assert shared.columns == ["name", "time", "status"]
    assert [r.values for r in shared.rows] == [["a", "2", "ok"], ["b", "3", "ok"],
                                               ["c", "", "failed"]]
    assert (shared.numeric, shared.badge) == (frozenset({1}), 2)
    assert shared.note == "Every row: link: 1 Gbit/s."
    assert said_once(Table("t", ["link"], [Row(["x"])]), ("link",)).columns == ["link"]
