"""The link-speed question (issue 41.4): a plan group's `networks` sweeps its network cells
over link settings, each cell named by its link; plan/embedded/link_speed.toml asks the question at
the reference study's request sizes; and the report's time-against-link-rate section, on
hand-made cells, shows each implementation's time per link, its crossover and what binds it
above, what the links reached, and the fastest on each link with its lead."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from serbench.plan import Cell as PlanCell
from serbench.plan import PlanError, expand, load_embedded, parse_plan
from serbench.report.blocks import Table
from serbench.report.data import load_run
from serbench.report.reproduction import NETWORK_FIGURES
from serbench.report.render import build_sections
from serbench.results import CellResult, Results

from test_plan import info

MS = 1_000_000
RUN = "run-links"
PROVENANCE = {"host": {"cpu_model": "test"}, "toolchains": {"python": "3"}, "drivers": {},
              "git": {"commit": "abc", "dirty": False}}
PROBED = {"1gbit": 0.95e9, "10gbit": 9.4e9, "none": 20e9}  # each link's probe, bit/s
# the run-to-run noise the run recorded, so that its ties do not follow the defaults
# measured on some VM
NOISE = {"sigma": {"net_fetch": 0.05}, "source": "the fixture"}


def fetch(link: str, ms: float, received: int) -> CellResult:
    """A fetch on `link`: five rounds of about `ms` (the same 1 % wobble in every cell, so
    paired rounds cancel it), the client receiving `received` bytes."""
    samples = []
    for i in range(5):
        total = int(ms * MS * (1 + 0.01 * (i % 2)))
        nodes = {"client": {"total_ns": total, "cpu_ns": total // 4, "io_ns": total - total // 4,
                            "bytes_sent": 20, "bytes_received": received},
                 "server0": {"total_ns": total, "bytes_sent": received, "bytes_received": 10}}
        samples.append({"rep": i, "warmup": False, "total_ns": total, "cpu_ns": total // 4,
                        "io_ns": total - total // 4, "round": i, "nodes": nodes})
    rate = None if link == "none" else int(float(link[:-4]) * 1e9)
    return CellResult("ok", counters={"network": "namespaces", "link_rate_bit": rate,
                                      "measured_bit": {"sbn0": PROBED[link], "sbn1": PROBED[link]},
                                      "bytes_moved": received}, samples=samples)


BASE = PlanCell(language="cpp", task="net_fetch", model="part", method="inplace", depth="",
                variant="", setting="", dataset="link_tpch", dataset_dir=Path("/data/l"),
                n=10_000, threads=1, page_size=262144, cold=False, warmups=0, repetitions=1,
                seed=42, timeout_s=60.0, pin_cpus="")
# (language, method, source, bytes into the client, ms on 1gbit, 10gbit, unshaped): every
# method link-bound at 1 Gbit/s; unshaped, C++ in-place from RAM as fast as from disk,
# hand-coded and JSON from RAM held up by encoding
FETCHES = [("cpp", "inplace", "ram", 1_250_000, (10.6, 1.1, 0.52)),
           ("cpp", "inplace", "disk", 1_250_000, (10.6, 1.1, 0.50)),
           ("cpp", "handcoded", "ram", 1_250_000, (10.65, 1.5, 1.40)),
           ("cpp", "handcoded", "disk", 1_250_000, (10.6, 1.1, 0.55)),
           ("rust", "json", "ram", 3_000_000, (25.5, 6.0, 6.0)),
           ("rust", "json", "disk", 3_000_000, (25.5, 2.6, 1.3))]
LINKS = ("1gbit", "10gbit", "none")


def cells(links=LINKS) -> list[tuple[PlanCell, CellResult]]:
    made = []
    for language, method, source, received, times in FETCHES:
        for link, ms in zip(LINKS, times):
            if link in links:
                cell = replace(BASE, language=language, method=method,
                               setting=f"source={source} servers=2 network={link}")
                made.append((cell, fetch(link, ms, received)))
    return made


def sections_of(path: Path, made) -> dict:
    with Results(path) as results:
        results.begin_run(RUN, "link_speed", "[[group]]", 42, PROVENANCE, {"noise": NOISE})
        for i, (cell, result) in enumerate(made, 1):
            results.add_cell(RUN, replace(cell, cell_id=i), result)
        results.finish_run(RUN, "complete")
    found = {}
    for s in build_sections(load_run(path, RUN)):
        found |= {c.id: c for c in [s, *s.children]}
    return found


@pytest.fixture(scope="module")
def fetch_section(tmp_path_factory):
    return sections_of(tmp_path_factory.mktemp("links") / "results.duckdb",
                       cells())["net_fetch-part"]


def table(section, title_end: str) -> Table:
    return next(b for b in section.blocks if isinstance(b, Table) and b.title.endswith(title_end))


def rows_of(t: Table) -> dict[str, list[str]]:
    return {r.values[0]: r.values[1:] for r in t.rows}


def test_time_against_link_rate_gives_each_implementation_its_crossover(fetch_section):
    t = table(fetch_section, "time against link rate")
    assert t.columns == ["implementation", "n", "1 Gbit/s", "10 Gbit/s", "unshaped",
                         "crossover", "above it, bound by"]
    rows = rows_of(t)
    # link-bound at 1 Gbit/s (1.25 MB at 0.95 Gbit/s is 10.5 ms); unshaped the work binds:
    # 10^7 bits in 0.52 ms is 19.2 Gbit/s, in 1.4 ms 7.14 Gbit/s
    assert rows["cpp · inplace · source=ram servers=2"] == [
        "10,000", "10.6 ms (1.01x)", "1.10 ms (1.03x)", "520 µs (1.04x)", "19.2 Gbit/s",
        "the machine (as fast as from disk)"]
    assert rows["cpp · handcoded · source=ram servers=2"][4:] == [
        "7.14 Gbit/s", "serialization (encoding at the servers: 2.55x the time from disk)"]
    assert rows["rust · json · source=ram servers=2"][4:] == [
        "4 Gbit/s", "serialization (encoding at the servers: 4.62x the time from disk)"]
    assert rows["cpp · handcoded · source=disk servers=2"][5] == \
        "the machine (nothing encoded or decoded)"


def test_the_links_reached_say_where_the_machine_limits(fetch_section):
    rows = rows_of(table(fetch_section, "what the links reached"))
    assert rows["1 Gbit/s"][:2] == ["tbf 1 Gbit/s, measured 0.95–0.95 Gbit/s", "0.95 Gbit/s"]
    # unshaped: 10^7 bits in 0.50 ms, C++ in-place from disk the fastest to arrive
    assert rows["unshaped"] == ["unshaped veth, measured 20–20 Gbit/s", "20 Gbit/s",
                                "20 Gbit/s", "cpp · inplace · source=disk servers=2, n = 10,000"]


def test_the_fastest_on_each_link_is_tied_until_the_run_sets_it_apart(fetch_section):
    rows = rows_of(table(fetch_section, "the fastest on each link"))
    assert rows["source=ram servers=2"] == [
        "10,000", "cpp · inplace, tied with cpp · handcoded",
        "cpp · inplace, 1.36x ahead of cpp · handcoded",
        "cpp · inplace, 2.69x ahead of cpp · handcoded"]


def test_the_in_place_finding_compares_cells_of_one_link(tmp_path):
    """The published in-place finding, swept: each link's in-place beside the fastest other
    method on the same link, never a faster link's."""
    found = sections_of(tmp_path / "f.duckdb", cells())
    row = next(b for b in found["network-findings"].blocks if isinstance(b, Table)).rows
    subject = next(fig.subject for fig in NETWORK_FIGURES if fig.key == "net_fetch_ram_inplace")
    measured = next(r.values for r in row if r.values[0] == subject)[3]
    assert measured == ("cpp inplace on 10gbit 1.10 ms vs handcoded 1.50 ms: 1.36x; "
                        "cpp inplace on 1gbit 10.6 ms vs handcoded 10.7 ms: 1.00x; "
                        "cpp inplace on none 520 µs vs handcoded 1.40 ms: 2.69x")


def test_one_link_has_no_link_rate_section(tmp_path):
    section = sections_of(tmp_path / "r.duckdb", cells(("1gbit",)))["net_fetch-part"]
    assert not [b for b in section.blocks if isinstance(b, Table) and "link" in b.title]


def test_networks_sweep_a_groups_cells_each_named_by_its_link():
    infos = {"rust": {**info(), "net_tasks": ["net_fetch"]}}
    plan = parse_plan('[[group]]\ntasks = ["net_fetch"]\nmodels = ["part"]\nmethods = ["json"]\n'
                      'n = [10]\nsources = ["ram"]\nservers = 2\n'
                      'networks = ["10gbit", "1gbit", "none"]\n', "p.toml", "p")
    made = expand(plan, infos, lambda d, m: 100, Path("/data"))
    assert sorted((c.setting, c.network) for c in made) == [
        ("source=ram servers=2 network=10gbit", "10gbit"),
        ("source=ram servers=2 network=1gbit", "1gbit"),
        ("source=ram servers=2 network=none", "none")]
    for bad, problem in (('["1gbit", "1gbit"]', "must be a list of distinct values, each "
                                                  "loopback, none or a link rate"),
                         ('["fast"]', "must be loopback, none or a link rate such as 10gbit, "
                                      "got 'fast'")):
        with pytest.raises(PlanError, match=rf"group\[1\].networks: {problem}"):
            parse_plan(f'[[group]]\ntasks = ["net_fetch"]\nnetworks = {bad}\n', "p.toml", "p")


def test_the_link_speed_plan_asks_the_question_at_the_studys_request_sizes():
    plan = load_embedded("link_speed")
    fetches = [g for g in plan.groups if "net_fetch" in g.tasks]
    assert {m for g in fetches for m in g.models} == {"part", "customer"}
    for g in fetches:
        assert set(g.params.sources) == {"ram", "disk"}
        assert {"1gbit", "none"} <= set(g.params.networks) and len(g.params.networks) >= 3
    assert {n for g in fetches for n in g.params.n} == {10_000, 100_000}
    assert set(plan.datasets) >= {g.params.dataset for g in fetches}
