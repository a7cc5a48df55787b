"""Plans: which cells a run measures, written in TOML and expanded into concrete cells.

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
                                  # (over 2 % of the last 100 ms of warm-ups), up to this long
repetitions = 1                   # measured repetitions per round (more when one is shorter
                                  # than min_sample_ms)
rounds_min = 5                    # every cell is measured in rounds, interleaved with the
rounds_max = 30                   # cells it is compared with (runner.py, rounds.py); rounds go
ci_target = 0.03                  # on until its median's 95 % interval is within ci_target
time_cap_s = 30                   # of it (at least rounds_min, capped by rounds_max), or
                                  # rounds_max, or its comparison set has run time_cap_s s
min_sample_ms = 2                 # a round's repetitions last at least this long together
cold = true                       # evict data and index files before every repetition
threads = [1, 2]                  # read_par thread counts (other tasks run one thread)
modes = ["seq", "rand"]           # read_par over a range or over the random id list
budget_bytes = [4194304]          # sort_dedup memory budgets (bytes)
iterations = 100                  # micro: passes over the n objects per repetition
forks = 1                         # micro: fresh driver processes of its own per cell (JMH's
                                  # forks); 0 = in the method x model's shared process
read_forks = 0                    # read tasks and their raw floor: likewise (default: the
                                  # shared process); samples pooled, so a process's luck in
                                  # page placement and neighbours weighs 1/read_forks
floor_rounds = 0                  # reads and writes: the repetitions in this many rounds,
                                  # each followed in the same process by the floor of the same
                                  # file, so every repetition has a floor timed under the same
                                  # machine state (0 = the floor only as its own cell)
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
network = "1gbit"                 # network tasks: each node in its own namespace on a link
                                  # shaped to this rate (tbf; no delay emulation), "none"
                                  # (namespaces, unshaped) or "loopback" (no namespaces);
                                  # without root: loopback, said in every cell
networks = ["1gbit", "none"]      # network tasks: a sweep instead, one cell per link setting,
                                  # each named in its setting (network=1gbit); [] = `network`
cluster = ""                      # network tasks: a Dask scheduler (tcp://HOST:PORT or
                                  # tls://...) whose workers run the nodes instead (the
                                  # network key then does not apply); `run --cluster` wins
cluster_workers = []              # the workers nodes go to, by name, in order (node i on
                                  # the (i // cluster_nodes_per_worker)-th); [] = all, by name
cluster_nodes_per_worker = 1
cluster_tls_ca = ""               # with tls://: certificate files for Dask's Security (else
cluster_tls_cert = ""             # SERBENCH_CLUSTER_TLS_CA/_CERT/_KEY, else Dask's config)
cluster_tls_key = ""              # (the cluster keys are run-wide: [params] only)

[[group]]                         # one or more; each is a product of its lists
tasks = ["write", "read_seq", "read_rand"]   # any of PROTOCOL_TASKS
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
import tomllib
from dataclasses import asdict, dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Callable

from .models import MODELS

LANGUAGES = ("rust", "cpp", "java")
PROTOCOL_TASKS = ("write", "read_seq", "read_rand", "read_par", "sort_dedup", "memory", "micro",
                  "sizes")
# tasks whose cells span several node processes (PROTOCOL.md 10): `info.net_tasks`
NET_TASKS = ("net_fetch", "net_aggregate", "net_sort_merge")
NET_FETCH_SOURCES = ("ram", "disk", "decode")
# the roles of each network task's nodes, in the order a cell's setting names them; a group's
# `roles` gives some of them another language than the cell's (shared methods only)
NET_ROLES = {"net_fetch": ("server", "client"), "net_aggregate": ("leaf", "middle", "root"),
             "net_sort_merge": ("leaf", "middle", "root")}
# the nodes' links: loopback (no namespaces), none (namespaces, unshaped veth) or a tbf rate
NETWORK = re.compile(r"^(loopback|none|\d+(\.\d+)?(kbit|mbit|gbit))$")
DEFAULT_TASKS = ("write", "read_seq", "read_rand")
READ_TASKS = ("read_seq", "read_rand", "read_par")  # the raw floor runs beside these
HARNESS_TASKS = ("sizes",)  # computed by the harness from the method's file (PROTOCOL 5.5)
# tasks that decode into native objects whatever the method offers
TASK_DEPTHS = {"sort_dedup": ("materialize",), "memory": ("materialize",)}
WHOLE_DATASET_TASKS = ("write", "sort_dedup", "sizes")  # n is the dataset's object count
PAR_MODES = ("seq", "rand")
BUFFERS = ("fresh", "reused")
DEPTHS = ("materialize", "access", "key")
RAW = "raw"
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
    rounds_max: int = 30
    ci_target: float = 0.03
    time_cap_s: float = 30.0
    min_sample_ms: float = 2.0
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


@dataclass(frozen=True)
class Cell:
    """One measured unit; `identity` is what compare matches across runs."""

    language: str
    task: str
    model: str
    method: str
    depth: str  # "" for write and raw, which decode nothing
    variant: str  # for raw: the method whose file is read
    setting: str  # the task's own setting (read_par mode, budget, micro buffer and k), or ""
    dataset: str  # label: the directory name
    dataset_dir: Path
    n: int
    threads: int
    page_size: int
    cold: bool
    warmups: int
    repetitions: int
    seed: int
    timeout_s: float
    pin_cpus: str
    unsupported: str | None = None  # why the capability matrix excludes it
    iterations: int = 1  # micro: passes per repetition
    forks: int = 0  # fresh processes of its own the cell runs in (0: the group's)
    warmup_ms: int = 0  # warm-ups go on at least this long (so their count may exceed warmups)
    floor_rounds: int = 0  # reads: rounds alternating with the raw read of the same file
    warmup_max_ms: int = 0  # a JIT's warm-ups go on while it compiles, up to this long
    net_page_bytes: int = 0  # network tasks: the network page
    network: str = ""  # network tasks: the nodes' links (NETWORK)
    # rounds (rounds.py): how many, and when a cell has been measured enough
    rounds_min: int = 5
    rounds_max: int = 30
    ci_target: float = 0.03
    time_cap_s: float = 30.0
    min_sample_ms: float = 2.0
    cell_id: int = 0

    @property
    def identity(self) -> tuple:
        return (self.language, self.task, self.model, self.method, self.depth, self.variant,
                self.setting, self.dataset, self.n, self.threads, self.page_size, self.cold)

    @property
    def settings(self) -> dict:
        return setting_values(self.setting)

    @property
    def roles(self) -> dict[str, tuple[str, ...]]:
        """The network roles whose nodes run another language than the cell's, each with the
        languages its nodes take in turn."""
        return parse_roles(self.settings.get("roles", ""))

    @property
    def group_key(self) -> tuple:
        """Cells sharing one fresh driver process."""
        return (self.dataset_dir, self.model, self.page_size, self.language, self.method)

    def plan_params(self) -> dict:
        params = {"warmups": self.warmups, "warmup_ms": self.warmup_ms,
                  "warmup_max_ms": self.warmup_max_ms,
                  "repetitions": self.repetitions, "floor_rounds": self.floor_rounds,
                  "rounds_min": self.rounds_min, "rounds_max": self.rounds_max,
                  "ci_target": self.ci_target, "time_cap_s": self.time_cap_s,
                  "min_sample_ms": self.min_sample_ms,
                  "seed": self.seed,
                  "timeout_s": self.timeout_s, "pin_cpus": self.pin_cpus}
        if self.network:
            params.update(net_page_bytes=self.net_page_bytes, network=self.network)
        return params


# -- loading and validation ------------------------------------------------------------------

def load_plan(path: Path | None = None) -> Plan:
    """A plan file, or the embedded default when no path is given."""
    if path is None:
        return load_embedded("default")
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise PlanError(f"{path}: cannot read the plan: {exc.strerror}") from None
    return parse_plan(text, str(path), Path(path).stem)


def load_embedded(name: str) -> Plan:
    if name not in EMBEDDED:
        raise PlanError(f"no embedded plan {name!r}; embedded plans: {', '.join(EMBEDDED)}")
    text = resources.files("serbench").joinpath("plans", f"{name}.toml").read_text()
    return parse_plan(text, f"embedded:{name}", name)


def parse_plan(text: str, source: str, default_name: str) -> Plan:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"{source}: TOML syntax error: {exc}") from None
    check = _Checker(source, text)
    check.keys(doc, "", {"name", "description", "datasets", "params", "group"})
    name = check.string(doc.get("name", default_name), "name")
    if not ID_PATTERN.match(name.replace("-", "_")):
        raise check.error("name", f"must be a short id (letters, digits, _ or -), got {name!r}")
    description = check.string(doc.get("description", ""), "description")
    params = check.params(check.table(doc.get("params", {}), "params"), Params(), "params")
    groups = doc.get("group")
    if not isinstance(groups, list) or not groups:
        raise check.error("group", "at least one [[group]] table is required")
    parsed = tuple(check.group(g, i + 1, params) for i, g in enumerate(groups))
    datasets = check.datasets(check.table(doc.get("datasets", {}), "datasets"))
    return Plan(name, description, source, text, params, parsed, datasets)


PARAM_TYPES = {field_.name: field_.type for field_ in Params.__dataclass_fields__.values()}
GROUP_LISTS = {"tasks": None, "models": MODELS, "methods": None, "languages": LANGUAGES,
               "depths": DEPTHS, "variants": None}


class _Checker:
    """Validation with messages of the form `<plan>: <key path>: <problem>`."""

    def __init__(self, source: str, text: str):
        self.source = source
        self.text = text

    def error(self, key: str, problem: str) -> PlanError:
        return PlanError(f"{self.source}: {key}: {problem}")

    def keys(self, table: dict, where: str, allowed: set[str]) -> None:
        for key in table:
            if key not in allowed:
                path = f"{where}.{key}" if where else key
                raise self.error(path, f"unknown key; allowed: {', '.join(sorted(allowed))}")

    def table(self, value, key: str) -> dict:
        if not isinstance(value, dict):
            raise self.error(key, f"must be a table, got {_kind(value)}")
        return value

    def string(self, value, key: str) -> str:
        if not isinstance(value, str):
            raise self.error(key, f"must be a string, got {_kind(value)}")
        return value

    def integer(self, value, key: str, minimum: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"must be an integer, got {_kind(value)}")
        if value < minimum:
            raise self.error(key, f"must be >= {minimum}, got {value}")
        return value

    def datasets(self, table: dict) -> dict[str, tuple[str, ...]]:
        """Each dataset's `serbench data` commands, their generator checked here (their
        options are checked by `serbench data` itself when they run)."""
        recipes = {}
        for name, value in table.items():
            path = f"datasets.{name}"
            if not DATASET_NAME.match(name) or ".." in name:
                raise self.error(path, "a dataset name is one directory: letters, digits, "
                                       "_ . - only")
            commands = value if isinstance(value, list) else [value]
            if not commands:
                raise self.error(path, "must give at least one `serbench data` command")
            for command in commands:
                words = self.string(command, path).split()
                if not words or words[0] not in DATA_GENERATORS:
                    raise self.error(path, f"{command!r} does not start with a generator of "
                                           f"`serbench data`: {', '.join(DATA_GENERATORS)}")
            recipes[name] = tuple(commands)
        return recipes

    def params(self, table: dict, base: Params, where: str) -> Params:
        values = {}
        for key, value in table.items():
            path = f"{where}.{key}"
            if key not in PARAM_TYPES:
                raise self.error(path, f"unknown key; allowed: {', '.join(PARAM_TYPES)}")
            values[key] = self.param(key, value, path)
        return replace(base, **values)

    def param(self, key: str, value, path: str):
        if key in ("n", "threads", "budget_bytes", "sweep_k"):
            items = value if isinstance(value, list) else [value]
            if not items:
                raise self.error(path, f"must name at least one {key}")
            minimum = {"budget_bytes": 4096}.get(key, 1)
            return tuple(sorted({self.integer(v, path, minimum) for v in items}))
        if key in ("modes", "buffers", "sources"):
            known = {"modes": PAR_MODES, "buffers": BUFFERS, "sources": NET_FETCH_SOURCES}[key]
            items = value if isinstance(value, list) else [value]
            if not items or any(v not in known for v in items):
                raise self.error(path, f"must be a non-empty list of {', '.join(known)}, "
                                       f"got {value!r}")
            return tuple(dict.fromkeys(items))
        if key == "densities":
            items = value if isinstance(value, list) else [value]
            if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1
                   for v in items):
                raise self.error(path, f"must be a list of densities in (0, 1], got {value!r}")
            return tuple(sorted({float(v) for v in items}))
        if key in ("cold", "raw"):
            if not isinstance(value, bool):
                raise self.error(path, f"must be true or false, got {_kind(value)}")
            return value
        if key in ("timeout_s", "time_cap_s", "min_sample_ms"):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                unit = "milliseconds" if key == "min_sample_ms" else "seconds"
                raise self.error(path, f"must be a positive number of {unit}, got {value!r}")
            return float(value)
        if key == "ci_target":
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not 0 < value < 1:
                raise self.error(path, "must be a share of the median in (0, 1), e.g. 0.03, "
                                       f"got {value!r}")
            return float(value)
        if key == "dataset":
            if not self.string(value, path):
                raise self.error(path, "must not be empty")
            return value
        if key == "network":
            if not isinstance(value, str) or not NETWORK.match(value):
                raise self.error(path, "must be loopback, none (unshaped namespaces) or a link "
                                       f"rate such as 1gbit or 100mbit, got {value!r}")
            return value
        if key == "networks":
            if not isinstance(value, list) or len(set(map(str, value))) != len(value) or any(
                    not isinstance(v, str) or not NETWORK.match(v) for v in value):
                raise self.error(path, "must be a list of distinct link settings (loopback, "
                                       f"none or a rate such as 10gbit), got {value!r}")
            return tuple(value)
        if key == "cluster":
            if self.string(value, path) and not CLUSTER_ADDRESS.match(value):
                raise self.error(path, "must be a Dask scheduler address such as "
                                       f"tcp://10.0.0.1:8786 or tls://host:8786, got {value!r}")
            return value
        if key == "cluster_workers":
            if not isinstance(value, list) or any(not isinstance(v, str) or not v for v in value) \
                    or len(set(value)) != len(value):
                raise self.error(path, f"must be a list of distinct worker names, got {value!r}")
            return tuple(value)
        if key in ("cluster_tls_ca", "cluster_tls_cert", "cluster_tls_key"):
            return self.string(value, path)
        if key == "pin_cpus":
            if self.string(value, path) and not CPU_LIST.match(value):
                raise self.error(path, f"must be a CPU list like \"0\" or \"0-1,4\", got {value!r}")
            return value
        minimum = {"page_size": 64, "warmups": 0, "repetitions": 1, "iterations": 1, "forks": 0,
                   "rounds_min": 1, "rounds_max": 1,
                   "read_forks": 0, "floor_rounds": 0, "seed": 0, "warmup_ms": 0,
                   "warmup_max_ms": 0, "servers": 1, "net_page_bytes": 65536, "tree_depth": 1,
                   "cluster_nodes_per_worker": 1}[key]
        number = self.integer(value, path, minimum)
        if key == "page_size" and number >= 2**31:
            raise self.error(path, f"must be below 2^31, got {number}")
        if key == "tree_depth" and number > 6:
            raise self.error(path, f"must be at most 6 (63 nodes), got {number}")
        if key == "net_page_bytes" and number > 64 << 20:
            raise self.error(path, f"must be at most 64 MiB (the frame limit), got {number}")
        if key == "seed" and number >= 2**63:
            raise self.error(path, f"must fit in 63 bits, got {number}")
        return number

    def group(self, raw, number: int, defaults: Params) -> Group:
        where = f"group[{number}]"
        table = self.table(raw, where)
        self.keys(table, where, set(GROUP_LISTS) | set(PARAM_TYPES) | {"roles"})
        if "tasks" not in table:
            raise self.error(f"{where}.tasks", "required")
        lists = {key: self.id_list(table.get(key, "*"), f"{where}.{key}", known)
                 for key, known in GROUP_LISTS.items()}
        if RAW in (lists["methods"] or ()):
            raise self.error(f"{where}.methods", "the raw floor is not a method to list; "
                                                 "it is added by raw = true")
        tasks = lists.pop("tasks")
        if tasks is None:
            tasks = DEFAULT_TASKS
        for task in tasks:
            if task not in PROTOCOL_TASKS + NET_TASKS:
                raise self.error(f"{where}.tasks", f"unknown task {task!r}; known: "
                                                   f"{', '.join(PROTOCOL_TASKS + NET_TASKS)}")
        param_table = {k: v for k, v in table.items() if k in PARAM_TYPES}
        for key in CLUSTER_KEYS:
            if key in param_table:
                raise self.error(f"{where}.{key}", "a run-wide key: set it in [params]")
        params = self.params(param_table, defaults, where)
        if "sort_dedup" in tasks:
            self.check_sort_budget(params, where)
        roles = ()
        if "roles" in table:  # named by its line, as the expansion's role errors are
            line = _line_of(self.text, number, "roles")
            roles = self.roles(table["roles"], f"{line}{where}.roles", tasks)
        return Group(number, tasks, params=params, roles=roles, **lists)

    def roles(self, value, path: str,
              tasks: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """`{role = "language"}` or `{role = ["language", ...]}` for the group's network
        tasks, in the tasks' role order."""
        table = self.table(value, path)
        others = [t for t in tasks if t not in NET_ROLES]
        if others:
            raise self.error(path, f"gives network nodes their languages; {', '.join(others)} "
                                   "runs no nodes: put it in a group of its own")
        known = tuple(dict.fromkeys(role for task in tasks for role in NET_ROLES[task]))
        for role in table:
            if role not in known:
                raise self.error(path, f"unknown role {role!r}; the roles of "
                                       f"{', '.join(tasks)}: {', '.join(known)}")
        return tuple((role, self.role_languages(table[role], f"{path}.{role}"))
                     for role in known if role in table)

    def role_languages(self, value, path: str) -> tuple[str, ...]:
        """A role's language, or its distinct languages in the order its nodes take them."""
        languages = value if isinstance(value, list) else [value]
        if not languages or len(set(map(str, languages))) != len(languages):
            raise self.error(path, f"must be a language or a list of distinct languages, "
                                   f"got {value!r}")
        for language in languages:
            if language not in LANGUAGES:
                raise self.error(path, f"unknown language {language!r}; known: "
                                       f"{', '.join(LANGUAGES)}")
        return tuple(languages)

    def check_sort_budget(self, params: Params, where: str) -> None:
        """A merge holds a page of each of two runs and of its output (PROTOCOL.md 5.2); a
        smaller budget would not be kept, only degrade into many tiny runs and passes."""
        least = 3 * params.page_size
        if min(params.budget_bytes) < least:
            raise self.error(f"{where}.budget_bytes",
                             f"{min(params.budget_bytes)} is below three pages of page_size "
                             f"{params.page_size} (a merge reads a page of two runs and writes "
                             f"one): give at least {least} or a smaller page_size")

    def id_list(self, value, path: str, known: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value == "*":
            return None
        if not isinstance(value, list) or not value:
            raise self.error(path, f"must be \"*\" or a non-empty list of ids, got {value!r}")
        for item in value:
            if not isinstance(item, str):
                raise self.error(path, f"ids must be strings, got {_kind(item)}")
            if known is not None and item not in known:
                raise self.error(path, f"unknown id {item!r}; known: {', '.join(known)}")
            if known is None and item and not ID_PATTERN.match(item):
                raise self.error(path, f"{item!r} is not a snake_case id")
        return tuple(dict.fromkeys(value))


def _kind(value) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


# -- expansion -------------------------------------------------------------------------------

Counter = Callable[[Path, str], int]  # (dataset directory, model) -> object count


def dataset_dir(name: str, data_root: Path) -> Path:
    path = Path(name)
    return path if path.is_absolute() else data_root / name


@dataclass
class _Expansion:
    plan: Plan
    infos: dict[str, dict]
    count: Counter
    data_root: Path
    cells: dict[tuple, Cell] = field(default_factory=dict)
    origin: dict[tuple, int] = field(default_factory=dict)

    def add(self, cell: Cell, group: Group) -> None:
        key = cell.identity
        previous = self.cells.get(key)
        if previous is None:
            self.cells[key] = cell
            self.origin[key] = group.number
        elif previous != cell:
            raise PlanError(
                f"{self.plan.source}: group[{self.origin[key]}] and group[{group.number}] both "
                f"make cell {cell.language}/{cell.method}/{cell.model}/{cell.task}/n={cell.n} "
                "with different parameters; give them different page_size, cold or n")


def expand(plan: Plan, infos: dict[str, dict], count: Counter, data_root: Path,
           strict: bool = True) -> list[Cell]:
    """Concrete cells in run order, numbered from 1. Not strict (a plan that names what some
    machines' drivers lack, as reproduce's names every study's method): a language without a
    driver is left out, and what no driver offers is kept as unsupported cells."""
    ex = _Expansion(plan, infos, count, data_root)
    languages = {group.number: (_languages(plan, group, infos) if strict else
                                tuple(lang for lang in group.languages or sorted(infos)
                                      if lang in infos))
                 for group in plan.groups}
    for group in plan.groups:
        if strict:
            _check_offered(plan, group, [infos[lang] for lang in languages[group.number]])
            _check_roles(plan, group, infos)
    for group in plan.groups:
        for language in languages[group.number]:
            for model in group.models or MODELS:
                _expand_model(ex, group, language, model)
    ordered = sorted(ex.cells.values(), key=_run_order)
    return [replace(cell, cell_id=i + 1) for i, cell in enumerate(ordered)]


def _languages(plan: Plan, group: Group, infos: dict[str, dict]) -> tuple[str, ...]:
    if group.languages is None:
        if not infos:
            raise PlanError(f"{plan.source}: group[{group.number}]: no driver found; "
                            "run `serbench build`")
        return tuple(sorted(infos))
    for language in group.languages:
        if language not in infos:
            raise PlanError(f"{plan.source}: group[{group.number}].languages: no {language} "
                            "driver found; run `serbench build` or set "
                            f"SERBENCH_DRIVER_{language.upper()}")
    return group.languages


def _check_offered(plan: Plan, group: Group, infos: list[dict]) -> None:
    """A task, model, method, depth or variant the group names that none of its drivers
    offers is a mistake in the plan (a typo, a driver not built), not a run of cells all
    `unsupported`: refused before anything runs, naming the plan's line."""
    methods = [spec for info in infos for name, spec in info["methods"].items()
               if group.methods is None or name in group.methods]
    offered = {
        "tasks": {t for info in infos for t in (*info["tasks"], *info.get("net_tasks", ()),
                                                *HARNESS_TASKS)},
        "models": {m for info in infos for m in info["models"]},
        "methods": {m for info in infos for m in info["methods"]},
        "depths": {d for spec in methods for d in spec["depths"]},
        "variants": {"", *(v for spec in methods for v in spec["variants"])},
    }
    languages = ", ".join(info["language"] for info in infos)
    for key, known in offered.items():
        missing = [v for v in getattr(group, key) or () if v not in known]
        if missing:
            raise PlanError(
                f"{plan.source}: {_line_of(plan.toml, group.number, key)}group[{group.number}]."
                f"{key}: {', '.join(map(repr, missing))} offered by no driver of this group "
                f"({languages}; offered: {', '.join(sorted(known - {''})) or 'none'})")


def _check_roles(plan: Plan, group: Group, infos: dict[str, dict]) -> None:
    """Each of a role's languages must have a driver whose nodes run the group's tasks that
    have the role and that offers every method the group names (the same id: a shared
    format), and a role's nodes must be enough for each of its languages to run one."""
    for role, languages in group.roles:
        where = f"{plan.source}: {_line_of(plan.toml, group.number, 'roles')}" \
                f"group[{group.number}].roles.{role}"
        tasks = [t for t in group.tasks if role in NET_ROLES[t]]
        for task in tasks:
            nodes = role_nodes(task, group.params)[role]
            if 0 < nodes < len(languages):
                raise PlanError(f"{where}: {len(languages)} languages for {task}'s {nodes} "
                                f"{role} node{'s' * (nodes > 1)}: each language runs a node")
        for language in languages:
            info = infos.get(language)
            if info is None:
                raise PlanError(f"{where}: no {language} driver found; run `serbench build`")
            for task in tasks:
                if task not in info.get("net_tasks", ()):
                    raise PlanError(f"{where}: the {language} driver's nodes do not run {task}")
            lacking = [m for m in group.methods or () if m not in info["methods"]]
            if lacking:
                raise PlanError(f"{where}: the {language} driver has no {', '.join(lacking)}; "
                                "only methods both languages offer (shared formats) mix "
                                "languages")


def _line_of(toml: str, number: int, key: str) -> str:
    """`line L: ` of `key` inside the number-th [[group]], or "" when it cannot be found."""
    groups = 0
    for i, line in enumerate(toml.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("[[group]]"):
            groups += 1
        elif groups == number and re.match(rf"{key}\s*=", stripped):
            return f"line {i}: "
    return ""


def _expand_model(ex: _Expansion, group: Group, language: str, model: str) -> None:
    p = group.params
    directory = dataset_dir(p.dataset, ex.data_root)
    count = ex.count(directory, model)
    info = ex.infos[language]
    methods = group.methods or tuple(m for m in info["methods"] if m != RAW)
    ns = tuple(sorted({min(n, count) for n in p.n})) if count else ()

    def forks(task: str) -> int:
        return p.forks if task == "micro" else p.read_forks if task in READ_TASKS else 0

    def floor_rounds(task: str, method: str) -> int:
        paired = task in READ_TASKS or (task == "write" and task in _raw_floors(info))
        return p.floor_rounds if p.raw and paired and method != RAW else 0

    def cell(task, method, depth, variant, n, setting="", threads=1, unsupported=None) -> Cell:
        return Cell(language, task, model, method, depth, variant, setting, directory.name,
                    directory, n, threads, p.page_size, p.cold, p.warmups, p.repetitions,
                    p.seed, p.timeout_s, p.pin_cpus, unsupported,
                    p.iterations if task == "micro" else 1, forks(task), p.warmup_ms,
                    floor_rounds(task, method), p.warmup_max_ms, rounds_min=p.rounds_min,
                    rounds_max=p.rounds_max, ci_target=p.ci_target, time_cap_s=p.time_cap_s,
                    min_sample_ms=p.min_sample_ms)

    for method in methods:
        why = _method_unsupported(info, method, model)
        offered = tuple(info["methods"].get(method, {}).get("depths", ()))
        variants = group.variants or ("", *info["methods"].get(method, {}).get("variants", ()))
        for task in group.tasks:
            if task in NET_TASKS:
                _expand_net(ex, group, cell, language, task, model, method,
                            why or _task_unsupported(info, task), offered, count)
                continue
            task_why = why or _task_unsupported(info, task)
            depths = (("",) if task in ("write", "sizes")
                      else TASK_DEPTHS.get(task) or group.depths or offered or ("",))
            for variant in variants:
                variant_why = task_why or _variant_unsupported(info, method, variant)
                for depth in depths:
                    depth_why = variant_why or (depth and _depth_unsupported(info, method, depth))
                    for n, setting, threads in _task_points(task, model, p, ns, count):
                        ex.add(cell(task, method, depth, variant, n, setting, threads,
                                    depth_why or None), group)
        if p.raw and not why:
            for task in (t for t in group.tasks if t in READ_TASKS or t in _raw_floors(info)):
                raw_why = _method_unsupported(info, RAW, model) or _task_unsupported(info, task)
                for n, setting, threads in _task_points(task, model, p, ns, count):
                    ex.add(cell(task, RAW, "", method, n, setting, threads, raw_why), group)


def _raw_floors(info: dict) -> tuple[str, ...]:
    """The tasks beyond the reads whose floor the driver's raw method measures (info
    `methods.raw.floors`: `write`, `sort_dedup`)."""
    return tuple(info["methods"].get(RAW, {}).get("floors", ()))


def _expand_net(ex: _Expansion, group: Group, cell, language: str, task: str, model: str,
                method: str, why: str | None, offered: tuple[str, ...], count: int) -> None:
    """net_fetch: one cell per source and n (objects per server, capped so every server has
    its own objects); `decode` at each depth read, the others decode nothing. net_aggregate:
    one cell per density (the dataset's own vectors without `densities`), every node decoding
    its children's vectors. The group's roles of another language are named in the setting
    (`roles=server:java`), so a mixed cell is told apart from the language's own."""
    p = group.params
    roles = _cell_roles(group, task, language, p)
    if roles:
        why = why or _roles_unsupported(ex.infos, roles, task, method, model)
    named = f" roles={format_roles(roles)}" if roles else ""
    if task == "net_aggregate":
        nodes = 2 ** p.tree_depth - 1
        why = (why or (model != "sparse" and "net_aggregate sums sparse vectors")
               or ("materialize" not in offered and f"{method} does not materialize")
               or (count < nodes and f"the tree's {nodes} nodes need {nodes} sparse vectors, "
                                     f"the dataset holds {count}"))
        for density in p.densities or (None,):
            setting = (f"tree_depth={p.tree_depth}" + (f" density={density:g}" if density else "")
                       + named)
            made = cell(task, method, "materialize", "", 1, setting, 1, why or None)
            _add_links(ex, replace(made, net_page_bytes=p.net_page_bytes), p, group)
        return
    if task == "net_sort_merge":
        nodes = 2 ** p.tree_depth - 1
        why = why or ("materialize" not in offered and f"{method} does not materialize")
        for n in sorted({min(n, count // nodes) for n in p.n}) if count >= nodes else []:
            made = cell(task, method, "materialize", "", n, f"tree_depth={p.tree_depth}{named}",
                        1, why or None)
            _add_links(ex, replace(made, net_page_bytes=p.net_page_bytes), p, group)
        return
    per_server = count // p.servers
    ns = sorted({min(n, per_server) for n in p.n}) if per_server else []
    for source in p.sources:
        depths = (group.depths or offered[:1] or ("",)) if source == "decode" else ("",)
        for depth in depths:
            depth_why = why or (depth and depth not in offered
                                and f"{method} does not read at depth {depth}") \
                or (depth and _client_depth_unsupported(ex.infos, roles, method, depth))
            for n in ns:
                made = cell(task, method, depth, "", n,
                            f"source={source} servers={p.servers}{named}", 1, depth_why or None)
                _add_links(ex, replace(made, net_page_bytes=p.net_page_bytes), p, group)


def _add_links(ex: _Expansion, made: Cell, p: Params, group: Group) -> None:
    """The cell on the group's network, or a cell per link of a sweep (`networks`), told
    apart by its setting."""
    for network in p.networks:
        ex.add(replace(made, setting=f"{made.setting} network={network}", network=network),
               group)
    if not p.networks:
        ex.add(replace(made, network=p.network), group)


def _cell_roles(group: Group, task: str, language: str,
                params: Params) -> dict[str, tuple[str, ...]]:
    """The group's roles this task's cell has nodes of (a tree of depth 2 has no middle
    nodes) whose languages are not just the cell's own."""
    nodes = role_nodes(task, params)
    return {role: languages for role, languages in group.roles
            if nodes[role] and languages != (language,)}


def role_nodes(task: str, params: Params) -> dict[str, int]:
    """How many nodes of each role a task's cell has."""
    if task == "net_fetch":
        return {"server": params.servers, "client": 1}
    count = 2 ** params.tree_depth - 1
    leaves = (count + 1) // 2 if count > 1 else 0
    return {"leaf": leaves, "middle": count - leaves - 1, "root": 1}


def _roles_unsupported(infos: dict[str, dict], roles: dict[str, tuple[str, ...]], task: str,
                       method: str, model: str) -> str | None:
    for role, languages in roles.items():
        for language in languages:
            info = infos.get(language)
            if info is None:
                return f"{role}: no {language} driver"
            if task not in info.get("net_tasks", ()):
                return f"{role}: the {language} driver's nodes do not run task {task}"
            spec = info["methods"].get(method)
            if spec is None:
                return f"{role}: {method} is not shared with {language} (it has no {method})"
            if model not in spec["models"]:
                return f"{role}: {language} {method} does not support model {model}"
    return None


def _client_depth_unsupported(infos: dict[str, dict], roles: dict[str, tuple[str, ...]],
                              method: str, depth: str) -> str | None:
    for client in roles.get("client", ()):
        if depth not in infos[client]["methods"][method]["depths"]:
            return f"client: {client} {method} does not read at depth {depth}"
    return None


def format_roles(roles: dict[str, tuple[str, ...]]) -> str:
    """`{"server": ("java", "cpp"), "client": ("rust",)}` as a setting's value,
    `server:java+cpp,client:rust`: roles comma-separated, a role's languages in the order its
    nodes take them, joined by `+`."""
    return ",".join(f"{role}:{'+'.join(languages)}" for role, languages in roles.items())


def parse_roles(value: str) -> dict[str, tuple[str, ...]]:
    return {role: tuple(languages.split("+")) for role, languages in
            (item.split(":", 1) for item in value.split(","))} if value else {}


def _task_points(task: str, model: str, p: Params, ns: tuple[int, ...],
                 count: int) -> list[tuple[int, str, int]]:
    """(n, setting, threads) of every cell a task makes for one method and depth."""
    if task in WHOLE_DATASET_TASKS:
        budgets = p.budget_bytes if task == "sort_dedup" else (None,)
        return [(count, f"budget_bytes={b}" if b else "", 1) for b in budgets]
    if task == "read_par":
        return [(n, f"mode={mode}", t) for n in ns for mode in p.modes for t in p.threads]
    if task == "micro":
        # `arrays` is swept over k: inputs of n objects of k strings and k ints each
        ks = p.sweep_k if model == "arrays" else (None,)
        return [(n, f"buffer={b}" + (f" k={k}" if k else ""), 1)
                for n in ns for b in p.buffers for k in ks]
    return [(n, "", 1) for n in ns]


def setting_values(setting: str) -> dict:
    """`"buffer=fresh k=100"` as `{"buffer": "fresh", "k": 100}` (numbers as int)."""
    values = {}
    for item in setting.split():
        key, value = item.split("=", 1)
        values[key] = int(value) if value.isdigit() else value
    return values


def _method_unsupported(info: dict, method: str, model: str) -> str | None:
    spec = info["methods"].get(method)
    if spec is None:
        return f"the {info['language']} driver has no method {method}"
    if model not in spec["models"] or model not in info["models"]:
        return f"{info['language']} {method} does not support model {model}"
    return None


def _task_unsupported(info: dict, task: str) -> str | None:
    if task in NET_TASKS:
        if task not in info.get("net_tasks", ()):
            return f"the {info['language']} driver's nodes do not run task {task}"
        return None
    if task not in info["tasks"] and task not in HARNESS_TASKS:
        return f"the {info['language']} driver does not run task {task}"
    return None


def _variant_unsupported(info: dict, method: str, variant: str) -> str | None:
    if variant and variant not in info["methods"][method]["variants"]:
        return f"{info['language']} {method} has no variant {variant}"
    return None


def _depth_unsupported(info: dict, method: str, depth: str) -> str | None:
    if depth not in info["methods"][method]["depths"]:
        return f"{info['language']} {method} does not support depth {depth or '(none)'}"
    return None


TASK_ORDER = {task: i for i, task in enumerate(PROTOCOL_TASKS + NET_TASKS)}


def _run_order(cell: Cell) -> tuple:
    # files are written before they are read; the raw floor reads them after every method
    return (str(cell.dataset_dir), cell.model, cell.page_size,
            cell.method == RAW, cell.language, cell.method, TASK_ORDER[cell.task], cell.variant,
            cell.depth, cell.n, cell.setting, cell.threads, cell.cold)


def describe(cell: Cell) -> str:
    parts = [cell.language, cell.method + (f"[{cell.variant}]" if cell.variant else ""),
             cell.model, cell.task]
    if cell.depth:
        parts.append(cell.depth)
    extra = f" {cell.setting}" if cell.setting else ""
    extra += f" threads={cell.threads}" if cell.task == "read_par" else ""
    return "/".join(parts) + f" n={cell.n:,}{extra}"


def summary(plan: Plan) -> dict:
    """The plan's own parameters, as stored with a run."""
    return {"name": plan.name, "source": plan.source, "params": asdict(plan.params),
            "groups": [asdict(g) for g in plan.groups]}
