"""Real Twitter API v1.1 statuses to canonical tweets (model `tweet`), one JSON object a line.

Input: one status per line, or one JSON document that is a search response (a `statuses`
array) or a plain array of statuses. Each status becomes the canonical Tweet of docs/models.md,
recursively (retweeted_status, quoted_status): only the model's keys, in canonical order;
unknown keys are ignored; an optional key that is null or missing is left out; f64 values are
written as floats. Every object is then validated by the reference checksum.

Required fields missing (or null) in real data. Real statuses predate some fields; a default
is used only where the API's own semantics make it exact, anything else is an error naming
the status and the field:
- Tweet.is_quote_status: true exactly when the status carries quoted_status or
  quoted_status_id. The flag came with quote tweets (2015); an older status, which has
  neither, could not be a quote, so false is the faithful reading.
- Tweet.text: the status's full_text (statuses fetched with tweet_mode=extended carry the text
  under that name only).
- id from id_str, id_str from id (Tweet, User, Mention, Media): the API sends the same number
  twice, the string for readers without 64-bit integers.
- Entities.hashtags, symbols, urls, user_mentions: []. The API reports no entity of a kind as
  an empty array; statuses from before a kind existed (symbols, 2012) omit it, with the same
  meaning.
- Every other required field (counts, flags, user profile fields, media sizes, place names,
  coordinates, ...): an error. Inventing a count or a colour would change the data.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from ..models import (MAX_NESTING, STRUCTS, TWEET_KIND_SHARES, ListOf, Opt, Prim, Ref, nesting,
                      tweet_kind)
from ..models.checksum import DataError, describe, object_hash


Fill = Callable[[dict], object]  # the value of a missing required field, or None: error


def _is_quote(status: dict) -> bool:
    return status.get("quoted_status") is not None or status.get("quoted_status_id") is not None


def _id_from_str(obj: dict) -> int | None:
    text = obj.get("id_str")
    return int(text) if isinstance(text, str) and text.isascii() and text.isdigit() else None


def _str_from_id(obj: dict) -> str | None:
    value = obj.get("id")
    return str(value) if type(value) is int else None


MISSING_RULES: dict[tuple[str, str], Fill] = {
    ("Tweet", "is_quote_status"): _is_quote,
    ("Tweet", "text"): lambda status: status.get("full_text"),
    **{(struct, "id"): _id_from_str for struct in ("Tweet", "User", "Mention", "Media")},
    **{(struct, "id_str"): _str_from_id for struct in ("Tweet", "User", "Mention", "Media")},
    **{("Entities", kind): (lambda entities: [])
       for kind in ("hashtags", "symbols", "urls", "user_mentions")},
}


@dataclass
class IngestStats:
    count: int = 0
    mean_bytes: float = 0.0  # canonical JSON bytes per tweet, without the newline
    kinds: dict[str, int] = field(default_factory=dict)  # each models.tweet_kind -> count


class IngestError(ValueError):
    """Malformed input, located by file, status number (1-based), line and field path."""

    def __init__(self, source: Path, where: str, path: str, reason: str):
        located = f"{source.name}: {where}" + (f": {path}" if path else "")
        super().__init__(f"{located}: {reason}")
        self.source = source
        self.where = where
        self.path = path
        self.reason = reason


def ingest_tweets(source: Path, out_tmp: Path) -> IngestStats:
    """Writes the canonical tweets of `source` to out_tmp (removed again on failure)."""
    source, out_tmp = Path(source), Path(out_tmp)
    kinds = Counter(dict.fromkeys(TWEET_KIND_SHARES, 0))
    count = total_bytes = 0
    try:
        with out_tmp.open("w", encoding="utf-8", newline="\n") as out:
            for where, status in _statuses(source):
                tweet = _canonical_tweet(source, where, status)
                line = json.dumps(tweet, ensure_ascii=False, separators=(",", ":"))
                out.write(line + "\n")
                count += 1
                total_bytes += len(line.encode("utf-8"))
                kinds[tweet_kind(tweet)] += 1
    except BaseException:
        out_tmp.unlink(missing_ok=True)
        raise
    return IngestStats(count, total_bytes / count if count else 0.0, dict(kinds))


TOO_DEEP = f"canonical objects nest at most {MAX_NESTING} levels (PROTOCOL.md 2.1)"
UNPARSABLY_DEEP = f"nested too deeply to parse; {TOO_DEEP}"


# -- reading the input --------------------------------------------------------------------


def _statuses(source: Path) -> Iterator[tuple[str, object]]:
    """(where, status) pairs; `where` names the status for error messages."""
    if _is_one_status_per_line(source):
        yield from _lines(source)
    else:
        yield from _document(source)


def _is_one_status_per_line(source: Path) -> bool:
    """True when the first non-empty line is a whole status on its own; a search response or
    an array spans the document (or has a `statuses` key)."""
    with source.open("rb") as f:
        for line in f:
            if line.strip():
                try:
                    first = json.loads(line)
                except ValueError:
                    return False
                except RecursionError:
                    return True  # a whole status, too deep: reading it says so
                return isinstance(first, dict) and "statuses" not in first
    return True  # empty: no statuses


def _lines(source: Path) -> Iterator[tuple[str, object]]:
    number = 0
    with source.open("rb") as f:  # bytes: a bad encoding is reported like bad JSON
        for line_number, line in enumerate(f, 1):
            if not line.strip():
                continue
            number += 1
            where = f"status {number} (line {line_number})"
            try:
                status = json.loads(line)
            except ValueError as e:
                raise IngestError(source, where, "", f"not JSON: {e}") from None
            except RecursionError:
                raise IngestError(source, where, "", UNPARSABLY_DEEP) from None
            yield where, status


def _document(source: Path) -> Iterator[tuple[str, object]]:
    try:
        document = json.loads(source.read_bytes())
    except ValueError as e:
        raise IngestError(source, "document", "",
                          f"neither one status per line nor one JSON document: {e}") from None
    except RecursionError:
        raise IngestError(source, "document", "", UNPARSABLY_DEEP) from None
    if isinstance(document, dict) and isinstance(document.get("statuses"), list):
        statuses, name = document["statuses"], "statuses"
    elif isinstance(document, list):
        statuses, name = document, ""
    else:
        raise IngestError(source, "document", "", "expected a search response with a "
                          "statuses array, a JSON array of statuses, or one status per line")
    for i, status in enumerate(statuses):
        yield f"status {i + 1} ({name}[{i}])", status


# -- building the canonical tweet ---------------------------------------------------------


def _canonical_tweet(source: Path, where: str, status: object) -> dict:
    # the canonical tweet nests no deeper than its status, whose depth bounds the recursion
    depth = nesting(status)
    if depth > MAX_NESTING:
        raise IngestError(source, where, "", f"nested {depth} levels deep; {TOO_DEEP}")
    try:
        tweet = _struct("Tweet", status, "")
        object_hash("tweet", tweet)
    except DataError as e:
        raise IngestError(source, where, e.path, e.message) from None
    return tweet


def _struct(name: str, value: object, path: str) -> dict:
    if type(value) is not dict:
        raise DataError(path, f"expected {name} object, got {describe(value)}")
    prefix = f"{path}." if path else ""
    out = {}
    for fname, ftype in STRUCTS[name].fields:
        raw = value.get(fname)
        if raw is None:
            if isinstance(ftype, Opt):
                continue
            rule = MISSING_RULES.get((name, fname))
            raw = rule(value) if rule else None
            if raw is None:
                raise DataError(prefix + fname, "missing required field")
        out[fname] = _convert(ftype, raw, prefix + fname)
    return out


def _convert(ftype, value: object, path: str) -> object:
    if isinstance(ftype, Opt):
        return _convert(ftype.inner, value, path)
    if isinstance(ftype, Ref):
        return _struct(ftype.name, value, path)
    if isinstance(ftype, ListOf):
        if type(value) is not list:
            raise DataError(path, f"expected list, got {describe(value)}")
        return [_convert(ftype.inner, item, f"{path}[{i}]") for i, item in enumerate(value)]
    if isinstance(ftype, Prim) and ftype.kind == "f64" and type(value) is int:
        try:
            return float(value)
        except OverflowError:
            raise DataError(path, f"{value} is too large for f64") from None
    return value  # other scalars are checked by object_hash
