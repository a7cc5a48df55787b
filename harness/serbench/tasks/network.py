"""The network tasks (serbench.network): the method's file is made like a read's, then the
cell runs on its nodes; the group's verified driver reads the outputs back. Before any is
timed, every language pair the group's mixed cells use is proved with a small fetch."""
from __future__ import annotations

from ..network.measure import TASKS as NETWORK_TASKS, measure
from ..network.proof import PROOF_OBJECTS, Pair, Source, prove_fetches
from ..results import CellResult


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


TASKS = {task: run for task in NETWORK_TASKS}
