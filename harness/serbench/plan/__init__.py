"""Plans: schema.py is the TOML's reference and the plan's types, parse.py reads and checks a
plan, expand.py makes its cells against the drivers. What the rest of the harness uses:"""
from ..cell import LANGUAGES, RAW, Cell, describe
from .expand import expand
from .parse import load_embedded, load_plan, parse_plan
from .schema import EMBEDDED, Group, Params, Plan, PlanError, dataset_dir, summary

__all__ = ["EMBEDDED", "LANGUAGES", "RAW", "Cell", "Group",
           "Params", "Plan", "PlanError", "dataset_dir", "describe", "expand", "load_embedded",
           "load_plan", "parse_plan", "summary"]
