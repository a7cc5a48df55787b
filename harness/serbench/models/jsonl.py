"""One line of a user's JSON Lines, read strictly, for `model infer` and `data import`: UTF-8,
JSON without NaN or Infinity (f64 values are finite) and without a key twice in one object,
nested at most MAX_NESTING levels (PROTOCOL.md 2.1). The reader says what is wrong; the
caller names the file and the line."""
from __future__ import annotations

import json

from . import MAX_NESTING, nesting


class LineError(ValueError):
    """What is wrong with one line (without its file and number)."""


def read_line(raw: bytes):
    """The JSON value of one line's bytes."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LineError(f"not UTF-8 (byte {exc.start} of the line)") from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)
    except RecursionError:
        raise LineError(f"nested deeper than {MAX_NESTING} levels (PROTOCOL.md 2.1)") from None
    except ValueError as exc:
        raise LineError(f"not JSON: {exc}") from None
    if nesting(value) > MAX_NESTING:
        raise LineError(f"nested deeper than {MAX_NESTING} levels (PROTOCOL.md 2.1)")
    return value


def _refuse_constant(constant: str):
    raise ValueError(f"{constant} is not a JSON number (f64 values are finite)")


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    found = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"key {key!r} twice in one object")
        found[key] = value
    return found
