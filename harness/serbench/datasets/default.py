"""The embedded default data: every model, small, fixed seed, no arguments needed."""
from __future__ import annotations

from pathlib import Path

from .build import Progress, derive_replicated, make_native, make_tpch
from .manifest import DatasetError, Manifest, load_manifest

SEED = 42
# small enough that the default plan, every method of every driver, runs in minutes:
# 200 parts, 6,005 line items, 150 customers (4.8 MB of JSON), 500 tweets
TPCH_SF = 0.001
NATIVE = {
    "tweet": {"n": 500},
    "sparse": {"n": 8, "dimension": 1_000_000, "density": 0.01},
    "trade": {"n": 1000},
    "org": {"n": 200},
    "arrays": {"k": 1000, "n": 100},
}
# duplicate-bearing inputs for sort_dedup: model -> replication factor
DUPLICATED = {"part": 3, "tweet": 3}

DEFAULT_NAME = "default"
DUPLICATED_NAME = "default_dup"


def _current(directory: Path, model: str, params: dict) -> Manifest | None:
    """The published manifest if it was made with these parameters (reuse, don't redo)."""
    try:
        manifest = load_manifest(directory, model)
    except DatasetError:
        return None
    return manifest if manifest.params == params else None


def make_default(root: Path, progress: Progress = print) -> list[Manifest]:
    base = root / DEFAULT_NAME
    made = []
    tpch = [m for m in ("part", "lineitem", "customer")
            if _current(base, m, {"sf": TPCH_SF}) is None]
    if tpch:
        progress(f"tpch sf={TPCH_SF}: {', '.join(tpch)}")
        made += make_tpch(TPCH_SF, base, tpch, progress=progress)
    for family, params in NATIVE.items():
        if _current(base, family, params) is None:
            progress(f"{family} {params}")
            made.append(make_native(family, params, SEED, base))
    dup = root / DUPLICATED_NAME
    for model, r in DUPLICATED.items():
        source = load_manifest(base, model)
        existing = _current(dup, model, source.params)
        if existing is None or existing.replication != r:
            progress(f"{model} x{r} shuffled")
            made.append(derive_replicated(base, model, r, SEED, dup))
    return made
