"""Reading a plan: the TOML parsed and everything checked that can be without drivers, each
error naming the plan file, its key (and line, where found) and the problem."""
from __future__ import annotations

import re
import tomllib
from dataclasses import replace
from importlib import resources
from pathlib import Path

from ..cell import DEPTHS, LANGUAGES, RAW
from ..ids import IdError, checked
from ..models import MODELS
from ..params import BY_NAME, CLUSTER_KEYS, ParamError, Params, check
from ..tasks import TASKS
from .schema import DATA_GENERATORS, EMBEDDED, ID_PATTERN, Group, Plan, PlanError


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
    text = resources.files("serbench.plan").joinpath("embedded", f"{name}.toml").read_text()
    return parse_plan(text, f"embedded:{name}", name)


def parse_plan(text: str, source: str, default_name: str) -> Plan:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"{source}: TOML syntax error: {exc}") from None
    check = _Checker(source, text)
    check.keys(doc, "", {"name", "description", "datasets", "params", "group"})
    name = check.string(doc.get("name", default_name), "name")
    if not ID_PATTERN.fullmatch(name.replace("-", "_")):
        raise check.error("name", f"must be a short id (letters, digits, _ or -), got {name!r}")
    description = check.string(doc.get("description", ""), "description")
    params = check.params(check.table(doc.get("params", {}), "params"), Params(), "params")
    groups = doc.get("group")
    if not isinstance(groups, list) or not groups:
        raise check.error("group", "at least one [[group]] table is required")
    parsed = tuple(check.group(g, i + 1, params) for i, g in enumerate(groups))
    datasets = check.datasets(check.table(doc.get("datasets", {}), "datasets"))
    return Plan(name, description, source, text, params, parsed, datasets)


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

    def datasets(self, table: dict) -> dict[str, tuple[str, ...]]:
        """Each dataset's `serbench data` commands, their generator checked here (their
        options are checked by `serbench data` itself when they run)."""
        recipes = {}
        for name, value in table.items():
            path = f"datasets.{name}"
            try:
                checked("dataset name", name)
            except IdError as exc:
                raise self.error(path, str(exc)) from None
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
            if key not in BY_NAME:
                raise self.error(path, f"unknown key; allowed: {', '.join(BY_NAME)}")
            try:
                values[key] = check(BY_NAME[key], value)
            except ParamError as exc:
                raise self.error(path, str(exc)) from None
        params = replace(base, **values)
        if params.net_page_bytes > params.net_frame_bytes:
            key = "net_page_bytes" if "net_page_bytes" in values else "net_frame_bytes"
            raise self.error(f"{where}.{key}", f"net_page_bytes ({params.net_page_bytes}) must "
                                               "not exceed net_frame_bytes "
                                               f"({params.net_frame_bytes}), the largest frame "
                                               "a data node sends or accepts")
        return params

    def group(self, raw, number: int, defaults: Params) -> Group:
        where = f"group[{number}]"
        table = self.table(raw, where)
        self.keys(table, where, set(GROUP_LISTS) | set(BY_NAME) | {"roles"})
        if "tasks" not in table:
            raise self.error(f"{where}.tasks", "required")
        lists = {key: self.id_list(table.get(key, "*"), f"{where}.{key}", known)
                 for key, known in GROUP_LISTS.items()}
        if RAW in (lists["methods"] or ()):
            raise self.error(f"{where}.methods", "the raw floor is not a method to list; "
                                                 "it is added by raw = true")
        tasks = lists.pop("tasks")
        if tasks is None:  # "*"
            tasks = tuple(task for task, spec in TASKS.items() if spec.starred)
        for task in tasks:
            if task not in TASKS:
                raise self.error(f"{where}.tasks", f"unknown task {task!r}; known: "
                                                   f"{', '.join(TASKS)}")
        param_table = {k: v for k, v in table.items() if k in BY_NAME}
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
            if known is None and item and not ID_PATTERN.fullmatch(item):
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
