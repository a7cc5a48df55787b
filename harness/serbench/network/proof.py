"""Proofs that nodes of different languages understand each other: the network counterpart
of the interop matrix. A few objects of a method's file move from senders of some languages
to a receiver of another, on loopback, checked against the dataset, before anything is timed.

A proof cell covers several pairs at once (one client fetching from a server of each
sender's language; a 7-node sort-merge tree whose child → parent edges hold every ordered
pair); when it fails, each pair it covered is proved alone, so a failure names its pair.
"""
from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..datasets.manifest import data_path
from ..models.checksum import hex64, set_checksum
from .exchange import InvalidResult, NetCell, NetFailure, run_cell
from . import fetch, sort_merge
from .fetch import Fetch
from .placement import LocalPlacement
from .sort_merge import SortMerge, sorted_expectation


PROOF_OBJECTS = 2  # per sending node: enough to cross an object boundary, cheap to check
PROOF_TIMEOUT_S = 60.0
NET_PAGE_BYTES = 1 << 20


@dataclass(frozen=True)
class Pair:
    sender: str
    receiver: str

    def __str__(self) -> str:
        return f"{self.sender} → {self.receiver}"


@dataclass(frozen=True)
class Source:
    """What a proof moves: the paged file of one method and model of a dataset."""

    dataset_dir: Path
    model: str
    method: str
    base: Path
    page_size: int
    hashes: Sequence[int]  # the dataset's object hashes, in file order


def prove_fetches(source: Source, pairs: set[Pair], drivers: dict[str, Path],
                  work: Path) -> dict[Pair, str | None]:
    """Every pair through a fetch with decode: one cell per receiver with a server per
    sender, and on failure one cell per sender. A server needs an object of its own: with
    fewer objects than senders, one cell per sender from the start."""
    outcome: dict[Pair, str | None] = {}
    for receiver in sorted({p.receiver for p in pairs}):
        senders = sorted(p.sender for p in pairs if p.receiver == receiver)
        if 1 < len(senders) <= len(source.hashes) and \
                fetch_problem(source, senders, receiver, drivers, work) is None:
            outcome |= {Pair(sender, receiver): None for sender in senders}
            continue
        outcome |= {Pair(sender, receiver): fetch_problem(source, [sender], receiver, drivers,
                                                          work) for sender in senders}
    return outcome


def fetch_problem(source: Source, senders: list[str], receiver: str, drivers: dict[str, Path],
                  work: Path) -> str | None:
    """A client of `receiver` fetches and decodes PROOF_OBJECTS objects from a server of each
    sender language; None when it decoded exactly the dataset's objects."""
    n = min(PROOF_OBJECTS, len(source.hashes) // len(senders))
    count, total = set_checksum(source.hashes[:n * len(senders)])
    output = _fresh(work / f"fetch-{receiver}-{'-'.join(senders)}")
    params = {"servers": len(senders), "n": n, "start": 0, "input": source.base,
              "output": output, "page_size": source.page_size, "net_page_bytes": NET_PAGE_BYTES,
              "server_languages": senders,
              "client_language": receiver, "expected": {"count": count, "sum": hex64(total)}}
    cell = NetCell(fetch.ID, source.model, source.method, "decode", "materialize", params,
                   warmups=0, repetitions=1, timeout_s=PROOF_TIMEOUT_S)
    return _run_problem(Fetch(), cell, drivers, output)


PAIR_TREE = 3  # nodes of the smallest tree with a child -> parent edge: a root, two leaves


def trees_impossible(source: Source) -> str | None:
    """Why no sort-merge tree can run on the source's dataset, or None: every node reads
    objects of its own."""
    count = len(source.hashes)
    if count >= PAIR_TREE:
        return None
    return (f"a sort-merge tree needs an object for each of its {PAIR_TREE} nodes at least "
            f"(a root and two leaves); the {source.model} dataset holds {count}")


def prove_trees(source: Source, languages: list[str], drivers: dict[str, Path],
                work: Path) -> dict[Pair, str | None]:
    """Every ordered pair of `languages` through sort-merge trees: one 7-node tree covering
    them all, or on failure (or with fewer objects than its nodes) a 3-node tree per pair
    (the sender's leaves, the receiver's root). The dataset holds PAIR_TREE objects or more
    (trees_impossible)."""
    pairs = [Pair(a, b) for a in languages for b in languages if a != b]
    if not pairs:
        return {}
    covering = covering_tree(languages)
    if covering and len(covering) <= len(source.hashes) and \
            tree_problem(source, covering, drivers, work) is None:
        return {pair: None for pair in pairs}
    return {pair: tree_problem(source, [pair.receiver, pair.sender, pair.sender], drivers, work)
            for pair in pairs}


def covering_tree(languages: list[str]) -> list[str] | None:
    """Node languages of a 7-node tree (node i's parent: (i-1)//2) whose child → parent
    edges hold every ordered pair of two or three languages."""
    if len(languages) == 2:
        a, b = languages
        return [a, b, b, a, a, a, a]
    if len(languages) == 3:
        a, b, c = languages
        return [a, b, c, a, c, a, b]
    return None


def tree_problem(source: Source, node_languages: list[str], drivers: dict[str, Path],
                 work: Path) -> str | None:
    """A sort-merge tree of the given node languages over PROOF_OBJECTS objects per node;
    None when the root's sorted output is the dataset's."""
    count = len(node_languages)
    n = min(PROOF_OBJECTS, len(source.hashes) // count)
    output = _fresh(work / f"tree-{'-'.join(node_languages)}")
    params = {"nodes": count, "n": n, "input": source.base, "output": output,
              "node_languages": node_languages,
              "page_size": source.page_size, "net_page_bytes": NET_PAGE_BYTES,
              "expected": sorted_expectation(data_path(source.dataset_dir, source.model),
                                             source.model, count * n)}
    cell = NetCell(sort_merge.ID, source.model, source.method, "", "materialize", params,
                   warmups=0, repetitions=1, timeout_s=PROOF_TIMEOUT_S)
    return _run_problem(SortMerge(), cell, drivers, output)


def _run_problem(task, cell: NetCell, drivers: dict[str, Path], output: Path) -> str | None:
    try:
        run_cell(task, cell, LocalPlacement(), drivers)
    except (NetFailure, InvalidResult) as exc:
        stderr = getattr(exc, "stderr", "")
        return str(exc) + (f"\n{stderr.strip()}" if stderr and stderr.strip() else "")
    finally:
        shutil.rmtree(output, ignore_errors=True)
    return None


def _fresh(directory: Path) -> Path:
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    return directory
