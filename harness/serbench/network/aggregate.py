"""`net_aggregate` (PROTOCOL.md 10.6): a binary tree of 2^depth - 1 nodes, node i's children
2i+1 and 2i+2, every node starting with one sparse vector of the dataset (line i). Leaves send
theirs up; every other node adds its children's sums to its own; the root writes the total.

The expected total is computed here, independently of any driver, in the order the protocol
fixes for floating-point sums (own vector, then each child's sum in the order of the
children's names); the root's checksum must equal it and its file must read back to it.

A cell with a `density` setting thins every node's vector to that density first (the same
positions kept in every run), so one dataset gives the time-against-density sweep.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..cell import parse_roles, tree_size
from ..datasets.manifest import data_path
from ..drivers.process import DriverProcess
from ..models.checksum import MASK, hex64, object_hash
from ..paths import file_key
from .exchange import NetCell, NodeSpec


ID = "net_aggregate"
DEFAULT_DEPTH = 3  # 7 nodes: 4 leaves, 2 middle, 1 root, as in the studies


def kind(i: int, count: int) -> str:
    """Node i's role in the plan's `roles`: root, middle or leaf."""
    return "root" if i == 0 else "middle" if 2 * i + 1 < count else "leaf"


def names(count: int) -> list[str]:
    return [f"{kind(i, count)}{i}" for i in range(count)]


def node_languages(cell) -> list[str]:
    """Node i's language in the plan cell's tree: the cell's own unless its roles name others
    for node i's kind, whose nodes take them in turn (in node order)."""
    roles = parse_roles(cell.settings.get("roles", ""))
    count = tree_size(cell.settings["tree_depth"])
    kinds = [kind(i, count) for i in range(count)]
    languages = []
    for i, k in enumerate(kinds):
        turn = roles.get(k, (cell.language,))
        languages.append(turn[kinds[:i].count(k) % len(turn)])
    return languages


def tree_links(cell) -> list[tuple[str, str]]:
    """(sender, receiver) languages of the plan cell's links: each node to its parent."""
    languages = node_languages(cell)
    return [(languages[i], languages[(i - 1) // 2]) for i in range(1, len(languages))]


def children(i: int, count: int) -> list[int]:
    return [c for c in (2 * i + 1, 2 * i + 2) if c < count]


def frame_limit(p: dict) -> dict:
    """The cell's `net_frame_bytes` as a node's param, when the cell has one (a node without
    it keeps the drivers' default, 64 MiB)."""
    return {"net_frame_bytes": p["net_frame_bytes"]} if "net_frame_bytes" in p else {}


def tree_nodes(languages: list[str], params_of) -> list[NodeSpec]:
    """Role `tree` for node i, running `languages[i]`: it dials its parent, accepts its
    children; `params_of(i, name)` gives its setup params."""
    count = len(languages)
    named = names(count)
    return [NodeSpec(name, "tree", languages[i], params_of(i, name),
                     (named[(i - 1) // 2],) if i else (), len(children(i, count)))
            for i, name in enumerate(named)]


class Aggregate:
    id = ID

    def nodes(self, cell: NetCell) -> list[NodeSpec]:
        p = cell.params

        def params_of(i: int, name: str) -> dict:
            params = {"input": str(Path(p["inputs"]) / f"{name}.jsonl"),
                      "page_size": p["page_size"], "net_page_bytes": p["net_page_bytes"],
                      **frame_limit(p)}
            return {**params, "output": str(p["output"])} if i == 0 else params
        return tree_nodes(p["node_languages"], params_of)

    def timing_node(self, cell: NetCell) -> str:
        return names(cell.params["nodes"])[0]

    def language_links(self, cell) -> list[tuple[str, str]]:
        return tree_links(cell)

    def check(self, cell: NetCell, reports: dict[str, dict]) -> str | None:
        root = reports[self.timing_node(cell)]
        if root.get("checksum") != cell.params["expected"]:
            return f"the root's sum has checksum {root.get('checksum')}, expected " \
                   f"{cell.params['expected']}"
        return None

    def net_cell(self, cell, base: Path, hashes, work: Path) -> NetCell:
        count = tree_size(cell.settings["tree_depth"])
        output = work / "output"
        output.mkdir(parents=True, exist_ok=True)
        density = cell.settings.get("density")
        inputs, expected = shared_inputs(data_path(cell.dataset_dir, cell.model), count,
                                         float(density) if density else None,
                                         work.parent / "aggregate_inputs")
        params = {"nodes": count, "inputs": inputs, "output": output,
                  "node_languages": node_languages(cell),
                  "page_size": cell.page_size, "net_page_bytes": cell.net_page_bytes,
                  "net_frame_bytes": cell.net_frame_bytes, **expected}
        return NetCell.of(ID, cell, "", params)

    def read_back_problem(self, cell: NetCell, scanner: DriverProcess,
                          depth: str) -> str | None:
        base = Path(cell.params["output"]) / "sum"
        response = scanner.request("scan", model=cell.model, method=cell.method, depth=depth,
                                   variant=scanner.validating_variant(cell.method),
                                   params={"input": str(base),
                                           "page_size": cell.params["page_size"]})
        if response.get("status") != "ok":
            return f"{base}: the root's file does not read back: {response}"
        got = response["result"]["checksum"]
        want = cell.params["expected"]
        return None if got == want else f"the root's file holds {got}, expected {want}"

    def counters(self, cell: NetCell, reports: dict[str, dict]) -> dict:
        moved = sum(r["bytes_received"] for r in reports.values())
        return {"objects": 1, "nodes": cell.params["nodes"], "bytes_moved": moved,
                "sum_entries": cell.params["entries"], "density": cell.params["density"]}


class DensityError(ValueError):
    pass


def split_inputs(jsonl: Path, named: list[str], directory: Path,
                 density: float | None = None) -> list[dict]:
    """Line i of the dataset (thinned to `density` if given) as node i's own input file; the
    parsed vectors."""
    vectors = []
    with open(jsonl, "rb") as lines:
        for name in named:
            line = lines.readline()
            if not line.strip():
                raise ValueError(f"{jsonl}: the tree needs {len(named)} sparse vectors, "
                                 f"the dataset holds {len(vectors)}")
            vector = json.loads(line)
            if density is not None:
                vector = thinned(vector, density, f"{jsonl}, line {len(vectors) + 1}")
                line = json.dumps(vector, separators=(",", ":")).encode() + b"\n"
            (directory / f"{name}.jsonl").write_bytes(line)
            vectors.append(vector)
    return vectors


def thinned(vector: dict, density: float, where: str) -> dict:
    """The vector with only the entries whose position hashes below density / its own
    density: a fixed subset, so every run and method sums the same vectors."""
    entries = vector["entries"]
    own = len(entries) / vector["dimension"]
    if density > own * (1 + 1e-9):
        raise DensityError(f"{where}: density {density:g} asked, the vector's is {own:.3g}; "
                           f"thinning only removes entries (make denser data: serbench data "
                           f"sparse --density)")
    bound = int(density / own * 2**64) if own else 0
    return {"dimension": vector["dimension"],
            "entries": [e for e in entries if _mix(e["position"]) < bound]}


def _mix(position: int) -> int:
    """splitmix64's finalizer: positions spread evenly over 64 bits."""
    z = (position + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


# Every method's cell and every round of one dataset file, tree and density read the same
# node inputs and expect the same total: split once per run directory, not per round (a
# split parses, thins and rewrites the vectors in Python: at 10^7 dimensions 8-9 s at
# densities 0.001 and 0.01 and 18 s at 0.1, one measurement each, for every round of every cell)
_SHARED: dict[tuple, tuple[Path, dict]] = {}


def shared_inputs(source: Path, count: int, density: float | None,
                  root: Path) -> tuple[Path, dict]:
    """The directory under `root` holding each node's input file (`<name>.jsonl`) and the
    expectation (expected_sum) of `source` split over `count` nodes at `density`: made on
    first use, again only when the file changed or the directory is gone."""
    key = (file_key(source), count, density, root)
    known = _SHARED.get(key)
    if known is not None and known[0].is_dir():
        return known[0], _copy(known[1])
    inputs = root / f"{source.parent.name}-{source.stem}-{count}-{density or 'stored'}"
    inputs.mkdir(parents=True, exist_ok=True)
    _SHARED[key] = (inputs, expected_sum(split_inputs(source, names(count), inputs, density)))
    return inputs, _copy(_SHARED[key][1])


def _copy(expected: dict) -> dict:
    return {**expected, "expected": dict(expected["expected"])}


def expected_sum(vectors: list[dict]) -> dict:
    """The root's expected checksum, the sum's entry count and the nodes' mean density."""
    total = tree_sum(vectors, 0, len(vectors))
    return {"expected": {"count": 1, "sum": hex64(object_hash("sparse", total))},
            "entries": len(total["entries"]), "density": mean_density(vectors)}


def mean_density(vectors: list[dict]) -> float:
    return sum(len(v["entries"]) / v["dimension"] for v in vectors) / len(vectors)


def tree_sum(vectors: list[dict], i: int, count: int) -> dict:
    """Node i's sum: its own vector, then each child's sum in the order of their names."""
    total = vectors[i]
    named = names(count)
    for child in sorted(children(i, count), key=lambda c: named[c]):
        total = merge_sum(total, tree_sum(vectors, child, count))
    return total


def merge_sum(a: dict, b: dict) -> dict:
    if a["dimension"] != b["dimension"]:
        raise ValueError(f"sparse vectors of dimensions {a['dimension']} and {b['dimension']}")
    x, y, out = a["entries"], b["entries"], []
    i = j = 0
    while i < len(x) and j < len(y):
        p, q = x[i]["position"], y[j]["position"]
        if p < q:
            out.append(x[i])
            i += 1
        elif q < p:
            out.append(y[j])
            j += 1
        else:
            out.append({"position": p, "value": x[i]["value"] + y[j]["value"]})
            i += 1
            j += 1
    out += x[i:]
    out += y[j:]
    return {"dimension": a["dimension"], "entries": out}
