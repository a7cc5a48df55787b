"""The network tasks' own views: what the network allowed against what the task took. Per
implementation and n: the bytes moved, the link's measured rate, the transfer floor (the most
bytes any one node received, at that node's measured link rate: no task can finish sooner)
and the time as a multiple of it, so a reader sees whether the network or the work bound the
task; the same request by every language's nodes side by side (one column per language);
then each node's cpu / io split (on a cluster, with the host it ran on), so the bottleneck
node is visible; on a cluster, its hosts and the link rates measured between them, and where
a cell put several nodes on one host, their figures summed per host; for an aggregation swept
over density, its time against density; for cells swept over link settings, time against
link rate (link_views.py)."""
from __future__ import annotations

from .blocks import Row, Table, said_once
from .link_views import link_views
from .data import host_name
from .net_cells import cell_marks, gbit, network_note, node_host, transfer_floor_ns
from .series import LANGUAGES, canonical, marks, ok_status
from .task_views import series_cells, status_rows
from .units import byte_size, multiple, number, unit_for


def _ms(ns: float) -> str:
    return f"{ns / 1e6:,.1f}"


def _request(s) -> tuple:
    """What a series asks of the nodes whatever their language."""
    return (s.key.depth, s.key.method, s.key.variant, s.key.setting)


def _side_by_side(sc) -> tuple:
    """A method's request by each language's nodes on adjacent rows, rust, cpp, java."""
    return (*_request(sc[0]), canonical(sc[0].key.language, LANGUAGES), sc[0].label, sc[1].n)


def _request_label(s) -> str:
    """The series label without its language and without its marks (each language's cell
    carries its own)."""
    plain = s.label[:len(s.label) - len(marks(s))]
    return plain.removeprefix(f"{s.key.language} · ")


def net_views(tm) -> list:
    measured = sorted(((s, c) for s, c in series_cells(tm) if c.measured), key=_side_by_side)
    columns = ["implementation", "n", "time", "bytes moved", "network",
               "× transfer floor", "busiest node (cpu / io ms)", "status"]
    rows = []
    for s, c in measured:
        unit = unit_for(c.total.median)
        floor = transfer_floor_ns(c)
        busiest = max(c.nodes.items(), key=lambda kv: kv[1].get("cpu_ns", 0), default=None)
        node = (f"{node_name(c, busiest[0])}{_on(c, busiest[0])} "
                f"({_ms(busiest[1].get('cpu_ns', 0))} / "
                f"{_ms(busiest[1].get('io_ns', 0))})") if busiest else ""
        rows.append(Row([s.label, f"{c.n:,}", f"{number(unit.of(c.total.median))} {unit.name}",
                         byte_size(c.counters.get("bytes_moved", 0)), network_note(c),
                         multiple(c.total.median / floor) if floor else "—", node,
                         ok_status(c)]))
    blocks = [said_once(Table(f"{tm.task} · {tm.model}: network", columns,
                              rows + status_rows(series_cells(tm), len(columns)),
                              numeric=frozenset({1, 2, 3, 5}), badge=len(columns) - 1),
                        ("n", "network"))]
    blocks += language_views(tm)
    blocks += density_views(tm.task, tm.model, measured)
    blocks += link_views(tm, measured)
    at_n = [(s, c) for s, c in measured if c.n == tm.n and c.nodes]
    if at_n:
        blocks.append(node_table(tm, at_n))
    blocks += hosts_views(tm, measured) + host_sums_views(tm, at_n)
    return blocks


def node_name(c, node: str) -> str:
    """A node's name, with its language in a mixed cell."""
    language = (c.counters.get("node_languages") or {}).get(node)
    return f"{node} ({language})" if language else node


def _on(c, node: str) -> str:
    host = node_host(c, node)
    return f" on {host}" if host else ""


def node_table(tm, at_n: list) -> Table:
    """Each node's figures; on a cluster, with the host it ran on, so they are the hosts';
    with a JIT node (Java), what its compiler did while measured: a node still compiling
    makes its cell unsteady (steady.py), and this column says which."""
    placed = any(c.counters.get("hosts") for _, c in at_n)
    jit = any("jit_cpu_ns" in f or "jit_ms" in f for _, c in at_n for f in c.nodes.values())
    rows = [Row([s.label, node_name(c, name), *([node_host(c, name) or "—"] if placed else []),
                 _ms(f.get("total_ns", 0)), _ms(f.get("cpu_ns", 0)), _ms(f.get("io_ns", 0)),
                 byte_size(f.get("bytes_sent", 0)), byte_size(f.get("bytes_received", 0)),
                 byte_size(f.get("peak_rss_bytes", 0)), *([_jit(f)] if jit else [])])
            for s, c in at_n for name, f in sorted(c.nodes.items())]
    first = 3 if placed else 2
    return Table(f"{tm.task} · {tm.model}: every node at n = {tm.n:,}",
                 ["implementation", "node", *(["host"] if placed else []), "total ms", "cpu ms",
                  "io ms (sockets, files)", "sent", "received", "peak RSS",
                  *(["JIT ms (compiled / compiler CPU)"] if jit else [])], rows,
                 numeric=frozenset(range(first, first + 6 + jit)))


def _jit(figures: dict) -> str:
    """A JIT node's median per repetition: compilations ended, compiler threads' CPU."""
    if "jit_ms" not in figures and "jit_cpu_ns" not in figures:
        return "—"
    ended = f"{figures['jit_ms']:,.0f}" if "jit_ms" in figures else "—"
    cpu = _ms(figures["jit_cpu_ns"]) if "jit_cpu_ns" in figures else "—"
    return f"{ended} / {cpu}"


def hosts_views(tm, measured: list) -> list:
    """A cluster's hosts as the placement recorded them (dask_placement.describe), with the
    nodes placed on each and the link rates measured from it to its peers."""
    hosts: dict[str, dict] = {}
    nodes: dict[str, set] = {}
    for _, c in measured:
        for node, host in (c.counters.get("hosts") or {}).items():
            hosts[host_name(host)] = host
            nodes.setdefault(host_name(host), set()).add(node)
    if not hosts:
        return []
    rates: dict[str, list] = {}
    for _, c in measured:
        for pair, bits in (c.counters.get("measured_bit") or {}).items():
            rates.setdefault(pair.split("->")[0], []).append(bits)
    rows = [Row([name, h.get("cpu_model") or "—", str(h.get("logical_cores") or "—"),
                 byte_size(h["memory_bytes"]) if h.get("memory_bytes") else "—",
                 h.get("kernel") or "—", ", ".join(sorted(nodes[name])),
                 _rate_range(rates.get(h.get("worker"), []))])
            for name, h in sorted(hosts.items())]
    return [Table(f"{tm.task} · {tm.model}: cluster hosts",
                  ["host", "cpu", "logical cores", "memory", "kernel", "nodes placed",
                   "links measured from it"], rows,
                  "Each Dask worker the cells' nodes were placed on (worker name, hostname), "
                  "as the placement checked it before timing, and the rates measured from it "
                  "to the hosts it was paired with (lowest–highest over the cells). The node "
                  "table names each node's host: its figures are that host's.")]


def host_sums_views(tm, at_n: list) -> list:
    """Where a cell placed several nodes on one host (cluster_nodes_per_worker > 1), each
    host's nodes summed per implementation at n: what that host did for the cell."""
    rows, shared = [], False
    for s, c in at_n:
        placed: dict[str, list[str]] = {}
        for node in sorted(c.nodes):
            if node_host(c, node):
                placed.setdefault(node_host(c, node), []).append(node)
        shared |= any(len(names) > 1 for names in placed.values())
        for host, names in sorted(placed.items()):
            def total(key: str) -> int:
                return sum(c.nodes[n].get(key, 0) for n in names)
            rows.append(Row([s.label, host, ", ".join(names), _ms(total("cpu_ns")),
                             _ms(total("io_ns")), byte_size(total("bytes_sent")),
                             byte_size(total("bytes_received")),
                             byte_size(total("peak_rss_bytes"))]))
    if not shared:
        return []
    return [Table(f"{tm.task} · {tm.model}: cluster hosts at n = {tm.n:,}, their nodes summed",
                  ["implementation", "host", "nodes", "cpu ms", "io ms (sockets, files)", "sent",
                   "received", "peak RSS (sum)"], rows,
                  "A host that ran several nodes of a cell (cluster_nodes_per_worker > 1): its "
                  "nodes' figures added up. Its nodes ran at once, so their io times overlap; "
                  "bytes are counted at each node, so bytes between two nodes of one host "
                  "count as sent and as received though they never left it; the peak RSS is "
                  "the sum of the nodes' peaks, an upper bound on the host's.",
                  numeric=frozenset(range(3, 8)))]


def _rate_range(rates: list) -> str:
    if not rates:
        return "—"
    low, high = min(rates), max(rates)
    return gbit(low) if low == high else f"{low / 1e9:.3g}–{gbit(high)}"


def _language_value(c, fastest: float) -> str:
    if c is None:
        return "not run"
    if not c.measured:
        return c.status if c.status != "ok" else "no samples"
    unit = unit_for(c.total.median)
    return (f"{number(unit.of(c.total.median))} {unit.name} "
            f"({multiple(c.total.median / fastest)}){cell_marks(c)}")


def language_views(tm) -> list:
    """The same request served by each language's nodes, side by side: one row per method and
    setting two languages or more have a cell of, one column per language, at the task
    model's n, each time with its multiple of the row's fastest language."""
    languages = sorted({s.key.language for s in tm.series},
                       key=lambda lang: canonical(lang, LANGUAGES))
    if len(languages) < 2 or tm.n is None:
        return []
    rows: dict[str, dict[str, object]] = {}
    for s in sorted((s for s in tm.series if not s.is_floor), key=_request):
        rows.setdefault(_request_label(s), {})[s.key.language] = s.cells.get(tm.n)
    table = []
    for name, by_language in rows.items():
        cells = [c for c in by_language.values() if c is not None]
        if len(cells) < 2:
            continue  # one language's own method: its number is in the ranking above
        times = [c.total.median for c in cells if c.measured]
        table.append(Row([name, *(_language_value(by_language.get(lang), min(times, default=0))
                                  for lang in languages)],
                         kind="" if times else next((c.status for c in cells), "not run")))
    return [Table(f"{tm.task} · {tm.model}: languages side by side at n = {tm.n:,}",
                  ["method", *languages], table,
                  "The same request (method, source, tree) served by each language's nodes: "
                  "median total time, and in brackets its multiple of the fastest language "
                  "in the row (1.00x); a language without a number says why (unsupported: "
                  "its driver lacks the method; not run: the plan did not ask for it). A "
                  "method only one language ran is in the ranking above.",
                  numeric=frozenset(range(1, len(languages) + 1)))]


def density_views(task: str, model: str, measured: list) -> list:
    """Time against the vectors' density, one row per implementation (its label without the
    density), one column per density swept; shown when at least two densities were."""
    swept = [(s, c) for s, c in measured if "density" in c.settings]
    densities = sorted({float(c.settings["density"]) for _, c in swept})
    if len(densities) < 2:
        return []
    times: dict[str, dict[float, float]] = {}
    for s, c in swept:
        name = s.label.replace(f" density={c.settings['density']}", "")
        times.setdefault(name, {})[float(c.settings["density"])] = c.total.median
    unit = unit_for(min(t for row in times.values() for t in row.values()))
    rows = [Row([name, *(f"{number(unit.of(row[d]))} {unit.name}" if d in row else "—"
                         for d in densities),
                 multiple(row[densities[-1]] / row[densities[0]])
                 if densities[0] in row and densities[-1] in row else "—"])
            for name, row in sorted(times.items())]
    return [Table(f"{task} · {model}: time against density", ["implementation",
                  *(f"density {d:g}" for d in densities),
                  f"× from {densities[0]:g} to {densities[-1]:g}"], rows,
                  numeric=frozenset(range(1, len(densities) + 2)))]
