"""What a network cell's counters say beside its time, in the words every network view uses:
the link it ran on (shaped, measured, or a cluster's hosts), the least time its busiest node's
bytes take on that link, and the labels its number carries."""
from __future__ import annotations

from .data import host_name
from .series import TRUSTING, UNSTEADY


def transfer_floor_ns(c) -> float | None:
    """Bytes into the busiest node at the slowest measured link rate, or None on loopback."""
    rates = (c.counters.get("measured_bit") or {}).values()
    received = [n.get("bytes_received", 0) for n in c.nodes.values()]
    if not rates or not received:
        return None
    return max(received) * 8 / min(rates) * 1e9


CLUSTER = "cluster"  # the network of cells the Dask placement ran (dask_placement.describe)


def gbit(bits: float) -> str:
    return f"{bits / 1e9:.3g} Gbit/s"


def node_host(c, node: str) -> str:
    """The host a cluster cell placed `node` on; "" elsewhere (one machine)."""
    host = (c.counters.get("hosts") or {}).get(node)
    return host_name(host) if host else ""


def cluster_note(counters: dict) -> str:
    """The hosts a cluster cell's nodes ran on and each placed pair's measured link rate."""
    hosts = sorted({host_name(h) for h in (counters.get("hosts") or {}).values()})
    links = [f"{pair} {gbit(bits)}"
             for pair, bits in sorted((counters.get("measured_bit") or {}).items())]
    return (f"cluster on {', '.join(hosts) or 'hosts not recorded'}; "
            + (f"measured {', '.join(links)}" if links else "no link between two hosts"))


def network_note(c) -> str:
    counters = c.counters
    if counters.get("network") == CLUSTER:
        return cluster_note(counters)
    if counters.get("network") != "namespaces":
        return counters.get("fallback") or "loopback (no link limit)"
    rate = counters.get("link_rate_bit")
    measured = (counters.get("measured_bit") or {}).values()
    shaped = f"tbf {rate / 1e9:g} Gbit/s" if rate else "unshaped veth"
    return (f"{shaped}, measured {min(measured) / 1e9:.3g}–{gbit(max(measured))}"
            if measured else shaped)


def cell_marks(c) -> str:
    """The labels a number carries (a series label's marks), here per language's cell."""
    return "".join(f" · {mark}" for mark in (TRUSTING if c.trusting else "", c.cold_note,
                                              UNSTEADY if c.steady is False else "") if mark)
