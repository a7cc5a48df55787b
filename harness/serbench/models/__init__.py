"""The logical data models of serbench: each one definition file (definition.py describes the
notation), the built-in ones in `definitions/`, a user's own in their models folder
(`$SERBENCH_MODELS`, else `$SERBENCH_HOME/models`). Everything else in the harness
(checksum, validation, ordering, the drivers' generated code) walks the structs read here, so
a model is changed in its file and nowhere else.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..paths import home
from .definition import (MAX_NESTING, PRIMITIVES, Definition, Enum, ListOf, ModelError, Opt,
                         Prim, Ref, Struct, Type, parse)
from .definition import parse_type as _parse_type

__all__ = ["MAX_NESTING", "PRIMITIVES", "Enum", "ListOf", "ModelError", "Opt", "Prim", "Ref",
           "Struct", "Type", "DEFINITIONS", "STRUCTS", "MODEL_ROOTS", "MODELS", "BUILTIN",
           "DATASET_OF_MODEL", "USER_PROBLEMS", "INT_RANGES", "parse_type", "root_struct",
           "resolve", "UnknownModel", "nesting", "tweet_kind", "TWEET_KIND_SHARES",
           "user_models_dir"]

BUILTIN_DIR = Path(__file__).parent / "definitions"
# the built-in models in the order reports and plans list them (a user's follow, by name)
BUILTIN_ORDER = ("part", "lineitem", "customer", "tweet", "sparse", "trade", "org", "arrays")
INT_RANGES = {
    "i8": (-(2**7), 2**7 - 1),
    "i16": (-(2**15), 2**15 - 1),
    "i32": (-(2**31), 2**31 - 1),
    "i64": (-(2**63), 2**63 - 1),
}


def user_models_dir() -> Path:
    """Where a user's model definitions are read from (and `serbench model infer` writes)."""
    return Path(os.environ.get("SERBENCH_MODELS") or home() / "models")


def load(files: list[Path], known: dict[str, Definition]) -> dict[str, Definition]:
    """The definitions in `files`, each after the models it uses (from `known` or `files`);
    ModelError for a file that cannot be a model, a model defined twice, or a use of a model
    that is nowhere."""
    texts = {}
    for path in files:
        try:
            texts[path] = path.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise ModelError(f"{path}: cannot be read: {exc}") from None
    pending, loaded = dict(texts), dict(known)
    while pending:
        progress = False
        for path, text in list(pending.items()):
            uses = _declared_uses(text)
            if not all(u in loaded for u in uses):
                continue
            visible = {name: s for u in uses for name, s in _structs_of(loaded, u).items()}
            definition = parse(text, str(path), visible)
            if definition.model in loaded:
                raise ModelError(f"{path}: model {definition.model} is already defined by "
                                 f"{loaded[definition.model].file}")
            clash = _struct_clash(definition, loaded)
            if clash:
                raise ModelError(f"{path}: struct {clash[0]} is already defined by "
                                 f"{clash[1]}; give it another name")
            loaded[definition.model] = definition
            del pending[path]
            progress = True
        if not progress:
            path, text = next(iter(pending.items()))
            missing = [u for u in _declared_uses(text) if u not in loaded]
            raise ModelError(f"{path}: uses {', '.join(missing)}, which no definition file "
                             "defines (or whose files use each other in a circle)")
    return {m: d for m, d in loaded.items() if m not in known}


def _declared_uses(text: str) -> tuple[str, ...]:
    """The models a file says it uses, read before the file is parsed whole (so that its
    structs can be resolved against theirs); a malformed file is refused by `parse`."""
    import tomllib
    try:
        uses = tomllib.loads(text).get("uses", [])
    except tomllib.TOMLDecodeError:
        return ()
    return tuple(u for u in uses if isinstance(u, str)) if isinstance(uses, list) else ()


def _structs_of(loaded: dict[str, Definition], model: str) -> dict[str, Struct]:
    """A model's structs and, through its uses, every struct it can nest."""
    definition = loaded[model]
    found = {}
    for used in definition.uses:
        found.update(_structs_of(loaded, used))
    found.update(definition.structs)
    return found


def _struct_clash(definition: Definition, loaded: dict[str, Definition]) -> tuple | None:
    for other in loaded.values():
        for name in definition.structs:
            if name in other.structs:
                return name, other.file
    return None


def _read_all() -> tuple[dict[str, Definition], dict[str, Definition], list[str]]:
    builtin = load(sorted(BUILTIN_DIR.glob("*.toml")), {})
    if set(builtin) != set(BUILTIN_ORDER):
        raise ModelError(f"{BUILTIN_DIR}: the built-in definitions are not BUILTIN_ORDER's")
    builtin = {model: builtin[model] for model in BUILTIN_ORDER}
    problems = []
    directory = user_models_dir()
    files = sorted(directory.glob("*.toml")) if directory.is_dir() else []
    try:
        user = dict(sorted(load(files, builtin).items()))
    except ModelError as exc:  # said when a user model is asked for, and by `serbench model`
        problems.append(str(exc))
        user = {}
    return builtin, user, problems


_BUILTIN, _USER, USER_PROBLEMS = _read_all()
DEFINITIONS: dict[str, Definition] = {**_BUILTIN, **_USER}
BUILTIN = tuple(_BUILTIN)
STRUCTS: dict[str, Struct] = {name: struct for d in DEFINITIONS.values()
                              for name, struct in d.structs.items()}
# model id -> (root struct, key fields compared first by the model's total order)
MODEL_ROOTS = {m: (d.root, d.key) for m, d in DEFINITIONS.items()}
MODELS = tuple(MODEL_ROOTS)
# which generator family produces each model (the `serbench data` subject; `import` for a
# user's model, made by `serbench data import`)
DATASET_OF_MODEL = {m: d.dataset for m, d in DEFINITIONS.items()}


def parse_type(text: str) -> Type:
    """A type written in the notation, its struct names resolved against every model's."""
    return _parse_type(text, "type", STRUCTS)


def root_struct(model: str) -> Struct:
    """The root struct of a model id; raises a clear error for an unknown model."""
    if model not in MODEL_ROOTS:
        raise UnknownModel(model)
    return STRUCTS[MODEL_ROOTS[model][0]]


def resolve(t: Type) -> Type | Struct:
    return STRUCTS[t.name] if isinstance(t, Ref) else t


class UnknownModel(ValueError):
    def __init__(self, model: str):
        problems = "".join(f"; {problem}" for problem in USER_PROBLEMS)
        super().__init__(f"unknown model {model!r}; known models: {', '.join(MODELS)}"
                         f"{problems}")
        self.model = model


def nesting(value: object) -> int:
    """How deep a parsed JSON value nests, each object and list one level (iterative: the
    input may be hostile)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, level = stack.pop()
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else None
        if children is not None:
            deepest = max(deepest, level)
            stack.extend((c, level + 1) for c in children)
    return deepest


def tweet_kind(tweet: dict) -> str:
    """plain, retweet, quote or retweet_of_quote, as counted in the reference sample."""
    rt = tweet.get("retweeted_status")
    if rt is not None:
        return "retweet_of_quote" if rt.get("quoted_status") is not None else "retweet"
    if tweet.get("quoted_status") is not None:
        return "quote"
    return "plain"


TWEET_KIND_SHARES = {"plain": 0.333, "retweet": 0.490, "quote": 0.069, "retweet_of_quote": 0.109}
