"""Plans: which cells a run measures, written in TOML and expanded into concrete cells. This
module is the reference of the TOML and the plan's types; parse.py reads and validates a
plan, expand.py turns it into cells against the drivers.

```toml
name = "default"                  # optional; default: the file's stem
description = "..."               # optional

[datasets]                        # optional: how to make the datasets the groups read, as
                                  # `serbench data` arguments (without --name; a list: several
                                  # generators into one directory); `serbench reproduce` makes
                                  # the missing ones
tpch-sf1 = "tpch --sf 1"
small = ["org --n 4000", "trade --n 1000"]

[params]                          # defaults for every group
dataset = "default"               # a directory under the data root, or an absolute path
n = [100, 1000, 10000]            # objects per read; capped at the dataset's object count
page_size = 262144
warmups = 1
warmup_ms = 0                     # and warm-ups go on until this long has passed (JMH's
                                  # time-based warm-up: a JIT compiles after time, not count)
warmup_max_ms = 0                 # and, in a driver with a JIT, on while it still compiles
                                  # (over 2 % of the last 100 ms of warm-ups; a network
                                  # cell: of its last repetition, on any node), up to this long
repetitions = 1                   # measured repetitions per round (more when one is shorter
                                  # than min_sample_ms)
rounds_min = 5                    # every cell is measured in rounds, interleaved with the
rounds_max = 8                    # cells it is compared with (runner.py, rounds.py): at least
ci_target = 0.03                  # rounds_min (capped by rounds_max), then until its median's
time_cap_s = 8                    # 95 % interval is within ci_target of it, or rounds_max, or
                                  # its comparison set has run time_cap_s after its first round
min_sample_ms = 5                 # a round's repetitions last at least this long together
                                  # (these defaults are the default plan's, chosen by its runs
                                  # on a 2-core VM: see plans/default.toml)
cold = true                       # evict data and index files before every repetition
threads = [1, 2]                  # read_par thread counts (other tasks run one thread)
modes = ["seq", "rand"]           # read_par over a range or over the random id list
budget_bytes = [4194304]          # sort_dedup memory budgets (bytes)
iterations = 100                  # micro: passes over the n objects per repetition
forks = 1                         # micro: its rounds, each in a fresh driver process of its
                                  # own (JMH's forks); 0 = rounds in the method x model's
                                  # shared process, as many as the rules below say
read_forks = 0                    # read tasks and their raw floor: likewise (default: the
                                  # shared process); samples pooled, so a process's luck in
                                  # page placement and neighbours weighs 1/read_forks
floor_rounds = 0                  # reads and writes: every round followed in the same process
                                  # by the floor of the same file, so every repetition has a
                                  # floor timed under the same machine state, and at least this
                                  # many rounds (0 = the floor only as its own cell)
buffers = ["fresh", "reused"]     # micro: a new output buffer per object, or one reused
sweep_k = [100, 1000, 10000]      # micro on `arrays`: objects of k strings and k ints
seed = 42                         # read_seq start and read_rand id list
timeout_s = 600                   # per driver request
pin_cpus = ""                     # taskset CPU list for the drivers; "" = no pinning
raw = true                        # add the `raw` floor beside every read, write and sort
servers = 4                       # net_fetch: server nodes (n is objects per server)
sources = ["ram", "disk", "decode"]  # net_fetch: served from native objects, from stored
                                  # pages, or from stored pages and decoded by the client
tree_depth = 3                    # net_aggregate, net_sort_merge: levels of the binary tree
                                  # (3: 7 nodes); the sort's n is objects per node
densities = [0.001, 0.01]         # net_aggregate: one cell per density, each node's vector
                                  # thinned to it (at most the dataset's); [] = as stored
net_page_bytes = 20971520         # network tasks: the network page (the studies' 20 MiB)
net_frame_bytes = 67108864        # network tasks: the largest frame a data node sends or
                                  # accepts from a peer (64 KiB-1 GiB, at least
                                  # net_page_bytes): a guard against a corrupt length, and
                                  # the cap on one object, which travels alone in a frame
                                  # when larger than a network page (an object above it
                                  # fails its cell naming this key); no part of a cell's
                                  # identity (it changes no measured work)
network = "1gbit"                 # network tasks: each node in its own namespace on a link
                                  # shaped to this rate (tbf; no delay emulation), "none"
                                  # (namespaces, unshaped) or "loopback" (no namespaces);
                                  # without root: loopback, said in every cell
networks = ["1gbit", "none"]      # network tasks: a sweep instead, one cell per link setting,
                                  # each named in its setting (network=1gbit); [] = `network`
cluster = ""                      # a Dask scheduler (tcp://HOST:PORT or tls://...) whose
                                  # workers run every cell: each batch of single-machine
                                  # cells on one worker, a network cell's nodes one per
                                  # worker (the network key then does not apply);
                                  # `run --cluster` wins
cluster_workers = []              # the workers used, by name: units on any of them, a
                                  # network cell's node i on the (i //
                                  # cluster_nodes_per_worker)-th in order; [] = all, by name
cluster_nodes_per_worker = 1
cluster_tls_ca = ""               # with tls://: certificate files for Dask's Security (else
cluster_tls_cert = ""             # SERBENCH_CLUSTER_TLS_CA/_CERT/_KEY, else Dask's config)
cluster_tls_key = ""              # (the cluster keys are run-wide: [params] only)

[[group]]                         # one or more; each is a product of its lists
tasks = ["write", "read_seq", "read_rand"]   # any of tasks.TASKS ("*": these three)
models = "*"                      # "*" or a list; likewise methods, languages, depths, variants
methods = "*"                     # "*" = every method the driver's info offers
languages = "*"                   # "*" = every driver found
depths = "*"                      # "*" = every depth the method offers
variants = "*"                    # "*" = the default variant "" and every listed variant
roles = {server = "java"}         # network tasks: the language of a role's nodes (net_fetch:
                                  # server, client; trees: leaf, middle, root), the others
                                  # the cell's; shared methods only; named in the setting;
                                  # a list, e.g. server = ["java", "cpp"], gives the role's
                                  # nodes those languages in turn (server0 java, server1 cpp,
                                  # server2 java, ...)
# any key of [params] may be overridden inside a group
```

`load_plan` validates everything that can be checked without drivers (errors name the plan file
and the key); `expand` resolves "*" against the drivers' `info` and the datasets, and returns
the cells in run order. A cell outside a driver's capability matrix is kept with the reason, so
the run records it as `unsupported` rather than silently dropping it.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..cell import DEPTHS, LANGUAGES, NET_FRAME_DEFAULT, RAW  # noqa: F401 (re-exported ids)

NET_FETCH_SOURCES = ("ram", "disk", "decode")
# net_frame_bytes's bounds: every driver checks the same (PROTOCOL.md 10.2); far below what a
# Java array or a frame's u32 length holds
NET_FRAME_MIN = 64 << 10
NET_FRAME_MAX = 1 << 30
# the nodes' links: loopback (no namespaces), none (namespaces, unshaped veth) or a tbf rate
NETWORK = re.compile(r"^(loopback|none|\d+(\.\d+)?(kbit|mbit|gbit))$")
DEFAULT_TASKS = ("write", "read_seq", "read_rand")
PAR_MODES = ("seq", "rand")
BUFFERS = ("fresh", "reused")
ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
CPU_LIST = re.compile(r"^\d+(-\d+)?(,\d+(-\d+)?)*$")
EMBEDDED = ("default", "full", "figures", "floors", "network", "link_speed", "reproduce",
            "reproduce_quick")
# the `serbench data` generators a plan's [datasets] may name
DATA_GENERATORS = ("tpch", "tweet", "sparse", "trade", "org", "arrays")
DATASET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


class PlanError(ValueError):
    pass


@dataclass(frozen=True)
class Params:
    dataset: str = "default"
    n: tuple[int, ...] = (100, 1000, 10000)
    page_size: int = 262144
    warmups: int = 1
    warmup_ms: int = 0
    warmup_max_ms: int = 0
    repetitions: int = 1
    rounds_min: int = 5
    rounds_max: int = 8
    ci_target: float = 0.03
    time_cap_s: float = 8.0
    min_sample_ms: float = 5.0
    cold: bool = True
    threads: tuple[int, ...] = (1, 2)
    modes: tuple[str, ...] = PAR_MODES
    budget_bytes: tuple[int, ...] = (4194304,)
    iterations: int = 100
    forks: int = 1
    read_forks: int = 0
    floor_rounds: int = 0
    buffers: tuple[str, ...] = BUFFERS
    sweep_k: tuple[int, ...] = (100, 1000, 10000)
    seed: int = 42
    timeout_s: float = 600.0
    pin_cpus: str = ""
    raw: bool = True
    servers: int = 4
    sources: tuple[str, ...] = NET_FETCH_SOURCES
    tree_depth: int = 3
    densities: tuple[float, ...] = ()
    net_page_bytes: int = 20 << 20
    net_frame_bytes: int = NET_FRAME_DEFAULT
    network: str = "1gbit"
    networks: tuple[str, ...] = ()
    cluster: str = ""
    cluster_workers: tuple[str, ...] = ()
    cluster_nodes_per_worker: int = 1
    cluster_tls_ca: str = ""
    cluster_tls_cert: str = ""
    cluster_tls_key: str = ""


CLUSTER_KEYS = ("cluster", "cluster_workers", "cluster_nodes_per_worker", "cluster_tls_ca",
                "cluster_tls_cert", "cluster_tls_key")
CLUSTER_ADDRESS = re.compile(r"^(tcp|tls)://(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}$")


@dataclass(frozen=True)
class Group:
    number: int  # 1-based position in the plan, for messages
    tasks: tuple[str, ...]
    models: tuple[str, ...] | None  # None means "*"
    methods: tuple[str, ...] | None
    languages: tuple[str, ...] | None
    depths: tuple[str, ...] | None
    variants: tuple[str, ...] | None
    params: Params
    # (role, languages): network nodes' languages, a role's nodes taking them in turn
    roles: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class Plan:
    name: str
    description: str
    source: str  # file path or "embedded:<name>"
    toml: str
    params: Params
    groups: tuple[Group, ...]
    datasets: dict[str, tuple[str, ...]] = field(default_factory=dict)  # name -> data commands


def dataset_dir(name: str, data_root: Path) -> Path:
    path = Path(name)
    return path if path.is_absolute() else data_root / name


def summary(plan: Plan) -> dict:
    """The plan's own parameters, as stored with a run."""
    return {"name": plan.name, "source": plan.source, "params": asdict(plan.params),
            "groups": [asdict(g) for g in plan.groups]}
