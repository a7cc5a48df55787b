"""The link-speed question (plan/embedded/link_speed.toml): the same network cells swept over link
settings (`networks`, each cell's setting naming its `network=`), shown as time against link
rate per implementation, with the rate its work sustains once the link no longer binds (the
crossover: above it the work, not the link, is the bottleneck) and what binds it there
(serialization, when serving from RAM or decoding is distinctly slower than shipping the
stored pages; the machine, when it is not); what rates the emulated links and the nodes
reached; and the fastest implementation at each rate, with its lead."""
from __future__ import annotations

from .blocks import Row, Table
from .net_cells import cell_marks, network_note, transfer_floor_ns
from .series import distinct, marks
from .units import multiple, number, unit_for


SWEPT = "network"  # the setting key a sweep of links names (plan `networks`)
UNSHAPED = "none"


def link_name(link: str) -> str:
    """`2.5gbit` as `2.5 Gbit/s`; `none` as unshaped."""
    for unit, said in (("gbit", "Gbit/s"), ("mbit", "Mbit/s"), ("kbit", "kbit/s")):
        if link.endswith(unit):
            return f"{link[:-len(unit)]} {said}"
    return "unshaped" if link == UNSHAPED else link


def link_order(link: str) -> tuple:
    """Shaped links by rate, then unshaped, then anything else (loopback)."""
    scale = {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9}
    for unit, factor in scale.items():
        if link.endswith(unit):
            return (0, float(link[:-len(unit)]) * factor, link)
    return (1 if link == UNSHAPED else 2, 0.0, link)


def busiest_bits(c) -> float:
    """The bits into the node that received most (the client of a fetch, a tree's root)."""
    return 8 * max((f.get("bytes_received", 0) for f in c.nodes.values()), default=0)


def reached_bit(c) -> float | None:
    """The rate the busiest node received at over the cell's median time."""
    bits = busiest_bits(c)
    return bits / (c.total.median / 1e9) if bits and c.total.median else None


def _gbit(bits: float) -> str:
    return f"{bits / 1e9:.3g} Gbit/s"


def _range(bits: list[float]) -> str:
    low, high = min(bits), max(bits)
    return _gbit(low) if _gbit(low) == _gbit(high) else f"{low / 1e9:.3g}–{_gbit(high)}"


def _name(s, c) -> str:
    """The series label without its link and its marks (each rate's cell carries its own)."""
    plain = s.label[:len(s.label) - len(marks(s))]
    return plain.replace(f" {SWEPT}={c.settings[SWEPT]}", "")


def swept_rows(measured: list) -> tuple[list[str], dict[tuple, dict]]:
    """The links swept, slowest first, and (name, n) -> link -> (series, cell)."""
    swept = [(s, c) for s, c in measured if SWEPT in c.settings]
    links = sorted({str(c.settings[SWEPT]) for _, c in swept}, key=link_order)
    rows: dict[tuple, dict] = {}
    for s, c in swept:
        rows.setdefault((_name(s, c), c.n), {})[str(c.settings[SWEPT])] = (s, c)
    return links, rows


def link_views(tm, measured: list) -> list:
    links, rows = swept_rows(measured)
    if len(links) < 2:
        return []
    return [time_table(tm, links, rows), reach_table(tm, links, measured),
            *fastest_tables(tm, links, rows)]


def _time(c, floor_ns: float | None) -> str:
    unit = unit_for(c.total.median)
    over = f" ({multiple(c.total.median / floor_ns)})" if floor_ns else ""
    return f"{number(unit.of(c.total.median))} {unit.name}{over}{cell_marks(c)}"


def fastest_cell(by_link: dict, links: list[str]):
    """The row's cell on the fastest link it was measured on (the link binding it least)."""
    for link in reversed(links):
        if link in by_link:
            return link, by_link[link][1]
    return None, None


def bound_by(tm, name: str, n: int, rows: dict, links: list[str]) -> str:
    """What binds a fetch on its fastest link: serialization when serving from RAM or
    decoding at the client is distinctly slower there than shipping the stored pages
    (source=disk, same method and nodes), else the machine (moving and writing the bytes)."""
    if "source=disk" in name:
        return "the machine (nothing encoded or decoded)"
    source = next((s for s in ("source=ram", "source=decode") if s in name), None)
    disk = rows.get((name.replace(source, "source=disk"), n)) if source else None
    if not disk:
        return "—"
    link, cell = fastest_cell(rows[(name, n)], links)
    if link not in disk:
        return "—"
    other = disk[link][1]
    if cell.total.median > other.total.median and distinct(cell, other, tm.noise_of):
        work = "encoding at the servers" if source == "source=ram" else "decoding at the client"
        return f"serialization ({work}: {multiple(cell.total.median / other.total.median)} " \
               f"the time from disk)"
    return "the machine (as fast as from disk)"


def time_table(tm, links: list[str], rows: dict) -> Table:
    table = []
    for (name, n), by_link in sorted(rows.items()):
        link, fastest = fastest_cell(by_link, links)
        sustained = reached_bit(fastest)
        table.append(Row([name, f"{n:,}",
                          *(_time(by_link[l][1], transfer_floor_ns(by_link[l][1])) if l in by_link
                            else "—" for l in links),
                          _gbit(sustained) if sustained else "—",
                          bound_by(tm, name, n, rows, links)]))
    return Table(f"{tm.task} · {tm.model}: time against link rate",
                 ["implementation", "n", *map(link_name, links), "crossover",
                  "above it, bound by"], table,
                 "Median time on each link swept, and in brackets its multiple of the transfer "
                 "floor (the busiest node's bytes at its link's measured rate): near 1.00x the "
                 "link binds, well above it the work does. Crossover: the rate the work "
                 "sustains on the fastest link swept (the busiest node's bits over that time); "
                 "below it the link is the bottleneck, above it the work is. What binds the "
                 "work there: serialization when serving from RAM (or decoding) is distinctly "
                 "slower than shipping the same method's stored pages from disk, by this run's "
                 "noise, else the machine.",
                 numeric=frozenset(range(1, len(links) + 3)))


def reach_table(tm, links: list[str], measured: list) -> Table:
    """Per link: what it was set to, what its probe measured and the most any cell's busiest
    node received at."""
    rows = []
    for link in links:
        cells = [(s, c) for s, c in measured if str(c.settings.get(SWEPT)) == link]
        probes = [b for _, c in cells for b in (c.counters.get("measured_bit") or {}).values()]
        reached = [(r, s, c) for s, c in cells if (r := reached_bit(c))]
        best = max(reached, key=lambda rsc: rsc[0], default=None)
        rows.append(Row([link_name(link), network_note(cells[0][1]) if cells else "—",
                         _range(probes) if probes else "—",
                         _gbit(best[0]) if best else "—",
                         f"{_name(best[1], best[2])}, n = {best[2].n:,}" if best else "—"]))
    return Table(f"{tm.task} · {tm.model}: what the links reached",
                 ["link", "as set up", "probe measured", "reached by the nodes", "by"], rows,
                 "Each link setting swept: how it was made, the rate its probe measured when "
                 "it was made (one sender, lowest–highest over the namespaces), and the "
                 "highest rate a cell's busiest node received at. Where a faster setting "
                 "does not raise what the nodes reach, the machine (copying between "
                 "namespaces, the nodes' CPU on the shared cores), not the link, is the "
                 "limit.", numeric=frozenset({2, 3}))


def fastest_tables(tm, links: list[str], rows: dict) -> list:
    """Per setting (source, servers, ...) and n: the fastest implementation on each link and
    its lead over the runner-up (tied when this run does not set them apart)."""
    groups: dict[tuple, dict[str, list]] = {}
    for (name, n), by_link in rows.items():
        request = " · ".join(p for p in name.split(" · ") if "=" in p)
        for link, (s, c) in by_link.items():
            groups.setdefault((request, n), {}).setdefault(link, []).append((name, c))
    table = []
    for (request, n), by_link in sorted(groups.items()):
        table.append(Row([request or "—", f"{n:,}",
                          *(_lead(tm, by_link.get(link, []), request) for link in links)]))
    if not any(len(v) > 1 for g in groups.values() for v in g.values()):
        return []
    return [Table(f"{tm.task} · {tm.model}: the fastest on each link", ["request", "n",
                  *map(link_name, links)], table,
                  "The fastest implementation of each request on each link, and its time "
                  "as a fraction of the runner-up's (its lead); tied when this run's noise "
                  "does not set the two apart.")]


def _lead(tm, entries: list, request: str) -> str:
    ranked = sorted(entries, key=lambda e: e[1].total.median)
    if not ranked:
        return "—"
    short = ranked[0][0].replace(f" · {request}", "") if request else ranked[0][0]
    if len(ranked) == 1:
        return f"{short} (alone)"
    second = ranked[1][0].replace(f" · {request}", "") if request else ranked[1][0]
    ratio = ranked[1][1].total.median / ranked[0][1].total.median
    if not distinct(ranked[0][1], ranked[1][1], tm.noise_of):
        return f"{short}, tied with {second}"
    return f"{short}, {multiple(ratio)} ahead of {second}"
