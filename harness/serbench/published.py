"""Figures published by the studies serbench extends, as data for the report's side-by-side.

They are what was published, not targets: other machines, other library versions and other
data sizes. `source` names the publication the way the project brief does.
"""
from __future__ import annotations

from dataclasses import dataclass, field

REFERENCE_STUDY = "the reference study"
MICRO_BLOG = "micro blog"
COMPARISON_BLOG = "comparison blog"
FIRST_BLOG = "first blog"


@dataclass(frozen=True)
class PublishedFigure:
    key: str            # stable id; the report's comparison for it is registered under this key
    subject: str        # what was measured, in words
    figure: str         # the published figure as text
    source: str
    model: str | None = None
    task: str | None = None
    values: dict = field(default_factory=dict)  # the numbers behind `figure`


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x"


ORG = {"objects": 400_000, "json_mb": 2457, "json_gzip_mb": 525, "protobuf_mb": 1044,
       "protobuf_gzip_mb": 448, "json_write_s": 11.7, "protobuf_write_s": 5.8,
       "json_read_s": 20.4, "protobuf_read_s": 4.5, "json_memory_mb": 2193,
       "protobuf_memory_mb": 2710}

FIGURES: tuple[PublishedFigure, ...] = (
    PublishedFigure("part_size", "Part: average object size", "114–298 B", REFERENCE_STUDY,
                    model="part", values={"low": 114, "high": 298}),
    PublishedFigure("lineitem_size", "LineItem: average object size", "375–1,037 B",
                    REFERENCE_STUDY, model="lineitem", values={"low": 375, "high": 1037}),
    PublishedFigure("customer_size", "Customer: average object size", "8,508–33,879 B",
                    REFERENCE_STUDY, model="customer", values={"low": 8508, "high": 33879}),
    PublishedFigure("trade_plain_binary", "trade: plain binary layout", "185 B", MICRO_BLOG,
                    model="trade", values={"bytes": 185}),
    PublishedFigure("trade_java_builtin", "trade: Java built-in serialization", "340 B",
                    MICRO_BLOG, model="trade", values={"bytes": 340}),
    PublishedFigure("trade_roundtrip", "trade: one write + read, in memory",
                    "about 10 µs (Java serialization) vs well under 100 ns (direct memory)",
                    MICRO_BLOG, model="trade", task="micro",
                    values={"java_builtin_ns": 10_000, "direct_ns": 100}),
    PublishedFigure("read_seq_spread", "sequential read: slowest / fastest implementation",
                    "up to 100x", REFERENCE_STUDY, task="read_seq", values={"ratio": 100}),
    PublishedFigure("sort_spread", "external sort: slowest / fastest implementation", "38x",
                    REFERENCE_STUDY, task="sort_dedup", values={"ratio": 38}),
    PublishedFigure("org_size", "org: JSON / Protocol Buffers data size",
                    f"JSON {ORG['json_mb']:,} MB (gzip {ORG['json_gzip_mb']:,} MB) vs Protocol "
                    f"Buffers {ORG['protobuf_mb']:,} MB (gzip {ORG['protobuf_gzip_mb']:,} MB), "
                    f"about {ORG['objects']:,} objects: "
                    f"{_ratio(ORG['json_mb'], ORG['protobuf_mb'])} "
                    f"(gzip {_ratio(ORG['json_gzip_mb'], ORG['protobuf_gzip_mb'])})",
                    COMPARISON_BLOG, model="org", values=ORG),
    PublishedFigure("org_write", "org: JSON / Protocol Buffers write time",
                    f"{ORG['json_write_s']} s vs {ORG['protobuf_write_s']} s: "
                    f"{_ratio(ORG['json_write_s'], ORG['protobuf_write_s'])}",
                    COMPARISON_BLOG, model="org", task="write", values=ORG),
    PublishedFigure("org_read", "org: JSON / Protocol Buffers read time",
                    f"{ORG['json_read_s']} s vs {ORG['protobuf_read_s']} s: "
                    f"{_ratio(ORG['json_read_s'], ORG['protobuf_read_s'])}",
                    COMPARISON_BLOG, model="org", task="read_seq", values=ORG),
    PublishedFigure("org_memory", "org: memory after reading, JSON vs Protocol Buffers",
                    f"{ORG['json_memory_mb']:,} MB vs {ORG['protobuf_memory_mb']:,} MB",
                    COMPARISON_BLOG, model="org", task="memory", values=ORG),
    PublishedFigure("net_fetch_disk", "networked requests from disk: time follows size "
                    "(BSON / JSON+gzip, Customer)",
                    "size 4:1 gives times 4:1, 6:1, 16:1 for 10K, 100K, 1M objects",
                    REFERENCE_STUDY, model="customer", task="net_fetch",
                    values={"size_ratio": 4, "time_ratios": {10_000: 4, 100_000: 6,
                                                             1_000_000: 16}}),
    PublishedFigure("net_fetch_ram_inplace", "networked requests from RAM: in-place against "
                    "the closest competitor, small requests",
                    "C++ in-place 5-7x faster", REFERENCE_STUDY, task="net_fetch",
                    values={"low": 5, "high": 7}),
    PublishedFigure("net_aggregate_spread", "sparse-vector tree aggregation: JSON+gzip / "
                    "fastest", "up to 100x", REFERENCE_STUDY, model="sparse",
                    task="net_aggregate", values={"ratio": 100}),
    PublishedFigure("arrays_size", "arrays: encoded size / raw data size",
                    "XML about 6x, Protocol Buffers under 2x", FIRST_BLOG, model="arrays",
                    values={"xml_ratio": 6, "protobuf_ratio": 2}),
)
