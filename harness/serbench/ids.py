"""Identifiers that come from outside and name something on disk or in the results: run ids,
dataset names, export ids and host names, read from a command line, a plan, an imported
file, a resumed run, a dataset's manifest or a cluster worker's report. Each is checked by
one rule where it enters (`checked`), and a path under the work directory is only ever made
by `under`, which refuses one that would lead out of it; the bottom of the harness, it
imports nothing of serbench.
"""
from __future__ import annotations

import re
from pathlib import Path

# one path component: nothing hidden (no leading dot or dash), no separator, no `..`, no
# control or shell-special character, so an id is also safe to print and to pass as a word
ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
# the longest id of each kind: a run id is what `serbench run --run-id` has always taken; a
# dataset directory's name is longer (derived names carry the generator's parameters); a
# host name is DNS's limit (RFC 1035)
MAX_LENGTH = {"run id": 64, "dataset name": 128, "export id": 64, "host name": 253}
# how much of a refused value a message shows (a hostile value may be megabytes long)
SHOWN = 80


class IdError(ValueError):
    """An identifier from outside that serbench will not use; the message names it."""


def checked(kind: str, value) -> str:
    """`value` as an id of `kind` (a key of MAX_LENGTH), or IdError naming the kind, the
    value (escaped, shortened) and the rule."""
    if not isinstance(value, str):
        raise IdError(f"{kind} {shown(value)}: not text")
    problem = id_problem(kind, value)
    if problem:
        raise IdError(f"{kind} {shown(value)}: {problem}")
    return value


def id_problem(kind: str, value: str) -> str | None:
    """What is wrong with `value` as an id of `kind`, or None."""
    longest = MAX_LENGTH[kind]
    if not value:
        return "empty"
    if len(value) > longest:
        return f"{len(value)} characters, at most {longest}"
    if not ID.fullmatch(value) or ".." in value:
        return ("letters, digits, _ . - only, starting with a letter or digit, without '..' "
                "(it names one directory)")
    return None


def shown(value) -> str:
    """A value as a message may print it: escaped (newlines, NUL, terminal codes) and cut."""
    text = repr(value)
    return text if len(text) <= SHOWN else f"{text[:SHOWN]}... ({len(text)} characters)"


def under(root: Path, *parts: str) -> Path:
    """`root / parts...`, refused (IdError) unless it stays inside `root` once resolved: a
    part with a separator or `..`, an absolute part, or a symbolic link that leads out."""
    base = Path(root).resolve()
    path = base.joinpath(*parts)
    resolved = path.resolve()
    if resolved != base and base not in resolved.parents:
        raise IdError(f"{path}: outside {base} (it resolves to {resolved}); serbench does not "
                      "touch a path outside its work directory")
    return path
