"""Figures published by the studies serbench extends, as data for the report's side-by-side.

They are what was published, not targets: other machines, other library versions and other
data sizes. `source` names the publication the way the project brief does.
"""
from __future__ import annotations

from dataclasses import dataclass, field


# each source by its publication, as a reader can look it up
REFERENCE_STUDY = "SoCC'17 study"  # the reference study: TPC-H objects, Java and C++
MICRO_BLOG = "article: Java micro-benchmark"  # the trade object
COMPARISON_BLOG = "article: JSON vs Protocol Buffers"  # the org records
FIRST_BLOG = "article: arrays in Java"  # XStream, built-in and Protocol Buffers on arrays
LATER_STUDY = "VLDB draft"  # its repository results, on tweets


# how a study's gzip figures compressed: each object alone, or the whole file
PER_OBJECT = "per_object"
WHOLE_FILE = "whole_file"
# a run within an order of magnitude of a published size can judge the finding
REGIME_FACTOR = 10


@dataclass(frozen=True)
class StudyMethod:
    """A publication's method and serbench's counterpart, with what the study's own did
    differently (the report's reason column compares these with the run's cells)."""
    name: str      # as the publication names it
    language: str
    method: str    # serbench's method id for the counterpart
    depth: str = "materialize"  # how deep the study's read decoded: "access" read lazily
    via_json_text: bool = False  # the study's bytes were JSON text, not the format's own
    gzip: str = ""  # PER_OBJECT or WHOLE_FILE: how the study's gzip figures compressed


@dataclass(frozen=True)
class Study:
    """What a publication says it ran on; None or empty where it does not say."""
    toolchains: dict  # language -> the version it names, e.g. {"java": "Java 8"}
    hardware: str = ""
    cores: int | None = None


@dataclass(frozen=True)
class CellNeed:
    """Cells a figure's comparison reads, as a plan must produce them: `task` of `model`
    (None: any one model) by each of `methods`, each "language method" ("* json": json in any
    one language that has every "*" method; "java *": any Java method), with every key=value
    of `setting` in the cell's setting (read_par's threads as threads=T), at `points` distinct
    n (or k) or more. `least`: that many of `methods` suffice (0: every one)."""
    task: str
    model: str | None
    methods: tuple[str, ...]
    setting: str = ""
    points: int = 1
    least: int = 0


@dataclass(frozen=True)
class PublishedFigure:
    key: str            # stable id; the report's comparison for it is registered under this key
    subject: str        # what was measured, in words
    figure: str         # the published figure as text
    source: str
    model: str | None = None
    task: str | None = None
    values: dict = field(default_factory=dict)  # the numbers behind `figure`
    needs: str = ""     # what a run must measure for it, beyond the task and model
    # the same as cells a plan produces (plan/embedded/reproduce.toml)
    cells: tuple[CellNeed, ...] = ()
    objects: int | None = None  # how many objects the study's task ran on, where it says
    gzip: str = ""  # PER_OBJECT or WHOLE_FILE: how the figure's gzip sizes were compressed
    # the size the finding was published at, in words ("" where the publication says none),
    # and the least n (objects per cell; a fetch's per server) a run must reach to judge it:
    # a finding of large sizes, or of fixed costs small against the work, does not show at
    # toy sizes, so below it the chapter says "not measurable at this size"
    scale: str = ""
    least_objects: int | None = None

    @property
    def study(self) -> Study | None:
        return STUDIES.get(self.source)


# the SoCC study's setup (published.md); a c3.4xlarge has 16 vCPUs
STUDIES = {REFERENCE_STUDY: Study({"java": "Java 8", "cpp": "C++11"}, "c3.4xlarge, SSD", 16)}


# the publications' methods with a serbench counterpart (Boost's text archive is boost_text)
STUDY_METHODS = {m.name: m for m in (
    StudyMethod("Java Default (built-in)", "java", "java_builtin"),
    StudyMethod("Java built-in", "java", "java_builtin"),
    StudyMethod("Java BSON", "java", "bson"),
    StudyMethod("Java JSON GZIP", "java", "json_gzip", gzip=PER_OBJECT),
    StudyMethod("Java JSON+gzip", "java", "json_gzip"),
    StudyMethod("Java JSON", "java", "json"),
    StudyMethod("Java Protocol Buffer", "java", "protobuf"),
    StudyMethod("Java Protocol Buffers", "java", "protobuf", "access"),
    StudyMethod("Java Kryo", "java", "kryo"),
    StudyMethod("Java Hand Coded ByteBuffer", "java", "handcoded"),
    StudyMethod("Java ByteBuffer (hand-coded)", "java", "handcoded"),
    StudyMethod("Java FlatBuffers", "java", "flatbuffers", "access"),
    StudyMethod("C++ Boost (text archive)", "cpp", "boost_text"),
    StudyMethod("C++ Boost (text)", "cpp", "boost_text"),
    StudyMethod("C++ Boost binary", "cpp", "boost_binary"),
    StudyMethod("C++ Protocol Buffer", "cpp", "protobuf"),
    StudyMethod("C++ Protocol Buffers", "cpp", "protobuf", "access"),
    StudyMethod("C++ Hand Coded", "cpp", "handcoded"),
    StudyMethod("C++ hand-coded", "cpp", "handcoded"),
    StudyMethod("C++ InPlace", "cpp", "inplace"),
    StudyMethod("C++ in-place", "cpp", "inplace", "access"),  # its read only cast
    StudyMethod("C++ BSON (JSON text)", "cpp", "bson", via_json_text=True),
    StudyMethod("C++ FlatBuffers", "cpp", "flatbuffers", "access"),
    StudyMethod("Rust JSON", "rust", "json"),
    StudyMethod("Rust bincode", "rust", "bincode"),
    StudyMethod("Rust MessagePack", "rust", "msgpack"),
    StudyMethod("Rust BSON", "rust", "bson"),
    StudyMethod("Rust FlexBuffers", "rust", "flexbuffers"),
)}


def _study_cells(task: str, model: str, names, least: int = 3) -> CellNeed:
    """The cells of a study's methods' counterparts; `least` of them give an order."""
    methods = dict.fromkeys(f"{STUDY_METHODS[n].language} {STUDY_METHODS[n].method}"
                            for n in names)
    return CellNeed(task, model, tuple(methods), least=least)


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x"


ORG = {"objects": 400_000, "json_mb": 2457, "json_gzip_mb": 525, "protobuf_mb": 1044,
       "protobuf_gzip_mb": 448, "json_write_s": 11.7, "protobuf_write_s": 5.8,
       "json_read_s": 20.4, "protobuf_read_s": 4.5, "json_memory_mb": 2193,
       "protobuf_memory_mb": 2710}

ORG_REGIME = {"scale": "about 400,000 objects", "least_objects": 400_000 // REGIME_FACTOR}

# Table 1 of the reference study: average bytes per object, per method
TABLE_1_METHODS = ("Java Default (built-in)", "Java BSON", "Java JSON GZIP",
                   "Java Protocol Buffer", "Java Kryo", "Java Hand Coded ByteBuffer",
                   "C++ Boost (text archive)", "C++ Protocol Buffer", "C++ Hand Coded",
                   "C++ InPlace")
TABLE_1 = {
    "part": (298, 209, 196, 122, 114, 136, 180, 126, 136, 174),
    "lineitem": (1037, 701, 504, 398, 375, 443, 528, 416, 445, 580),
    "customer": (19556, 33879, 8508, 17305, 16176, 19478, 21004, 17931, 19275, 25127),
}

# the later study's minutes per method on tweets: write, read seq, read rand, external sort,
# network tree sort (10M objects read and written, 15M sorted)
TWEET_TASKS = ("write", "read_seq", "read_rand", "sort_dedup", "net_sort_merge")
TWEET_MINUTES = {
    "Java built-in": (10.56, 22.87, 63.43, 72.01, 35.78),
    "Java JSON+gzip": (40.32, 20.01, 27.04, 149.50, 64.61),
    "Java BSON": (11.83, 11.44, 55.35, 49.44, 28.65),
    "Java Protocol Buffers": (3.62, 3.80, 10.41, 11.01, 7.22),
    "Java Kryo": (3.76, 4.34, 11.88, 14.78, 8.28),
    "Java ByteBuffer (hand-coded)": (3.19, 4.79, 24.61, 16.35, 12.65),
    "Java JSON": (24.66, 15.94, 52.22, 95.38, 44.60),
    "Java FlatBuffers": (4.60, 1.52, 8.20, 7.06, 7.43),
    "C++ hand-coded": (1.53, 2.29, 8.72, 8.35, 5.54),
    "C++ in-place": (2.26, 1.65, 8.50, 10.09, 6.69),
    "C++ Boost (text)": (6.20, 7.99, 15.84, 33.26, 16.84),
    "C++ Boost binary": (3.95, 4.66, 12.73, 21.99, 10.73),
    "C++ Protocol Buffers": (2.23, 2.92, 9.70, 11.35, 6.32),
    "C++ BSON (JSON text)": (36.89, 36.04, 79.18, 245.83, 134.96),
    "C++ FlatBuffers": (3.07, 2.67, 9.45, 11.05, 6.43),
    "Rust JSON": (4.00, 8.03, 34.50, 11.63, 14.04),
    "Rust bincode": (1.61, 3.14, 10.96, 4.90, 7.15),
    "Rust MessagePack": (1.53, 4.24, 10.90, 5.50, 7.75),
    "Rust BSON": (12.24, 17.99, 31.66, 38.33, 35.61),
    "Rust FlexBuffers": (7.23, 8.81, 19.28, 16.55, 17.71),
}
TWEET_OBJECTS = {"write": 10_000_000, "read_seq": 10_000_000, "read_rand": 10_000_000,
                 "sort_dedup": 15_000_000, "net_sort_merge": 15_000_000}
TWEET_SCALE = {task: f"{n // 1_000_000}M objects" for task, n in TWEET_OBJECTS.items()}
TWEET_SUBJECT = {"write": "write", "read_seq": "sequential read", "read_rand": "random read",
                 "sort_dedup": "external sort", "net_sort_merge": "network tree sort"}


def _table_1(model: str, title: str) -> PublishedFigure:
    sizes = dict(zip(TABLE_1_METHODS, TABLE_1[model]))
    return PublishedFigure(f"{model}_method_sizes", f"{title}: bytes per object, per method",
                           ", ".join(f"{name} {b:,}" for name, b in sizes.items()),
                           REFERENCE_STUDY, model=model, values=sizes,
                           needs=f"sizes or write cells of {model}",
                           cells=(_study_cells("sizes", model, sizes),))


def _tweet_minutes(task: str) -> PublishedFigure:
    column = TWEET_TASKS.index(task)
    minutes = {name: row[column] for name, row in TWEET_MINUTES.items()}
    fastest, slowest = min(minutes, key=minutes.get), max(minutes, key=minutes.get)
    return PublishedFigure(f"tweet_{task}_order", f"tweet: {TWEET_SUBJECT[task]}, methods in "
                           "order of time",
                           f"{len(minutes)} methods, {minutes[fastest]} min ({fastest}) to "
                           f"{minutes[slowest]} min ({slowest})", LATER_STUDY, model="tweet",
                           task=task, values=minutes, objects=TWEET_OBJECTS[task],
                           scale=TWEET_SCALE[task],
                           least_objects=TWEET_OBJECTS[task] // REGIME_FACTOR,
                           needs=f"{task} cells of tweet (published at {TWEET_SCALE[task]})",
                           cells=(_study_cells(task, "tweet", minutes),))


SOCC_FIGURES = (
    *(_table_1(model, title) for model, title in (("part", "Part"), ("lineitem", "LineItem"),
                                                  ("customer", "Customer"))),
    PublishedFigure("read_seq_inplace", "sequential read: C++ hand-coded / C++ in-place",
                    "1.5x, consistently", REFERENCE_STUDY, task="read_seq",
                    values={"ratio": 1.5}, needs="read_seq cells of cpp inplace and handcoded",
                    cells=(CellNeed("read_seq", None, ("cpp handcoded", "cpp inplace")),)),
    PublishedFigure("customer_inplace_size", "Customer: in-place / JSON+gzip size", "3x",
                    REFERENCE_STUDY, model="customer", values={"ratio": 3}, gzip=PER_OBJECT,
                    needs="sizes or write cells of customer, inplace and json_gzip",
                    cells=(CellNeed("sizes", "customer", ("cpp inplace", "cpp json_gzip")),)),
    PublishedFigure("read_seq_cpp_java", "sequential read, large: Java hand-coded / C++ "
                    "in-place", "about 4x Part, 2.5x LineItem, 1.5x Customer (up to 20x Part, "
                    "5x Customer at other sizes)", REFERENCE_STUDY, task="read_seq",
                    values={"ratios": {"part": 4, "lineitem": 2.5, "customer": 1.5},
                            "up_to": {"part": 20, "customer": 5}},
                    needs="read_seq cells of java handcoded and cpp inplace",
                    cells=tuple(CellNeed("read_seq", model, ("java handcoded", "cpp inplace"))
                                for model in ("part", "lineitem", "customer"))),
    PublishedFigure("read_seq_boost", "sequential read: C++ Boost / Java hand-coded",
                    "Boost generally slower", REFERENCE_STUDY, task="read_seq",
                    values={"ratio": None},
                    needs="read_seq cells of cpp boost_text and java handcoded",
                    cells=(CellNeed("read_seq", None, ("cpp boost_text", "java handcoded")),)),
    PublishedFigure("read_rand_spread", "random read: spread of methods against sequential",
                    "far smaller than for sequential reads (I/O dominates)", REFERENCE_STUDY,
                    task="read_rand", values={"ratio": None},
                    needs="read_rand and read_seq cells of one model",
                    cells=tuple(CellNeed(task, "part", ("cpp inplace", "java json_gzip"))
                                for task in ("read_rand", "read_seq"))),
    PublishedFigure("read_rand_java_small", "random read: Java's gap by request size",
                    "largest for small reads (JIT warm-up)", REFERENCE_STUDY, task="read_rand",
                    values={"ratio": None}, needs="read_rand cells of java and cpp at two n "
                                                  "or more",
                    cells=(CellNeed("read_rand", None, ("java *", "cpp *"), points=2),)),
    PublishedFigure("read_par_java_cpp", "four-thread sequential read: fastest Java / fastest "
                    "C++", "2x", REFERENCE_STUDY, task="read_par", values={"ratio": 2},
                    needs="read_par cells at 4 threads, mode seq, of java and cpp",
                    cells=(CellNeed("read_par", None, ("java *", "cpp *"), "mode=seq threads=4"),)),
    PublishedFigure("sort_part_inplace", "external sort, Part: Java JSON+gzip / C++ in-place",
                    "14.3 h vs 0.38 h: 38x", REFERENCE_STUDY, model="part", task="sort_dedup",
                    values={"ratio": 38, "json_gzip_h": 14.3, "inplace_h": 0.38},
                    needs="sort_dedup cells of part, java json_gzip and cpp inplace",
                    cells=(CellNeed("sort_dedup", "part", ("java json_gzip", "cpp inplace")),)),
    PublishedFigure("sort_part_java_handcoded", "external sort, Part: Java JSON+gzip / Java "
                    "hand-coded", "about 21x", REFERENCE_STUDY, model="part",
                    task="sort_dedup", values={"ratio": 21},
                    needs="sort_dedup cells of part, java json_gzip and handcoded",
                    cells=(CellNeed("sort_dedup", "part", ("java json_gzip", "java handcoded")),)),
    PublishedFigure("sort_customer_kryo", "external sort, Customer: Java Kryo / C++ in-place",
                    "1.66x (66 % more time with half the I/O)", REFERENCE_STUDY,
                    model="customer", task="sort_dedup", values={"ratio": 1.66},
                    needs="sort_dedup cells of customer, java kryo and cpp inplace",
                    cells=(CellNeed("sort_dedup", "customer", ("java kryo", "cpp inplace")),)),
    PublishedFigure("sort_java_cpp", "external sort: fastest Java / C++ in-place", "about 2x",
                    REFERENCE_STUDY, task="sort_dedup", values={"ratio": 2},
                    needs="sort_dedup cells of java and cpp inplace",
                    cells=(CellNeed("sort_dedup", None, ("java *", "cpp inplace")),)),
    PublishedFigure("aggregate_handcoded_inplace", "sparse-vector aggregation: C++ in-place / "
                    "C++ hand-coded", "about equal, hand-coded generally fastest",
                    REFERENCE_STUDY, model="sparse", task="net_aggregate", values={"ratio": 1},
                    needs="net_aggregate cells of cpp handcoded and inplace",
                    cells=(CellNeed("net_aggregate", "sparse", ("cpp handcoded", "cpp inplace")),)),
    PublishedFigure("aggregate_cpp_java_sparse", "sparse-vector aggregation at 0.1 % and 1 % "
                    "density: fastest Java / slowest C++", "2-3x", REFERENCE_STUDY,
                    model="sparse", task="net_aggregate",
                    values={"low": 2, "high": 3, "ratio": 2.5, "densities": (0.001, 0.01)},
                    needs="net_aggregate cells of java and cpp at density 0.001 or 0.01 "
                          "(published at dimension 10^8)",
                    cells=(CellNeed("net_aggregate", "sparse", ("java *", "cpp *"),
                                    "density=0.01"),)),
    PublishedFigure("aggregate_bytebuffer_dense", "sparse-vector aggregation at 10 % density: "
                    "Java hand-coded / fastest C++", "catches up (about 1x)", REFERENCE_STUDY,
                    model="sparse", task="net_aggregate", values={"ratio": 1,
                                                                  "densities": (0.1,)},
                    needs="net_aggregate cells of java handcoded and cpp at density 0.1 "
                          "(published at dimension 10^8)",
                    cells=(CellNeed("net_aggregate", "sparse", ("java handcoded", "cpp *"),
                                    "density=0.1"),)),
    PublishedFigure("managed_unmanaged", "every task: fastest Java / fastest C++",
                    "about 2x off the bat", REFERENCE_STUDY, values={"ratio": 2},
                    needs="timed cells of java and cpp in one task and model",
                    cells=(CellNeed("read_seq", None, ("java *", "cpp *")),)),
)

LATER_FIGURES = tuple(_tweet_minutes(task) for task in TWEET_TASKS)

ARTICLE_FIGURES = (
    PublishedFigure("trade_buffers", "trade: write + read per object, by Java buffer",
                    "Unsafe 70-110 ns, direct ByteBuffer (native order) 100-140 ns, heap "
                    "ByteBuffer 360-460 ns", MICRO_BLOG, model="trade", task="micro",
                    values={"handcoded_unsafe": (70, 110), "handcoded_direct": (100, 140),
                            "handcoded_be": (360, 460)},
                    needs="micro cells of trade, java handcoded_unsafe, handcoded_direct, "
                          "handcoded_be",
                    cells=(CellNeed("micro", "trade", ("java handcoded_unsafe",
                                                       "java handcoded_direct",
                                                       "java handcoded_be")),)),
    PublishedFigure("arrays_time", "arrays: time / Java built-in, per object",
                    "encode: Protocol Buffers about 4x, XML about 50x; decode the same trend",
                    FIRST_BLOG, model="arrays", task="micro",
                    values={"protobuf": 4, "xml": 50},
                    needs="micro cells of arrays in java, java_builtin with protobuf or xml",
                    cells=(CellNeed("micro", "arrays", ("java java_builtin", "java protobuf",
                                                        "java xml")),)),
    PublishedFigure("arrays_builtin_overhead", "arrays: Java built-in bytes over the raw data",
                    "a small constant overhead", FIRST_BLOG, model="arrays", task="micro",
                    values={"ratio": None},
                    needs="micro cells of arrays at two k or more, java_builtin and handcoded",
                    cells=(CellNeed("micro", "arrays", ("java java_builtin", "java handcoded"),
                                    points=2),)),
)

FIGURES: tuple[PublishedFigure, ...] = (
    PublishedFigure("part_size", "Part: average object size", "114–298 B", REFERENCE_STUDY,
                    model="part", values={"low": 114, "high": 298},
                    cells=(CellNeed("sizes", "part", ("* *",)),)),
    PublishedFigure("lineitem_size", "LineItem: average object size", "375–1,037 B",
                    REFERENCE_STUDY, model="lineitem", values={"low": 375, "high": 1037},
                    cells=(CellNeed("sizes", "lineitem", ("* *",)),)),
    PublishedFigure("customer_size", "Customer: average object size", "8,508–33,879 B",
                    REFERENCE_STUDY, model="customer", values={"low": 8508, "high": 33879},
                    cells=(CellNeed("sizes", "customer", ("* *",)),)),
    PublishedFigure("trade_plain_binary", "trade: plain binary layout", "185 B", MICRO_BLOG,
                    model="trade", values={"bytes": 185},
                    cells=(CellNeed("sizes", "trade", ("* handcoded",)),)),
    PublishedFigure("trade_java_builtin", "trade: Java built-in serialization", "340 B",
                    MICRO_BLOG, model="trade", values={"bytes": 340},
                    cells=(CellNeed("sizes", "trade", ("java java_builtin",)),)),
    PublishedFigure("trade_roundtrip", "trade: one write + read, in memory",
                    "about 10 µs (Java serialization) vs well under 100 ns (direct memory)",
                    MICRO_BLOG, model="trade", task="micro",
                    values={"java_builtin_ns": 10_000, "direct_ns": 100},
                    cells=(CellNeed("micro", "trade", ("java java_builtin",
                                                       "java handcoded_unsafe")),)),
    PublishedFigure("read_seq_spread", "sequential read: slowest / fastest implementation",
                    "up to 100x", REFERENCE_STUDY, task="read_seq", values={"ratio": 100},
                    needs="read_seq cells of two methods or more",
                    cells=(CellNeed("read_seq", None, ("cpp inplace", "java json_gzip")),)),
    PublishedFigure("sort_spread", "external sort: slowest / fastest implementation", "38x",
                    REFERENCE_STUDY, task="sort_dedup", values={"ratio": 38},
                    needs="sort_dedup cells of two methods or more (published on Part)",
                    cells=(CellNeed("sort_dedup", "part", ("cpp inplace", "java json_gzip")),)),
    PublishedFigure("org_size", "org: JSON / Protocol Buffers data size",
                    f"JSON {ORG['json_mb']:,} MB (gzip {ORG['json_gzip_mb']:,} MB) vs Protocol "
                    f"Buffers {ORG['protobuf_mb']:,} MB (gzip {ORG['protobuf_gzip_mb']:,} MB), "
                    f"about {ORG['objects']:,} objects: "
                    f"{_ratio(ORG['json_mb'], ORG['protobuf_mb'])} "
                    f"(gzip {_ratio(ORG['json_gzip_mb'], ORG['protobuf_gzip_mb'])})",
                    COMPARISON_BLOG, model="org", values=ORG, gzip=WHOLE_FILE,
                    cells=(CellNeed("sizes", "org", ("java json", "java protobuf")),)),
    PublishedFigure("org_write", "org: JSON / Protocol Buffers write time",
                    f"{ORG['json_write_s']} s vs {ORG['protobuf_write_s']} s: "
                    f"{_ratio(ORG['json_write_s'], ORG['protobuf_write_s'])}",
                    COMPARISON_BLOG, model="org", task="write", values=ORG,
                    objects=ORG["objects"], **ORG_REGIME,
                    cells=(CellNeed("write", "org", ("java json", "java protobuf")),)),
    PublishedFigure("org_read", "org: JSON / Protocol Buffers read time",
                    f"{ORG['json_read_s']} s vs {ORG['protobuf_read_s']} s: "
                    f"{_ratio(ORG['json_read_s'], ORG['protobuf_read_s'])}",
                    COMPARISON_BLOG, model="org", task="read_seq", values=ORG,
                    objects=ORG["objects"], **ORG_REGIME,
                    cells=(CellNeed("read_seq", "org", ("java json", "java protobuf")),)),
    PublishedFigure("org_memory", "org: memory after reading, JSON vs Protocol Buffers",
                    f"{ORG['json_memory_mb']:,} MB vs {ORG['protobuf_memory_mb']:,} MB",
                    COMPARISON_BLOG, model="org", task="memory", values=ORG,
                    objects=ORG["objects"], **ORG_REGIME,
                    cells=(CellNeed("memory", "org", ("java json", "java protobuf")),)),
    PublishedFigure("net_fetch_disk", "networked requests from disk: time follows size "
                    "(BSON / JSON+gzip, Customer)",
                    "size 4:1 gives times 4:1, 6:1, 16:1 for 10K, 100K, 1M objects",
                    REFERENCE_STUDY, model="customer", task="net_fetch",
                    values={"size_ratio": 4, "time_ratios": {10_000: 4, 100_000: 6,
                                                             1_000_000: 16}},
                    scale="10K, 100K and 1M objects in total (2,500 per server and more at "
                          "4 servers)",
                    least_objects=2_500 // REGIME_FACTOR,
                    needs="net_fetch cells from disk of bson and json_gzip (published on "
                          "Customer at 10K, 100K and 1M objects in total)",
                    cells=(CellNeed("net_fetch", "customer", ("* bson", "* json_gzip"),
                                    "source=disk"),)),
    PublishedFigure("net_fetch_ram_inplace", "networked requests from RAM: in-place against "
                    "the closest competitor, small requests",
                    "C++ in-place 5-7x faster", REFERENCE_STUDY, task="net_fetch",
                    values={"low": 5, "high": 7, "ratio": 6},
                    scale="requests of 10^4 objects per server and more",
                    least_objects=10_000 // REGIME_FACTOR,
                    needs="net_fetch cells from RAM of an in-place method (inplace, rkyv) "
                          "and another",
                    cells=(CellNeed("net_fetch", None, ("cpp inplace", "cpp handcoded"),
                                    "source=ram"),)),
    PublishedFigure("net_aggregate_spread", "sparse-vector tree aggregation: JSON+gzip / "
                    "fastest", "up to 100x", REFERENCE_STUDY, model="sparse",
                    task="net_aggregate", values={"ratio": 100},
                    needs="net_aggregate cells of sparse (published with 7 nodes at "
                          "dimension 10^8, 0.1 / 1 / 10 % density)",
                    scale="7 nodes, dimension 10^8, 0.1 / 1 / 10 % density",
                    cells=(CellNeed("net_aggregate", "sparse", ("* json_gzip", "* handcoded")),)),
    PublishedFigure("arrays_size", "arrays: encoded size / raw data size",
                    "XML about 6x, Protocol Buffers under 2x", FIRST_BLOG, model="arrays",
                    values={"xml_ratio": 6, "protobuf_ratio": 2},
                    cells=(CellNeed("sizes", "arrays", ("java xml", "java protobuf",
                                                        "java handcoded")),)),
    *SOCC_FIGURES, *LATER_FIGURES, *ARTICLE_FIGURES,
)
