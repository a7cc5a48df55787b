"""The report sections of read_par, sort_dedup, memory, micro and sizes, from a results database
written through the results module (so `setting` and the samples' own times round-trip)."""
from dataclasses import replace
from pathlib import Path

import pytest

from serbench.plan import Cell as PlanCell
from serbench.report import render_run
from serbench.report.blocks import Plot, Table
from serbench.report.data import load_run
from serbench.report.render import build_sections
from serbench.results import CellResult, Results
from serbench.tasks.sizes import loc_counters

RUN = "run-tasks"
PROVENANCE = {"host": {"cpu_model": "test"}, "toolchains": {"python": "3"}, "drivers": {},
              "git": {"commit": "abc", "dirty": False}}
N = 1000
BASE = PlanCell(language="rust", task="read_par", model="trade", method="handcoded",
                depth="materialize", variant="", setting="", dataset="default",
                dataset_dir=Path("/data/default"), n=N, threads=1, page_size=4096, cold=True,
                warmups=0, repetitions=3, seed=42, timeout_s=60.0, pin_cpus="")


def samples(total_ns: int, **extra) -> list[dict]:
    return [{"rep": i, "warmup": False, "total_ns": total_ns + i, "cpu_ns": total_ns + i,
             "io_ns": 0, **extra} for i in range(3)]


def ok(total_ns: int, counters: dict, **extra) -> CellResult:
    checksum = {"count": N, "sum": "00000000000000ff"}
    return CellResult("ok", expected=checksum, got=checksum, counters=counters,
                      samples=samples(total_ns, **extra))


# (cell changes, result): read_par 1 and 2 threads, two budgets, memory, micro fresh/reused,
# an arrays sweep, a sizes cell and an invalid micro cell whose samples must never show
CELLS = [
    (dict(setting="mode=seq"), ok(2_000_000, {"objects": N, "threads": 1, "pages_read": 4},
                                  thread_ns=[1])),
    (dict(setting="mode=seq", threads=2), ok(1_000_000, {"objects": N, "threads": 2,
                                                         "pages_read": 5}, thread_ns=[1, 1])),
    (dict(task="sort_dedup", setting="budget_bytes=65536"),
     ok(9_000_000, {"runs": 7, "merge_passes": 1, "peak_rss_bytes": 9 * 2**20,
                    "rss_start_bytes": 8 * 2**20}, phase1_ns=6_000_000, phase2_ns=3_000_000)),
    (dict(task="sort_dedup", setting="budget_bytes=1048576"),
     ok(7_000_000, {"runs": 1, "merge_passes": 1, "peak_rss_bytes": 10 * 2**20,
                    "rss_start_bytes": 8 * 2**20}, phase1_ns=6_000_000, phase2_ns=1_000_000)),
    (dict(task="memory"), ok(500_000, {"objects": N, "retained_bytes": 123_000,
                                       "retained_bytes_per_object": 123.0,
                                       "peak_rss_bytes": 2**22, "accounting": "counting_allocator"})),
    (dict(task="micro", setting="buffer=fresh"),
     ok(5_000_000, {"objects": N, "iterations": 10, "encoded_bytes": 200_000},
        encode_ns=3_000_000, decode_ns=2_000_000)),
    (dict(task="micro", setting="buffer=reused"),
     ok(4_000_000, {"objects": N, "iterations": 10, "encoded_bytes": 200_000},
        encode_ns=2_000_000, decode_ns=2_000_000)),
    (dict(task="micro", model="arrays", setting="buffer=reused k=100"),
     ok(1_000_000, {"objects": N, "iterations": 1, "encoded_bytes": 1_000_000},
        encode_ns=400_000, decode_ns=600_000)),
    (dict(task="micro", model="arrays", setting="buffer=reused k=1000"),
     ok(9_000_000, {"objects": N, "iterations": 1, "encoded_bytes": 10_000_000},
        encode_ns=4_000_000, decode_ns=5_000_000)),
    (dict(task="micro", method="json", setting="buffer=fresh"),
     CellResult("invalid", "checksum_mismatch", "micro: sum differs")),
    # a JVM's first repetition (a warm-up here), cold JIT: 5,000 ns per object
    (dict(task="micro", language="java", setting="buffer=reused"),
     replace(ok(4_000_000, {"objects": N, "iterations": 10, "encoded_bytes": 200_000},
                encode_ns=2_500_000, decode_ns=1_500_000, jit="warm"),
             samples=[{"rep": 0, "warmup": True, "total_ns": 50_000_000, "cpu_ns": 50_000_000,
                       "io_ns": 0, "encode_ns": 30_000_000, "decode_ns": 20_000_000,
                       "jit": "cold"}]
             + samples(4_000_000, encode_ns=2_500_000, decode_ns=1_500_000, jit="warm"))),
    # java_builtin and handcoded_unsafe: 9,000 against 100 ns per round trip (published: about
    # 10 µs against well under 100 ns)
    (dict(task="micro", language="java", method="java_builtin", setting="buffer=reused"),
     ok(90_000_000, {"objects": N, "iterations": 10, "encoded_bytes": 3_400_000},
        encode_ns=30_000_000, decode_ns=60_000_000)),
    (dict(task="micro", language="java", method="handcoded_unsafe", setting="buffer=reused"),
     ok(1_000_000, {"objects": N, "iterations": 10, "encoded_bytes": 1_850_000},
        encode_ns=400_000, decode_ns=600_000)),
    (dict(task="sizes", depth=""),
     CellResult("ok", counters={"objects": N, "avg_object_bytes": 150.0,
                                "max_object_bytes": 400, "data_bytes": 160_000,
                                "gzip_bytes": 50_000, "zstd_bytes": 40_000, "loc": 321,
                                "files": 2, "library_bytes": 409_600})),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tasks") / "results.duckdb"
    with Results(path) as results:
        results.begin_run(RUN, "tasks", "[[group]]", 42, PROVENANCE, {})
        for i, (changes, result) in enumerate(CELLS, 1):
            results.add_cell(RUN, replace(BASE, cell_id=i, **changes), result)
        results.finish_run(RUN, "complete")
    return path


def section(db: Path, section_id: str):
    sections = build_sections(load_run(db, RUN))
    found = [c for s in sections for c in [s, *s.children] if c.id == section_id]
    assert found, f"no section {section_id}"
    return found[0]


def table(sec, title_start: str) -> Table:
    return next(b for b in sec.blocks if isinstance(b, Table) and b.title.startswith(title_start))


def test_read_par_shows_throughput_and_speedup_per_thread_count(db):
    sec = section(db, "read_par-trade")
    rows = table(sec, "read_par · trade at").rows
    assert [(r.values[1], r.values[3], r.values[4]) for r in rows] == [
        ("1", f"{N / 2_000_001e-9:,.0f}", "1.00x"), ("2", f"{N / 1_000_001e-9:,.0f}", "2.00x")]
    plot = next(b for b in sec.blocks if isinstance(b, Plot))
    line = plot.figure["data"][0]
    assert line["x"] == [1, 2]
    # whiskers: the rate at the slowest and the fastest repetition (2,000,000-2,000,002 ns at
    # one thread, the median 2,000,001)
    assert line["error_y"]["arrayminus"][0] == pytest.approx(N / 2_000_001e-9
                                                             - N / 2_000_002e-9)
    assert line["error_y"]["array"][0] == pytest.approx(N / 2_000_000e-9 - N / 2_000_001e-9)


def test_sort_dedup_shows_phases_and_peak_rss_per_budget(db):
    rows = table(section(db, "sort_dedup-trade"), "sort_dedup").rows
    assert [r.values[1:9] for r in rows] == [
        ["64.0 KiB", "9.00 ms", "6.00 ms", "3.00 ms", "7", "1", "9,216 KiB", "1,024 KiB"],
        ["1,024 KiB", "7.00 ms", "6.00 ms", "1.00 ms", "1", "1", "10.0 MiB", "2,048 KiB"]]


def test_memory_shows_retained_bytes_per_object(db):
    (row,) = table(section(db, "memory-trade"), "memory").rows
    assert row.values[2:5] == ["123.0", "4,096 KiB", "counting_allocator"]


def test_micro_shows_ns_per_object_and_mb_per_s_fresh_and_reused(db):
    rows = {r.values[0]: r for r in table(section(db, "micro-trade"), "micro").rows}
    fresh = rows["rust · handcoded · materialize · buffer=fresh"].values
    # encode: 3 ms over 1000 objects × 10 iterations; 2 MB encoded in 3 ms
    assert fresh[2:7] == ["300", "200", "500", f"{2_000_000 / 3_000_000 * 1000:.0f}", "1,000"]
    invalid = rows["rust · json · materialize · buffer=fresh"]
    assert invalid.kind == "invalid" and invalid.values[2:7] == ["", "", "", "", ""]


def test_micro_shows_a_jvms_cold_jit_round_trip_apart(db):
    rows = {r.values[0]: r.values for r in table(section(db, "micro-trade"), "micro").rows}
    java = rows["java · handcoded · materialize · buffer=reused"]
    # the medians exclude the cold repetition; it is shown per object on its own
    assert java[2:5] == ["250", "150", "400"] and java[7] == "5,000"
    assert rows["rust · handcoded · materialize · buffer=reused"][7] == ""


def test_the_published_trade_round_trip_is_set_beside_java_builtin_over_unsafe(db):
    rows = {r.values[0]: r.values for r in table(section(db, "published"), "Published").rows}
    measured, note = rows["trade: one write + read, in memory"][3:5]
    assert measured == "9.00 µs vs 100 ns: 90.0x (java, reused buffer)"
    assert "java_builtin vs handcoded_unsafe" in note and "n = 1,000" in note


def test_micro_on_arrays_plots_the_size_sweep(db):
    sec = section(db, "micro-arrays")
    plot = next(b for b in sec.blocks if isinstance(b, Plot))
    assert plot.id == "plot-micro-arrays-sweep"
    encode = next(t for t in plot.figure["data"] if t["name"].endswith("encode"))
    assert encode["x"] == [100, 1000] and encode["y"] == [400.0, 4000.0]


def test_sizes_table_has_compressed_sizes_and_lines_of_code(db):
    (row,) = table(section(db, "sizes-trade"), "Sizes: trade").rows
    assert row.values[3:8] == ["50", "40", "400", "321", "400 KiB"]


def test_the_whole_report_renders(db, tmp_path):
    html, md = render_run(db, RUN, tmp_path)
    text = md.read_text()
    for title in ("Parallel read", "External sort", "Memory", "Micro"):
        assert title in text


# cpu / io bars: three repetitions (total, cpu, io) in ms where the medians of the parts do not
# add up to the median of the whole: median total 80, median cpu 30 + median io 10 = 40
MS = 1_000_000
SPLIT_REPS = [(100, 90, 10), (80, 20, 60), (30, 30, 0)]
# sizes cells naming the files they counted: cpp protobuf and flatbuffers share schema.h, rust
# protobuf counts its .proto files, java protobuf listed a generated file that was skipped
LOC_CELLS = [
    ("cpp", "protobuf", ["drivers/cpp/src/methods/protobuf.h", "drivers/cpp/src/methods/schema.h"],
     []),
    ("cpp", "flatbuffers", ["drivers/cpp/src/methods/flatbuffers.h",
                            "drivers/cpp/src/methods/schema.h"], []),
    ("rust", "protobuf", ["drivers/rust/driver/src/methods/protobuf.rs", "schemas/proto/a.proto",
                          "schemas/proto/b.proto"], []),
    ("rust", "handcoded", ["drivers/rust/driver/src/methods/handcoded.rs"], []),
    ("java", "protobuf", ["drivers/java/src/main/java/serbench/methods/ProtobufMethod.java"],
     ["drivers/java/target/generated-sources/codegen/serbench/methods/convert/"
      "ProtoConvert.java"]),
]


def sizes_result(counted: list[str], generated: list[str]) -> CellResult:
    return CellResult("ok", counters={"objects": N, "avg_object_bytes": 100.0, "loc": 10,
                                      "files": len(counted) + len(generated),
                                      "loc_files": counted, "generated_files": generated})


@pytest.fixture(scope="module")
def split_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("split") / "results.duckdb"
    reps = [{"rep": i, "warmup": False, "total_ns": t * MS, "cpu_ns": c * MS, "io_ns": o * MS}
            for i, (t, c, o) in enumerate(SPLIT_REPS)]
    checksum = {"count": N, "sum": "00000000000000ff"}
    write = replace(BASE, cell_id=1, task="write", depth="", cold=False)
    with Results(path) as results:
        results.begin_run(RUN, "split", "[[group]]", 42, PROVENANCE, {})
        results.add_cell(RUN, write, CellResult("ok", expected=checksum, got=checksum,
                                                samples=reps))
        for i, (language, method, counted, generated) in enumerate(LOC_CELLS, 2):
            cell = replace(BASE, cell_id=i, task="sizes", depth="", language=language,
                           method=method)
            results.add_cell(RUN, cell, sizes_result(counted, generated))
        results.finish_run(RUN, "complete")
    return path


def test_the_cpu_share_is_the_median_of_each_repetitions_share(split_db):
    (cell,) = [c for c in load_run(split_db, RUN).cells if c.task == "write"]
    # the parts' own medians, 30 + 10, are not the median total, 80
    assert (cell.total.median, cell.cpu.median, cell.io.median) == (80 * MS, 30 * MS, 10 * MS)
    # shares 90/100, 20/80, 30/30: median 0.9
    assert cell.cpu_share == pytest.approx(0.9)


def test_cpu_io_bars_stack_to_the_median_total_split_by_the_median_cpu_share(split_db):
    plot = next(b for b in section(split_db, "write-trade").blocks
                if isinstance(b, Plot) and b.id == "plot-write-trade-cpuio")
    cpu, io, whiskers = plot.figure["data"]
    # 80 ms × 0.9 = 72 ms of cpu, the other 8 ms io: the stack is the median total
    assert (cpu["name"], io["name"]) == ("cpu", "io")
    # at its end, the repetitions' min–max (30 and 100 ms) around the median
    assert whiskers["name"] == "min–max" and whiskers["x"] == [pytest.approx(80.0)]
    assert whiskers["error_x"]["arrayminus"] == [pytest.approx(50.0)]
    assert whiskers["error_x"]["array"] == [pytest.approx(20.0)]
    assert cpu["x"] == [pytest.approx(72.0)] and io["x"] == [pytest.approx(8.0)]
    assert cpu["customdata"] == [[pytest.approx(80.0), pytest.approx(0.9)]]
    assert io["customdata"] == [[pytest.approx(80.0), pytest.approx(0.1)]]
    assert "median total time" in plot.figure["layout"]["xaxis"]["title"]["text"]
    assert "median over the repetitions of each one's cpu share, cpu_ns / (cpu_ns + io_ns)" \
        in plot.caption


def test_lines_of_code_caption_names_shared_schema_and_generated_files(split_db):
    caption = table(section(split_db, "sizes-trade"), "Sizes: trade").caption
    assert caption.startswith("Lines of code: non-blank lines of the files the driver's info "
                              "lists for the method in its files entry")
    assert ("In this table: cpp schema.h counted in each of flatbuffers, protobuf; rust "
            "protobuf counts 2 schema definitions (.proto); java protobuf lists generated "
            "ProtoConvert.java, skipped; no other method lists a shared, schema or generated "
            "file.") in caption


def test_lines_of_code_recorded_without_file_names_say_what_was_counted(db):
    caption = table(section(db, "sizes-trade"), "Sizes: trade").caption
    assert caption.startswith("Lines of code: non-blank lines of every file the driver's info "
                              "lists for the method, generated files included")
    assert "shared code and generated code not counted" not in caption


def test_lines_of_code_skip_generated_files_and_keep_the_names(tmp_path):
    files = {"drivers/x/methods/adapter.rs": "fn a() {}\n\n  \nfn b() {}\n",  # 2 lines
             "drivers/x/methods/shared.rs": "// helper\nfn c() {}\n\nfn d() {}\n",  # 3
             "drivers/x/generated/codec.rs": "fn e() {}\n" * 50,  # under generated/
             "drivers/x/methods/Convert.java": "// Generated by codegen.py.\n// Do not edit.\n"
                                               + "class C {}\n" * 40}  # says so on top
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    counters = loc_counters(list(files), tmp_path)
    assert counters == {"loc": 5, "files": 4,
                        "loc_files": ["drivers/x/methods/adapter.rs",
                                      "drivers/x/methods/shared.rs"],
                        "generated_files": ["drivers/x/generated/codec.rs",
                                            "drivers/x/methods/Convert.java"]}
    assert loc_counters(list(files), tmp_path)["loc"] == 5


def stub_series(label: str, median_ns: float, cpu_share: float, floor: bool = False):
    from types import SimpleNamespace
    cell = SimpleNamespace(measured=True, cpu_share=cpu_share,
                           total=SimpleNamespace(median=median_ns, low=0.9 * median_ns,
                                                 high=1.2 * median_ns))
    return SimpleNamespace(label=label, is_floor=floor, cells={100: cell})


def test_times_spread_past_thirty_fold_read_on_a_log_axis_one_bar_each():
    from serbench.report.plots import LOG_SPAN, cpu_io_figure, spans_widely
    assert LOG_SPAN == 30 and not spans_widely([1, 30, None, 0]) and spans_widely([1, 31])
    narrow = cpu_io_figure([stub_series("b", 10 * MS, 0.5), stub_series("a", MS, 0.9)], 100,
                           "t")
    assert [t["name"] for t in narrow["data"]] == ["cpu", "io", "min–max"]
    assert narrow["layout"]["xaxis"].get("type") != "log"
    wide = cpu_io_figure([stub_series("slow", 100 * MS, 0.2), stub_series("fast", MS, 0.9),
                          stub_series("floor", 0.5 * MS, 0.1, floor=True)], 100, "t")
    bars, whiskers = wide["data"]
    assert wide["layout"]["xaxis"]["type"] == "log"
    assert whiskers["error_x"]["array"] == [pytest.approx(100.0), pytest.approx(200.0),
                                            pytest.approx(20000.0)]
    assert bars["y"] == ["floor", "fast", "slow"], "sorted by time, fastest on top"
    assert bars["x"] == [500.0, 1000.0, 100000.0], "in µs, the unit of the fastest"
    assert bars["customdata"] == [[0.1], [0.9], [0.2]]


def test_a_sort_at_one_budget_is_a_bar_per_implementation_not_a_line(tmp_path):
    """One budget measured: no line can be drawn against it; each implementation's time is a
    bar, fastest on top, its peak RSS beside it."""
    path = tmp_path / "results.duckdb"
    budget = dict(task="sort_dedup", setting="budget_bytes=65536")
    with Results(path) as results:
        results.begin_run(RUN, "tasks", "[[group]]", 42, PROVENANCE, {})
        for i, (method, ns) in enumerate((("json", 90_000_000), ("handcoded", 9_000_000)), 1):
            results.add_cell(RUN, replace(BASE, cell_id=i, method=method, **budget),
                             ok(ns, {"runs": 7, "merge_passes": 1, "peak_rss_bytes": 9 * 2**20,
                                     "rss_start_bytes": 8 * 2**20},
                                phase1_ns=ns // 2, phase2_ns=ns // 2))
        results.finish_run(RUN, "complete")
    plot = next(b for b in section(path, "sort_dedup-trade").blocks if isinstance(b, Plot))
    times, rss = plot.figure["data"]
    assert times["type"] == rss["type"] == "bar"
    assert ["json" in label for label in times["y"]] == [False, True], times["y"]
    assert times["x"] == [pytest.approx(0.009), pytest.approx(0.09)]
    # min–max whiskers: the repetitions took ns, ns + 1 and ns + 2 (the median)
    assert times["error_x"]["arrayminus"] == [pytest.approx(1e-9), pytest.approx(1e-9)]
    assert "at a budget of 64.0 KiB" in plot.figure["layout"]["title"]["text"]


def test_no_two_methods_share_a_colour_up_to_fifty():
    from serbench.report.plots import METHOD_COLORS, Palette
    methods = {f"m{i:02d}" for i in range(50)}
    palette = Palette(methods)
    assert len(METHOD_COLORS) == 50 and len({palette(m) for m in methods}) == 50
