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

[params]                          # defaults for every group: every key with its
dataset = "default"               # default, bounds and meaning is declared once in
n = [100, 1000, 10000]            # params.py (PARAMS) and listed in docs/plans.md;
                                  # the cluster keys are run-wide: [params] only

[[group]]                         # one or more; each is a product of its lists
tasks = ["write", "read_seq", "read_rand"]   # any of tasks.TASKS ("*": those starred there)
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

from ..params import Params

ID_PATTERN = re.compile(r"[a-z][a-z0-9_]*")  # fullmatch: `$` would let a newline end it
EMBEDDED = ("default", "full", "figures", "floors", "network", "link_speed", "reproduce",
            "reproduce_quick")
# the `serbench data` generators a plan's [datasets] may name
DATA_GENERATORS = ("tpch", "tweet", "sparse", "trade", "org", "arrays")


class PlanError(ValueError):
    pass


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
