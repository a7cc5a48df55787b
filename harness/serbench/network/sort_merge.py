"""`net_sort_merge` (PROTOCOL.md 10.7): the tree of `net_aggregate` over a model with a total
order. Node i holds objects `i*n .. (i+1)*n` of the method's paged file; leaves sort theirs
and stream them up, every other node merges its children's streams with its own sorted
objects, and the root writes the whole sorted sequence. Expected: the harness sorts the same
objects itself (the model's total order) for the count, set and sequence checksums."""
from __future__ import annotations

import json
from functools import lru_cache
from itertools import islice
from pathlib import Path

from ..cell import tree_size
from ..datasets.manifest import data_path
from ..drivers.process import DriverProcess
from ..models.checksum import hex64, object_hash, sequence_checksum, set_checksum
from ..models.order import sort_key
from ..paths import file_key
from .aggregate import frame_limit, names, node_languages, tree_links, tree_nodes
from .exchange import NetCell, NodeSpec


ID = "net_sort_merge"


class SortMerge:
    id = ID

    def nodes(self, cell: NetCell) -> list[NodeSpec]:
        p = cell.params

        def params_of(i: int, name: str) -> dict:
            params = {"input": str(p["input"]), "start": i * p["n"], "n": p["n"],
                      "net_page_bytes": p["net_page_bytes"], **frame_limit(p)}
            return {**params, "output": str(p["output"])} if i == 0 else params
        return tree_nodes(p["node_languages"], params_of)

    def timing_node(self, cell: NetCell) -> str:
        return names(cell.params["nodes"])[0]

    def language_links(self, cell) -> list[tuple[str, str]]:
        return tree_links(cell)

    def check(self, cell: NetCell, reports: dict[str, dict]) -> str | None:
        root, want = reports[self.timing_node(cell)], cell.params["expected"]
        got = (root.get("objects"), root.get("checksum"), root.get("sequence"))
        expected = (want["count"], {"count": want["count"], "sum": want["set_sum"]},
                    want["sum"])
        if got != expected:
            return f"the root's sorted output (objects, set, sequence) is {got}, " \
                   f"expected {expected}"
        return None

    def net_cell(self, cell, base: Path, hashes, work: Path) -> NetCell:
        count = tree_size(cell.settings["tree_depth"])
        total = count * cell.n
        output = work / "output"
        output.mkdir(parents=True, exist_ok=True)
        params = {"nodes": count, "n": cell.n, "input": base, "output": output,
                  "node_languages": node_languages(cell), "page_size": cell.page_size,
                  "net_page_bytes": cell.net_page_bytes, "net_frame_bytes": cell.net_frame_bytes,
                  "expected": sorted_expectation(data_path(cell.dataset_dir, cell.model),
                                                 cell.model, total)}
        return NetCell.of(ID, cell, "", params)

    def read_back_problem(self, cell: NetCell, scanner: DriverProcess,
                          depth: str) -> str | None:
        base = Path(cell.params["output"]) / "sorted"
        response = scanner.request("scan", model=cell.model, method=cell.method, depth=depth,
                                   variant=scanner.validating_variant(cell.method),
                                   params={"input": str(base),
                                           "page_size": cell.params["page_size"]})
        if response.get("status") != "ok":
            return f"{base}: the root's file does not read back: {response}"
        got, want = response["result"]["checksum"], cell.params["expected"]
        expected = {"count": want["count"], "sum": want["set_sum"]}
        return None if got == expected else f"the root's file holds {got}, expected {expected}"

    def counters(self, cell: NetCell, reports: dict[str, dict]) -> dict:
        moved = sum(r["bytes_received"] for r in reports.values())
        return {"objects": cell.params["expected"]["count"], "nodes": cell.params["nodes"],
                "bytes_moved": moved}


def sorted_expectation(jsonl: Path, model: str, total: int) -> dict:
    """Count, set checksum and sequence checksum of the first `total` objects, sorted (the
    same for every method's cell: computed once per file)."""
    return dict(_sorted_expectation(file_key(jsonl), model, total))


@lru_cache(maxsize=16)
def _sorted_expectation(source: tuple, model: str, total: int) -> dict:
    with open(source[0], "rb") as lines:
        objects = [json.loads(line) for line in islice(lines, total)]
    key = sort_key(model)
    ordered = sorted(objects, key=key)
    hashes = [object_hash(model, o) for o in ordered]
    count, set_sum = set_checksum(hashes)
    return {"count": count, "sum": hex64(sequence_checksum(hashes)), "set_sum": hex64(set_sum)}
