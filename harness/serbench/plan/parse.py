"""Reading a plan: the TOML parsed and everything checked that can be without drivers, each
error naming the plan file, its key (and line, where found) and the problem."""
from __future__ import annotations

import re
import tomllib
from dataclasses import replace
from importlib import resources
from pathlib import Path

from ..cell import DEPTHS, LANGUAGES, RAW
from ..models import MODELS
from ..tasks import TASKS
from .schema import (BUFFERS, CLUSTER_ADDRESS, CLUSTER_KEYS, CPU_LIST, DATA_GENERATORS,
                     DATASET_NAME, DEFAULT_TASKS, EMBEDDED, ID_PATTERN, NET_FETCH_SOURCES,
                     NET_FRAME_MAX, NET_FRAME_MIN, NETWORK, PAR_MODES, Group, Params, Plan,
                     PlanError)


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
            raise self.error(key, f"must be a table, got {kind(value)}")
        return value

    def string(self, value, key: str) -> str:
        if not isinstance(value, str):
            raise self.error(key, f"must be a string, got {kind(value)}")
        return value

    def integer(self, value, key: str, minimum: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"must be an integer, got {kind(value)}")
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
        params = replace(base, **values)
        if params.net_page_bytes > params.net_frame_bytes:
            key = "net_page_bytes" if "net_page_bytes" in values else "net_frame_bytes"
            raise self.error(f"{where}.{key}", f"net_page_bytes ({params.net_page_bytes}) must "
                                               "not exceed net_frame_bytes "
                                               f"({params.net_frame_bytes}), the largest frame "
                                               "a data node sends or accepts")
        return params

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
                raise self.error(path, f"must be true or false, got {kind(value)}")
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
                   "warmup_max_ms": 0, "servers": 1, "net_page_bytes": 65536,
                   "net_frame_bytes": NET_FRAME_MIN, "tree_depth": 1,
                   "cluster_nodes_per_worker": 1}[key]
        number = self.integer(value, path, minimum)
        if key == "page_size" and number >= 2**31:
            raise self.error(path, f"must be below 2^31, got {number}")
        if key == "tree_depth" and number > 6:
            raise self.error(path, f"must be at most 6 (63 nodes), got {number}")
        if key == "net_frame_bytes" and number > NET_FRAME_MAX:
            raise self.error(path, f"must be at most 1 GiB ({NET_FRAME_MAX}), got {number}")
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
            if task not in TASKS:
                raise self.error(f"{where}.tasks", f"unknown task {task!r}; known: "
                                                   f"{', '.join(TASKS)}")
        param_table = {k: v for k, v in table.items() if k in PARAM_TYPES}
        for key in CLUSTER_KEYS:
            if key in param_table:
                raise self.error(f"{where}.{key}", "a run-wide key: set it in [params]")
        params = self.params(param_table, defaults, where)
        for task in tasks:
            problem = TASKS[task].check_params and TASKS[task].check_params(params)
            if problem:
                key, _, text = problem.partition(": ")
                raise self.error(f"{where}.{key}", text)
        roles = ()
        if "roles" in table:  # named by its line, as the expansion's role errors are
            line = line_of(self.text, number, "roles")
            roles = self.roles(table["roles"], f"{line}{where}.roles", tasks)
        return Group(number, tasks, params=params, roles=roles, **lists)

    def roles(self, value, path: str,
              tasks: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """`{role = "language"}` or `{role = ["language", ...]}` for the group's network
        tasks, in the tasks' role order."""
        table = self.table(value, path)
        others = [t for t in tasks if TASKS[t].net is None]
        if others:
            raise self.error(path, f"gives network nodes their languages; {', '.join(others)} "
                                   "runs no nodes: put it in a group of its own")
        known = tuple(dict.fromkeys(role for task in tasks for role in TASKS[task].net.roles))
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

    def id_list(self, value, path: str, known: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value == "*":
            return None
        if not isinstance(value, list) or not value:
            raise self.error(path, f"must be \"*\" or a non-empty list of ids, got {value!r}")
        for item in value:
            if not isinstance(item, str):
                raise self.error(path, f"ids must be strings, got {kind(item)}")
            if known is not None and item not in known:
                raise self.error(path, f"unknown id {item!r}; known: {', '.join(known)}")
            if known is None and item and not ID_PATTERN.match(item):
                raise self.error(path, f"{item!r} is not a snake_case id")
        return tuple(dict.fromkeys(value))


def kind(value) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def line_of(toml: str, number: int, key: str) -> str:
    """`line L: ` of `key` inside the number-th [[group]], or "" when it cannot be found."""
    groups = 0
    for i, line in enumerate(toml.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("[[group]]"):
            groups += 1
        elif groups == number and re.match(rf"{key}\s*=", stripped):
            return f"line {i}: "
    return ""
