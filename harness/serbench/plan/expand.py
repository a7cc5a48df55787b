"""A plan's groups turned into concrete cells against the drivers' `info` and the datasets:
"*" resolved, each task's cells made as its descriptor says (tasks/spec.py), network roles
checked, and every cell outside a driver's capability matrix kept with the reason, so that the
run records it `unsupported` instead of dropping it silently. Names no task."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..cell import RAW, Cell, format_roles
from ..models import MODELS
from ..tasks import TASK_ORDER, TASKS
from ..tasks.spec import BESIDE, BY_DRIVER, MATERIALIZE, NO_DEPTH, TaskSpec
from .parse import line_of
from .schema import Group, Params, Plan, PlanError, dataset_dir

Counter = Callable[[Path, str], int]  # (dataset directory, model) -> object count


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


def offered_by(info: dict, spec: TaskSpec) -> bool:
    """Does a driver run the task (the harness runs its own whatever the drivers offer)?"""
    return spec.by_harness or spec.id in info.get("net_tasks" if spec.net else "tasks", ())


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
        "tasks": {t for t, spec in TASKS.items() if any(offered_by(i, spec) for i in infos)},
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
                f"{plan.source}: {line_of(plan.toml, group.number, key)}group[{group.number}]."
                f"{key}: {', '.join(map(repr, missing))} offered by no driver of this group "
                f"({languages}; offered: {', '.join(sorted(known - {''})) or 'none'})")


def _check_roles(plan: Plan, group: Group, infos: dict[str, dict]) -> None:
    """Each of a role's languages must have a driver whose nodes run the group's tasks that
    have the role and that offers every method the group names (the same id: a shared
    format), and a role's nodes must be enough for each of its languages to run one."""
    for role, languages in group.roles:
        where = f"{plan.source}: {line_of(plan.toml, group.number, 'roles')}" \
                f"group[{group.number}].roles.{role}"
        tasks = [TASKS[t] for t in group.tasks if role in TASKS[t].net.roles]
        for spec in tasks:
            nodes = spec.net.nodes(group.params)[role]
            if 0 < nodes < len(languages):
                raise PlanError(f"{where}: {len(languages)} languages for {spec.id}'s {nodes} "
                                f"{role} node{'s' * (nodes > 1)}: each language runs a node")
        for language in languages:
            info = infos.get(language)
            if info is None:
                raise PlanError(f"{where}: no {language} driver found; run `serbench build`")
            for spec in tasks:
                if not offered_by(info, spec):
                    raise PlanError(f"{where}: the {language} driver's nodes do not run "
                                    f"{spec.id}")
            lacking = [m for m in group.methods or () if m not in info["methods"]]
            if lacking:
                raise PlanError(f"{where}: the {language} driver has no {', '.join(lacking)}; "
                                "only methods both languages offer (shared formats) mix "
                                "languages")


def _expand_model(ex: _Expansion, group: Group, language: str, model: str) -> None:
    p = group.params
    directory = dataset_dir(p.dataset, ex.data_root)
    count = ex.count(directory, model)
    info = ex.infos[language]
    methods = group.methods or tuple(m for m in info["methods"] if m != RAW)
    ns = tuple(sorted({min(n, count) for n in p.n})) if count else ()

    def cell(spec: TaskSpec, method: str, depth: str, variant: str, n: int, setting: str = "",
             threads: int = 1, unsupported: str | None = None) -> Cell:
        return Cell(language=language, task=spec.id, model=model, method=method, depth=depth,
                    variant=variant, setting=setting, dataset=directory.name,
                    dataset_dir=directory, n=n, threads=threads, page_size=p.page_size,
                    cold=p.cold, warmups=p.warmups, repetitions=p.repetitions, seed=p.seed,
                    timeout_s=p.timeout_s, pin_cpus=p.pin_cpus, unsupported=unsupported,
                    iterations=p.iterations if spec.iterated else 1,
                    forks=getattr(p, spec.forks_param) if spec.forks_param else 0,
                    warmup_ms=p.warmup_ms, floor_rounds=_floor_rounds(spec, info, p, method),
                    warmup_max_ms=p.warmup_max_ms, prewarm_max_ms=p.prewarm_max_ms,
                    rounds_min=p.rounds_min,
                    rounds_max=p.rounds_max, ci_target=p.ci_target, time_cap_s=p.time_cap_s,
                    min_sample_ms=p.min_sample_ms,
                    **({"net_page_bytes": p.net_page_bytes,
                        "net_frame_bytes": p.net_frame_bytes, "network": p.network}
                       if spec.net else {}))

    for method in methods:
        why = _method_unsupported(info, method, model)
        offered = tuple(info["methods"].get(method, {}).get("depths", ()))
        variants = group.variants or ("", *info["methods"].get(method, {}).get("variants", ()))
        for spec in map(TASKS.get, group.tasks):
            task_why = why or _task_unsupported(info, spec)
            if spec.net:
                _expand_net(ex, group, spec, cell, language, model, method, task_why, offered,
                            count)
                continue
            depths = _depths(spec, group, offered)
            for variant in variants:
                variant_why = task_why or _variant_unsupported(info, method, variant)
                for depth in depths:
                    depth_why = variant_why or (depth and _depth_unsupported(info, method, depth))
                    for n, setting, threads in spec.points(p, model, ns, count):
                        ex.add(cell(spec, method, depth, variant, n, setting, threads,
                                    depth_why or None), group)
        if p.raw and not why:
            for spec in (TASKS[t] for t in group.tasks if _has_floor(TASKS[t], info)):
                raw_why = _method_unsupported(info, RAW, model) or _task_unsupported(info, spec)
                for n, setting, threads in spec.points(p, model, ns, count):
                    ex.add(cell(spec, RAW, "", method, n, setting, threads, raw_why), group)


def _depths(spec: TaskSpec, group: Group, offered: tuple[str, ...]) -> tuple[str, ...]:
    if spec.depths == NO_DEPTH:
        return ("",)
    if spec.depths == MATERIALIZE:
        return (MATERIALIZE,)
    return group.depths or offered or ("",)


def _has_floor(spec: TaskSpec, info: dict) -> bool:
    """The raw floor beside the task's cells: always for the reads, for writes and sorts
    where the driver's raw method measures their floor (`info` methods.raw.floors)."""
    floors = info["methods"].get(RAW, {}).get("floors", ())
    return spec.floor == BESIDE or (spec.floor == BY_DRIVER and spec.id in floors)


def _floor_rounds(spec: TaskSpec, info: dict, p: Params, method: str) -> int:
    paired = spec.pairs_floor and _has_floor(spec, info)
    return p.floor_rounds if p.raw and paired and method != RAW else 0


def _expand_net(ex: _Expansion, group: Group, spec: TaskSpec, cell, language: str, model: str,
                method: str, why: str | None, offered: tuple[str, ...], count: int) -> None:
    """The task's cells as its NetSpec makes them; the group's roles of another language are
    named in the setting (`roles=server:java`), so a mixed cell is told apart from the
    language's own, and every one of their languages must offer what the cell needs."""
    roles = _cell_roles(group, spec, language)
    if roles:
        why = why or _roles_unsupported(ex.infos, roles, spec, method, model)
    named = f" roles={format_roles(roles)}" if roles else ""
    p = group.params
    for depth, n, setting, point_why in spec.net.points(p, model, method, group.depths or (),
                                                        offered, count):
        cell_why = why or point_why or (depth and _roles_depth_unsupported(
            ex.infos, roles, spec.net.decoders, method, depth))
        made = cell(spec, method, depth, "", n, setting + named, 1, cell_why or None)
        # a sweep of links (`networks`): a cell per link, told apart by its setting
        for network in p.networks:
            ex.add(replace(made, setting=f"{made.setting} network={network}",
                           network=network), group)
        if not p.networks:
            ex.add(made, group)


def _cell_roles(group: Group, spec: TaskSpec, language: str) -> dict[str, tuple[str, ...]]:
    """The group's roles this task's cell has nodes of (a tree of depth 2 has no middle
    nodes) whose languages are not just the cell's own."""
    nodes = spec.net.nodes(group.params)
    return {role: languages for role, languages in group.roles
            if nodes.get(role) and languages != (language,)}


def _roles_unsupported(infos: dict[str, dict], roles: dict[str, tuple[str, ...]],
                       spec: TaskSpec, method: str, model: str) -> str | None:
    for role, languages in roles.items():
        for language in languages:
            info = infos.get(language)
            if info is None:
                return f"{role}: no {language} driver"
            if not offered_by(info, spec):
                return f"{role}: the {language} driver's nodes do not run task {spec.id}"
            found = info["methods"].get(method)
            if found is None:
                return f"{role}: {method} is not shared with {language} (it has no {method})"
            if model not in found["models"]:
                return f"{role}: {language} {method} does not support model {model}"
    return None


def _roles_depth_unsupported(infos: dict[str, dict], roles: dict[str, tuple[str, ...]],
                             decoders: tuple[str, ...], method: str, depth: str) -> str | None:
    """A node of another language that decodes at the cell's depth must offer it."""
    for role, languages in roles.items():
        for language in languages if role in decoders else ():
            if depth not in infos[language]["methods"][method]["depths"]:
                return f"{role}: {language} {method} does not read at depth {depth}"
    return None


def _method_unsupported(info: dict, method: str, model: str) -> str | None:
    spec = info["methods"].get(method)
    if spec is None:
        return f"the {info['language']} driver has no method {method}"
    if model not in spec["models"] or model not in info["models"]:
        return f"{info['language']} {method} does not support model {model}"
    return None


def _task_unsupported(info: dict, spec: TaskSpec) -> str | None:
    if offered_by(info, spec):
        return None
    if spec.net:
        return f"the {info['language']} driver's nodes do not run task {spec.id}"
    return f"the {info['language']} driver does not run task {spec.id}"


def _variant_unsupported(info: dict, method: str, variant: str) -> str | None:
    if variant and variant not in info["methods"][method]["variants"]:
        return f"{info['language']} {method} has no variant {variant}"
    return None


def _depth_unsupported(info: dict, method: str, depth: str) -> str | None:
    if depth not in info["methods"][method]["depths"]:
        return f"{info['language']} {method} does not support depth {depth or '(none)'}"
    return None


def _run_order(cell: Cell) -> tuple:
    # files are written before they are read; the raw floor reads them after every method
    return (str(cell.dataset_dir), cell.model, cell.page_size,
            cell.method == RAW, cell.language, cell.method, TASK_ORDER[cell.task], cell.variant,
            cell.depth, cell.n, cell.setting, cell.threads, cell.cold)
