"""A plan's parameters, each declared once: its type, default, bounds and documentation. The
plan parser checks a value against its declaration (`check`), `Params` (a plan's or a group's
values) is made from the table, a cell's defaults are read from it, and the plan reference
(`reference`) is written from it; the bottom of the harness beside cell.py.

The bounds are what the drivers and the harness can honour: integers a driver keeps in 32 or
63 bits, durations a deadline can be computed from (finite: `inf` overflowed a timestamp,
`nan` a conversion), counts a run can finish. A plan file is input from anywhere: a value
outside them is refused naming the key, the value and the bounds.
"""
from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass, make_dataclass, field
from pathlib import Path

from .ids import IdError, checked

I31 = 2**31 - 1  # a driver's int (Java) and the paged file's u32 offsets
I63 = 2**63 - 1  # a driver's long
# the network's frame bounds: every driver checks the same (PROTOCOL.md 10.2); far below what
# a Java array or a frame's u32 length holds
NET_FRAME_MIN = 64 << 10
NET_FRAME_MAX = 1 << 30
NET_FRAME_DEFAULT = 64 << 20  # the drivers' own default too
# the nodes' links: loopback (no namespaces), none (namespaces, unshaped veth) or a tbf rate
NETWORK = re.compile(r"loopback|none|\d+(\.\d+)?(kbit|mbit|gbit)")
CPU_LIST = re.compile(r"\d+(-\d+)?(,\d+(-\d+)?)*")
CLUSTER_ADDRESS = re.compile(r"(tcp|tls)://(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}")
PAR_MODES = ("seq", "rand")
BUFFERS = ("fresh", "reused")
NET_FETCH_SOURCES = ("ram", "disk", "decode")
DAY_S = 86_400.0
HOUR_MS = 3_600_000


class ParamError(ValueError):
    """A value a parameter does not take; the message says what it takes (no key: the
    caller names where the value came from)."""


@dataclass(frozen=True)
class Param:
    """One parameter: `kind` is int, float, bool, str or a list of int, float or str
    (`[int]`...); numbers lie in [low, high] (low excluded when `above`); a list's items are
    each checked so, and `choices` or `pattern` constrain strings."""

    name: str
    kind: str
    default: object
    doc: str
    low: float | None = None
    high: float | None = None
    above: bool = False  # low is excluded: a positive duration, a share
    choices: tuple[str, ...] = ()
    pattern: re.Pattern | None = None
    what: str = ""  # how a message names an allowed string ("a link rate such as 1gbit")
    sorted_set: bool = True  # a list of numbers: kept sorted and distinct
    empty_list: bool = False  # a list may be empty
    run_wide: bool = False  # [params] only, never inside a group
    blank: bool = True  # a str with a pattern may also be "" (unset)

    @property
    def python_type(self) -> type:
        item = {"int": int, "float": float, "str": str, "bool": bool}
        if self.kind.startswith("["):
            return tuple
        return item[self.kind]

    def bounds(self) -> str:
        low = "-inf" if self.low is None else _number(self.low)
        high = "inf" if self.high is None else _number(self.high)
        return f"{'(' if self.above else '['}{low}, {high}]"


def _number(value: float) -> str:
    if isinstance(value, int) and value >= 2**20 and value & (value + 1) == 0:
        return f"2^{value.bit_length()}-1"
    return f"{value:g}" if isinstance(value, float) else str(value)


PARAMS: tuple[Param, ...] = (
    Param("dataset", "str", "default",
          "a directory under the data root (its name), or an absolute path"),
    Param("n", "[int]", (100, 1000, 10000),
          "objects per read; capped at the dataset's object count", 1, I31),
    Param("page_size", "int", 262144, "bytes per page of the paged files", 64, I31),
    Param("warmups", "int", 1, "warm-up repetitions before the measured ones", 0, 100_000),
    Param("warmup_ms", "int", 0,
          "and warm-ups go on until this long has passed (JMH's time-based warm-up: a JIT "
          "compiles after time, not count)", 0, HOUR_MS),
    Param("warmup_max_ms", "int", 0,
          "and, in a driver with a JIT, on while it still compiles (over 2 % of the last "
          "100 ms of warm-ups; a network cell: of its last repetition, on any node), up to "
          "this long", 0, HOUR_MS),
    Param("prewarm_max_ms", "int", 4000,
          "a driver with a JIT first runs each cell of its process (a method x model) once, "
          "unmeasured, pass after pass, until a whole pass compiles at most 2 % of its time, "
          "up to this long (0: no such warm-up; a group's process takes its cells' largest); "
          "a network cell's new nodes warm up so every round, as with warmup_max_ms",
          0, HOUR_MS),
    Param("repetitions", "int", 1,
          "measured repetitions per round (more when one is shorter than min_sample_ms)",
          1, 1_000_000),
    Param("rounds_min", "int", 5,
          "every cell is measured in rounds, interleaved with the cells it is compared with: "
          "at least rounds_min (capped by rounds_max)", 1, 1000),
    Param("rounds_max", "int", 8, "the most rounds a cell is measured in", 1, 1000),
    Param("ci_target", "float", 0.03,
          "rounds go on until the median's 95 % interval is within this share of it",
          0.0, 1.0, above=True),
    Param("time_cap_s", "float", 8.0,
          "or until the cell's comparison set has run this long after its first round",
          0.0, DAY_S, above=True),
    Param("min_sample_ms", "float", 5.0,
          "a round's repetitions last at least this long together", 0.0, 60_000.0,
          above=True),
    Param("cold", "bool", True, "evict data and index files before every repetition"),
    Param("threads", "[int]", (1, 2), "read_par thread counts (other tasks run one thread)",
          1, 1024),
    Param("modes", "[str]", PAR_MODES,
          "read_par over a range or over the random id list", choices=PAR_MODES),
    Param("budget_bytes", "[int]", (4194304,), "sort_dedup memory budgets (bytes)", 4096,
          I63),
    Param("iterations", "int", 100, "micro: passes over the n objects per repetition", 1,
          1_000_000),
    Param("forks", "int", 1,
          "micro: its rounds, each in a fresh driver process of its own (JMH's forks); 0 = "
          "rounds in the method x model's shared process", 0, 1000),
    Param("read_forks", "int", 0,
          "read tasks and their raw floor: likewise (default: the shared process); samples "
          "pooled, so a process's luck in page placement and neighbours weighs 1/read_forks",
          0, 1000),
    Param("floor_rounds", "int", 0,
          "reads and writes: every round followed in the same process by the floor of the "
          "same file, and at least this many rounds (0 = the floor only as its own cell)",
          0, 1000),
    Param("buffers", "[str]", BUFFERS, "micro: a new output buffer per object, or one reused",
          choices=BUFFERS),
    Param("sweep_k", "[int]", (100, 1000, 10000),
          "micro on `arrays`: objects of k strings and k ints", 1, 10_000_000),
    Param("seed", "int", 42, "read_seq start and read_rand id list", 0, I63),
    Param("timeout_s", "float", 600.0, "per driver request", 0.0, 7 * DAY_S, above=True),
    Param("pin_cpus", "str", "", "taskset CPU list for the drivers; \"\" = no pinning",
          pattern=CPU_LIST, what="a CPU list like \"0\" or \"0-1,4\""),
    Param("raw", "bool", True, "add the `raw` floor beside every read, write and sort"),
    Param("servers", "int", 4, "net_fetch: server nodes (n is objects per server)", 1, 64),
    Param("sources", "[str]", NET_FETCH_SOURCES,
          "net_fetch: served from native objects, from stored pages, or from stored pages "
          "and decoded by the client", choices=NET_FETCH_SOURCES),
    Param("tree_depth", "int", 3,
          "net_aggregate, net_sort_merge: levels of the binary tree (3: 7 nodes); the sort's "
          "n is objects per node", 1, 6),
    Param("densities", "[float]", (),
          "net_aggregate: one cell per density, each node's vector thinned to it (at most "
          "the dataset's); [] = as stored", 0.0, 1.0, above=True, empty_list=True),
    Param("net_page_bytes", "int", 20 << 20,
          "network tasks: the network page (the studies' 20 MiB); at most net_frame_bytes",
          65536, NET_FRAME_MAX),
    Param("net_frame_bytes", "int", NET_FRAME_DEFAULT,
          "network tasks: the largest frame a data node sends or accepts from a peer: a "
          "guard against a corrupt length, and the cap on one object, which travels alone "
          "in a frame when larger than a network page; no part of a cell's identity",
          NET_FRAME_MIN, NET_FRAME_MAX),
    Param("network", "str", "1gbit",
          "network tasks: each node in its own namespace on a link shaped to this rate (tbf; "
          "no delay emulation), \"none\" (namespaces, unshaped) or \"loopback\" (no "
          "namespaces); without root: loopback, said in every cell",
          pattern=NETWORK, blank=False,
          what="loopback, none (unshaped namespaces) or a link rate such as 1gbit or 100mbit"),
    Param("networks", "[str]", (),
          "network tasks: a sweep instead, one cell per link setting, each named in its "
          "setting (network=1gbit); [] = `network`", pattern=NETWORK, blank=False,
          empty_list=True, sorted_set=False,
          what="loopback, none or a link rate such as 10gbit"),
    Param("cluster", "str", "",
          "a Dask scheduler (tcp://HOST:PORT or tls://...) whose workers run every cell; "
          "`run --cluster` wins", pattern=CLUSTER_ADDRESS, run_wide=True,
          what="a Dask scheduler address such as tcp://10.0.0.1:8786 or tls://host:8786"),
    Param("cluster_workers", "[str]", (),
          "the workers used, by name; [] = all, by name", empty_list=True, sorted_set=False,
          run_wide=True),
    Param("cluster_nodes_per_worker", "int", 1,
          "a network cell's node i runs on the (i // this)-th worker", 1, 64, run_wide=True),
    Param("cluster_tls_ca", "str", "",
          "with tls://: certificate files for Dask's Security (else SERBENCH_CLUSTER_TLS_CA/"
          "_CERT/_KEY, else Dask's config)", run_wide=True),
    Param("cluster_tls_cert", "str", "", "likewise", run_wide=True),
    Param("cluster_tls_key", "str", "", "likewise", run_wide=True),
)
BY_NAME = {param.name: param for param in PARAMS}
DEFAULTS = {param.name: param.default for param in PARAMS}
CLUSTER_KEYS = tuple(param.name for param in PARAMS if param.run_wide)

# a plan's (or a group's) values: one field per declared parameter, its default the table's
Params = make_dataclass(
    "Params", [(p.name, p.python_type, field(default=p.default)) for p in PARAMS],
    frozen=True)
Params.__module__ = __name__  # found by pickle (a cluster's units carry their plan)
Params.__doc__ = "A plan's or a group's parameter values (params.PARAMS declares each)."


def check(param: Param, value):
    """`value` as `param` takes it (lists as tuples, numbers as their type), or ParamError
    saying what it takes."""
    if param.kind.startswith("["):
        return _check_list(param, value)
    return _check_one(param, param.kind, value)


def _check_list(param: Param, value) -> tuple:
    items = value if isinstance(value, list) else [value]
    kind = param.kind[1:-1]
    if not items and not param.empty_list:
        what = (f"of {', '.join(param.choices)}" if param.choices else
                f"number in {param.bounds()}" if kind != "str" else "value")
        raise ParamError(f"must name at least one {what}, got {value!r}")
    found = [_check_one(param, kind, item) for item in items]
    if kind in ("int", "float") and param.sorted_set:
        return tuple(sorted(set(found)))
    if len(set(found)) != len(found):
        if param.choices:  # a choice named twice is the same choice
            return tuple(dict.fromkeys(found))
        each = f", each {param.what}" if param.what else ""
        raise ParamError(f"must be a list of distinct values{each}, got {value!r}")
    return tuple(found)


def _check_one(param: Param, kind: str, value):
    if kind == "bool":
        if not isinstance(value, bool):
            raise ParamError(f"must be true or false, got {_kind(value)}")
        return value
    if kind == "str":
        return _check_text(param, value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParamError(f"must be {'an integer' if kind == 'int' else 'a number'} in "
                         f"{param.bounds()}, got {_kind(value)}")
    if kind == "int" and not isinstance(value, int):
        raise ParamError(f"must be an integer in {param.bounds()}, got {value!r}")
    if not math.isfinite(value):
        raise ParamError(f"must be a finite number in {param.bounds()}, got {value!r}")
    low_ok = param.low is None or (value > param.low if param.above else value >= param.low)
    if not low_ok or (param.high is not None and value > param.high):
        noun = "an integer" if kind == "int" else "a number"
        raise ParamError(f"must be {noun} in {param.bounds()}, got {value!r}")
    return value if kind == "int" else float(value)


def _check_text(param: Param, value) -> str:
    if not isinstance(value, str):
        raise ParamError(f"must be a string, got {_kind(value)}")
    if param.choices and value not in param.choices:
        raise ParamError(f"must be one of {', '.join(param.choices)}, got {value!r}")
    if param.pattern is not None and not (value == "" and param.blank) \
            and not param.pattern.fullmatch(value):
        raise ParamError(f"must be {param.what}, got {value!r}")
    if param.name == "dataset":
        return dataset_param(value)
    if param.name == "cluster_workers" and not value:
        raise ParamError("a worker name must not be empty")
    return value


def dataset_param(value: str) -> str:
    """A dataset: its name under the data root, or an absolute path whose last directory's
    name is a dataset name (its label in results and the directory of its run files)."""
    try:
        checked("dataset name", Path(value).name if Path(value).is_absolute() else value)
    except IdError as exc:
        raise ParamError(f"must be a dataset's name under the data root or an absolute "
                         f"path to one: {exc}") from None
    return value


def _kind(value) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def reference() -> str:
    """The [params] table of a plan, every key with its default, bounds and documentation:
    the plan reference (docs/plans.md holds it; a test keeps the two the same)."""
    lines = ["[params]"]
    for param in PARAMS:
        limits = f" Bounds: {param.bounds()}." if param.low is not None else ""
        choices = f" One of: {', '.join(param.choices)}." if param.choices else ""
        scope = " Run-wide: [params] only." if param.run_wide else ""
        lines.append(f"{param.name} = {_toml(param.default)}")
        lines += textwrap.wrap(f"{param.doc}.{limits}{choices}{scope}", 92,
                               initial_indent="#   ", subsequent_indent="#   ")
    return "\n".join(lines) + "\n"


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return f"{value:g}" if isinstance(value, float) else str(value)
