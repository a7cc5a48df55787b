"""The network tasks (serbench.network): the method's file is made like a read's, then the
cell runs on its nodes; the group's verified driver reads the outputs back. Before any is
timed, every language pair the group's mixed cells use is proved with a small fetch."""
from __future__ import annotations

from ..cell import tree_size
from ..network import aggregate, fetch, sort_merge
from ..network.measure import TASKS as NETWORK_TASKS, measure
from ..network.proof import PROOF_OBJECTS, Pair, Source, prove_fetches
from ..results import CellResult
from .spec import NetSpec, TaskSpec


def run(runner, driver, cell) -> CellResult:
    source = runner.file_for(driver, cell)
    if source.problem is not None:
        return source.problem
    depths = runner.infos[cell.language]["methods"][cell.method]["depths"]
    return measure(cell, source.base, runner.dataset_hashes(cell), runner.drivers, driver,
                   cell.depth or depths[0], runner.run_dir / "net" / f"cell{cell.cell_id}",
                   runner.networks)


def pairs_of(cell) -> set[Pair]:
    """(sender, receiver) languages of every link of the cell whose ends differ."""
    return {Pair(sender, receiver)
            for sender, receiver in NETWORK_TASKS[cell.task].language_links(cell)
            if sender != receiver}


def prove(runner, driver, cells) -> dict:
    """The group's mixed network cells whose language pairs fail their proof (one small fetch
    with decode per pair, shared by every cell using it), each failed naming its pair."""
    needs = {cell: pairs_of(cell) for cell in cells if cell.task in NETWORK_TASKS}
    used = set().union(*needs.values())
    if not used:
        return {}
    first = next(cell for cell, pairs in needs.items() if pairs)
    file = runner.file_for(driver, first)
    if file.problem is not None:  # each cell reports it when it runs
        return {}
    source = Source(first.dataset_dir, first.model, first.method, file.base, first.page_size,
                    runner.dataset_hashes(first))
    problems = prove_fetches(source, used, runner.drivers, runner.run_dir / "net" / "proof")
    blocked = {}
    for cell, pairs in needs.items():
        failing = sorted((p for p in pairs if problems[p]), key=str)
        if failing:
            pair = failing[0]
            blocked[cell] = CellResult(
                "failed", "network",
                f"the {pair} {cell.method} pair failed its proof before timing (a "
                f"{PROOF_OBJECTS}-object fetch with decode from a {pair.sender} server to a "
                f"{pair.receiver} client): {problems[pair]}")
    return blocked


def fetch_points(params, model: str, method: str, depths: tuple[str, ...],
                 offered: tuple[str, ...], count: int) -> list:
    """One cell per source and n (objects per server, capped so that every server has its
    own objects); `decode` at each depth the client reads at, the others decode nothing."""
    per_server = count // params.servers
    ns = sorted({min(n, per_server) for n in params.n}) if per_server else []
    points = []
    for source in params.sources:
        for depth in (depths or offered[:1] or ("",)) if source == "decode" else ("",):
            why = depth and depth not in offered and f"{method} does not read at depth {depth}"
            points += [(depth, n, f"source={source} servers={params.servers}", why or None)
                       for n in ns]
    return points


def aggregate_points(params, model: str, method: str, depths: tuple[str, ...],
                     offered: tuple[str, ...], count: int) -> list:
    """One cell per density (the dataset's own vectors without `densities`), every node
    decoding its children's vectors."""
    nodes = tree_size(params.tree_depth)
    why = ((model != "sparse" and "net_aggregate sums sparse vectors")
           or ("materialize" not in offered and f"{method} does not materialize")
           or (count < nodes and f"the tree's {nodes} nodes need {nodes} sparse vectors, "
                                 f"the dataset holds {count}") or None)
    return [("materialize", 1, f"tree_depth={params.tree_depth}"
             + (f" density={density:g}" if density else ""), why)
            for density in params.densities or (None,)]


def sort_merge_points(params, model: str, method: str, depths: tuple[str, ...],
                      offered: tuple[str, ...], count: int) -> list:
    """One cell per n, objects per node (each node its own)."""
    nodes = tree_size(params.tree_depth)
    why = "materialize" not in offered and f"{method} does not materialize" or None
    ns = sorted({min(n, count // nodes) for n in params.n}) if count >= nodes else []
    return [("materialize", n, f"tree_depth={params.tree_depth}", why) for n in ns]


def fetch_nodes(params) -> dict[str, int]:
    return {"server": params.servers, "client": 1}


def tree_roles(params) -> dict[str, int]:
    count = tree_size(params.tree_depth)
    leaves = (count + 1) // 2 if count > 1 else 0
    return {"leaf": leaves, "middle": count - leaves - 1, "root": 1}


TREE = f"a binary tree ({tree_size(3)} nodes by default)"


# what a repetition moves, for the reproduction's estimate (its trees at the default depth)
def fetch_work(cell, object_bytes: float, dataset_bytes: float) -> tuple[float, float]:
    return cell.settings.get("servers", 1) * cell.n * object_bytes, 0.0


def aggregate_work(cell, object_bytes: float, dataset_bytes: float) -> tuple[float, float]:
    return tree_size(3) * object_bytes, 0.0


def sort_merge_work(cell, object_bytes: float, dataset_bytes: float) -> tuple[float, float]:
    return 2 * tree_size(3) * cell.n * object_bytes, 0.0


SPECS = (
    TaskSpec(fetch.ID, run, title="Network fetch", what="One client asks S servers at once "
             "for n objects each (n is per server) and writes what arrives, network page by "
             "network page, to one paged file per server, fsynced; timed at the client. "
             "Sources: ram (the server encodes native objects per request), disk (stored pages "
             "shipped as they are), decode (as disk, and the client decodes every object). "
             "Nodes run in network namespaces on links shaped to the plan's rate (tbf; this "
             "kernel cannot emulate delay) or on loopback; each cell's counters name the network "
             "and the measured link rate.", view="net", family="network",
             net=NetSpec(("server", "client"), fetch_points, fetch_nodes, ("client",)),
             work=fetch_work,
             noise=(("", 0.0909), ("cpp", 0.1055), ("rust", 0.0925))),
    TaskSpec(aggregate.ID, run, title="Network tree aggregation", what=f"Sparse vectors "
             f"summed up {TREE}: leaves send their vector up, every other node decodes its "
             "children's sums and adds them to its own, the root writes the total; timed at "
             "the root.", view="net", family="network",
             net=NetSpec(("leaf", "middle", "root"), aggregate_points, tree_roles),
             work=aggregate_work, noise=(("", 0.1205),)),
    TaskSpec(sort_merge.ID, run, title="Network tree sort-merge", what="The same tree over "
             "a model with a total order: every node sorts its n objects, merges its children's "
             "sorted streams with them and streams the result up; the root writes the whole "
             "sorted sequence; timed at the root.", view="net", family="network",
             net=NetSpec(("leaf", "middle", "root"), sort_merge_points, tree_roles),
             work=sort_merge_work, noise=(("", 0.1066),)),
)
