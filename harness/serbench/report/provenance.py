"""Where the numbers come from: run, host, toolchains, library versions, cache eviction, plan."""
from __future__ import annotations

import json
from collections import Counter
from datetime import datetime

from ..results import sitting_spans
from .blocks import Details, Facts, Row, Section, Table
from .data import Cell, Run
from .series import LANGUAGES, canonical
from .tasks import eviction_summary
from .units import byte_size


def describe(value, key: str = "") -> str:
    """Any JSON value as one readable line; sizes in bytes become KiB/MiB/GiB."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {describe(v, k)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(describe(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "—"
    if isinstance(value, int) and "bytes" in key:
        return byte_size(value)
    return str(value)


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment else "—"


def _finished(run: Run) -> str:
    spans = sitting_spans(run.params, run.finished_at)
    if len(spans) > 1:
        return f"{_when(run.finished_at)}; {_sittings(spans)}{_other_commits(run)}"
    if run.finished_at and run.started_at:
        seconds = (run.finished_at - run.started_at).total_seconds()
        return f"{_when(run.finished_at)} ({seconds / 60:,.1f} min)"
    return _when(run.finished_at)


def _other_commits(run: Run) -> str:
    """A sitting whose harness was at another commit than the run's first (the drivers are
    the same: a resumed run refuses others)."""
    others = [f"sitting {i} at {git['commit']}" + (" (dirty)" if git.get("dirty") else "")
              for i, sitting in enumerate(run.params.get("sittings") or [])
              if (git := sitting.get("git")) and (git.get("commit"), git.get("dirty"))
              != (run.git_commit, run.git_dirty)]
    return f"; harness: {', '.join(others)}" if others else ""


def _sittings(spans: list[tuple[datetime, datetime | None]]) -> str:
    """A resumed run's time is its sittings' sum, not the span from its start to its end,
    which counts the hours it lay interrupted."""
    known = [end - start for start, end in spans if end]
    total = (f"{sum(d.total_seconds() for d in known) / 60:,.1f} min in all"
             if len(known) == len(spans) else "the time of some unknown")
    each = "; ".join(f"{i}: {_when(start)}, "
                     + (f"{(end - start).total_seconds() / 60:,.1f} min" if end else "end unknown")
                     for i, (start, end) in enumerate(spans))
    return f"measured in {len(spans)} sittings, {total} ({each})"


def _commit(run: Run) -> str:
    commit = run.git_commit or "unknown"
    return f"{commit} + uncommitted changes (dirty)" if run.git_dirty else commit


def status_summary(cells: list[Cell]) -> str:
    counts = Counter(c.status for c in cells)
    return ", ".join(f"{k:,} {status}" for status, k in counts.most_common())


def _label(key: str) -> str:
    return key.removesuffix("_bytes").replace("_", " ")


def toolchain_versions(toolchains: dict) -> str:
    """`rustc 1.95.0 (…), g++ 12.2.0, …`; version lines usually start with the tool's name."""
    found = [v if str(v).startswith(k) else f"{k} {v}" for k, v in toolchains.items() if v]
    missing = [k for k, v in toolchains.items() if not v]
    return "; ".join(found + ([f"not found: {', '.join(missing)}"] if missing else [])) or "—"


def run_facts(run: Run, cells: list[Cell]) -> Facts:
    items = [("run", f"{run.run_id} ({run.status})"), ("plan", run.plan_name or "—"),
             ("started", _when(run.started_at)), ("finished", _finished(run)),
             ("git commit", _commit(run)), ("seed", describe(run.seed))]
    items += [(_label(key), describe(value, key)) for key, value in run.host.items()]
    items += [(f"machine {when}", machine_state(run.machine.get(when)))
              for when in ("before", "after")]
    items += [("toolchains", toolchain_versions(run.toolchains)),
              ("cold reads evicted by", eviction_summary(cells)),
              ("cells", status_summary(cells)),
              ("steady state", steadiness_summary(cells))]
    return Facts(items)


def machine_state(state: dict | None) -> str:
    """`load 0.12 / 0.30 / 0.41 (1, 5, 15 min); governor performance; busy: cc1plus 95 %`:
    whether the run had the machine to itself."""
    if not state:
        return "not recorded"
    load = " / ".join(f"{x:.2f}" for x in state.get("load_average") or [])
    governors = ", ".join(state.get("governors") or []) or "not readable"
    busy = ", ".join(f"{p['name']} (pid {p['pid']}) {p['cpu_share']:.0%} of a core"
                     for p in state.get("busy_processes") or []) or "no other busy process"
    return f"load {load} (1, 5, 15 min); frequency governor {governors}; {busy}"


def steadiness_summary(cells: list[Cell]) -> str:
    timed = [c for c in cells if c.measured]
    unsteady = sum(c.steady is False for c in timed)
    unjudged = sum(c.steady is None for c in timed)
    return (f"{len(timed) - unsteady - unjudged:,} of {len(timed):,} timed cells steady, "
            f"{unsteady:,} unsteady (labelled wherever shown), {unjudged:,} not judged "
            "(fewer than five repetitions and no JIT figure)")


def drivers_table(run: Run) -> Table:
    """One row per language, from the driver's own `info`: versions as actually linked.
    (The driver's path is left out: it names a directory of the measuring machine.)"""
    rows = []
    for lang in sorted(run.drivers, key=lambda lang: canonical(lang, LANGUAGES)):
        entry = run.drivers[lang]
        info = entry.get("info", entry) if isinstance(entry, dict) else {}
        rows.append(Row([lang, describe(info.get("driver_version")),
                         describe(info.get("toolchain")), describe(info.get("libraries"))]))
    return Table("Drivers and libraries",
                 ["language", "driver", "toolchain", "libraries (as linked)"], rows)


def provenance_section(run: Run, cells: list[Cell]) -> Section:
    blocks = [run_facts(run, cells), drivers_table(run)]
    if run.plan_toml:
        blocks.append(Details(f"plan {run.plan_name}", run.plan_toml.strip("\n")))
    if run.params:
        blocks.append(Details("run parameters", json.dumps(run.params, indent=2)))
    return Section("provenance", "Provenance", blocks=blocks)
