"""`net_fetch` (PROTOCOL.md 10.5): S servers, each holding objects `start + i*n ..` of the
method's paged file, and one client that fetches n objects from every server at once and
writes one paged file per server. The client's report times the cell.

Checked per repetition: every server sent n objects and the client received S*n; with
`decode` the client's set checksum of what it decoded equals the dataset's. After the run,
`scan_problem` reads the client's files back through a validating driver (all variants), so a
transfer that wrote wrong bytes is invalid even when nothing decoded them on the way.
"""
from __future__ import annotations

from pathlib import Path

from ..cell import parse_roles
from ..drivers.process import DriverProcess
from .exchange import NetCell, NodeSpec


ID = "net_fetch"
VARIANTS = ("ram", "disk", "decode")
DEFAULT_SERVERS = 4


class Fetch:
    id = ID

    def nodes(self, cell: NetCell) -> list[NodeSpec]:
        p = cell.params
        servers = server_names(p["servers"])
        common = {k: p[k] for k in ("peer_timeout_ms", "net_page_bytes", "net_frame_bytes")
                  if k in p}
        specs = [NodeSpec(name, "server", p["server_languages"][i],
                          {"input": str(p["input"]), "start": p["start"] + i * p["n"], "n": p["n"],
                           **common}, accept=1)
                 for i, name in enumerate(servers)]
        specs.append(NodeSpec("client", "client", p["client_language"],
                              {"output": str(p["output"]), "page_size": p["page_size"], **common},
                              dial=tuple(servers)))
        return specs

    def timing_node(self, cell: NetCell) -> str:
        return "client"

    def language_links(self, cell) -> list[tuple[str, str]]:
        """(sender, receiver) languages of the plan cell's links: each server to the client."""
        servers, client = node_languages(cell)
        return [(server, client) for server in servers]

    def net_cell(self, cell, base: Path, hashes, work: Path) -> NetCell:
        return _net_cell(cell, base, hashes, work)

    def read_back_problem(self, cell: NetCell, scanner: DriverProcess,
                          depth: str) -> str | None:
        return scan_problem(scanner, cell, depth)

    def counters(self, cell: NetCell, reports: dict[str, dict]) -> dict:
        client = reports["client"]
        return {"objects": client["objects"], "servers": cell.params["servers"],
                "bytes_moved": client["bytes_received"]}

    def check(self, cell: NetCell, reports: dict[str, dict]) -> str | None:
        p = cell.params
        for name in server_names(p["servers"]):
            if reports[name].get("objects") != p["n"]:
                return f"server {name} sent {reports[name].get('objects')} objects, not {p['n']}"
        client = reports["client"]
        want = p["servers"] * p["n"]
        if client.get("objects") != want:
            return f"the client received {client.get('objects')} objects, not {want}"
        if cell.variant == "decode" and client.get("checksum") != p["expected"]:
            return (f"the client decoded checksum {client.get('checksum')}, "
                    f"expected {p['expected']}")
        return None


def server_names(count: int) -> list[str]:
    return [f"server{i}" for i in range(count)]


def scan_problem(driver: DriverProcess, cell: NetCell, depth: str) -> str | None:
    """Reads every file the client wrote through `driver`'s validating scan; None when
    together they hold exactly the expected objects."""
    count, total = 0, 0
    for name in server_names(cell.params["servers"]):
        base = Path(cell.params["output"]) / name
        response = driver.request("scan", model=cell.model, method=cell.method, depth=depth,
                                  variant=driver.validating_variant(cell.method),
                                  params={"input": str(base),
                                          "page_size": cell.params["page_size"]})
        if response.get("status") != "ok":
            error = response.get("error") or {}
            return (f"{base}: the client's file does not read back: "
                    f"{error.get('kind')}: {error.get('message') or response.get('message')}")
        checksum = response["result"]["checksum"]
        count += checksum["count"]
        total = (total + int(checksum["sum"], 16)) & 0xFFFF_FFFF_FFFF_FFFF
    got = {"count": count, "sum": f"{total:016x}"}
    expected = cell.params["expected"]
    return None if got == expected else f"the client's files hold {got}, expected {expected}"


def node_languages(cell) -> tuple[list[str], str]:
    """The plan cell's server languages, server i's first, and its client's: the cell's own
    unless its roles name others, a role's languages taken in turn by its nodes."""
    roles = parse_roles(cell.settings.get("roles", ""))
    servers = roles.get("server", (cell.language,))
    return ([servers[i % len(servers)] for i in range(cell.settings["servers"])],
            roles.get("client", (cell.language,))[0])


def _net_cell(cell, base: Path, hashes, work: Path) -> NetCell:
    """The plan cell's nodes: servers over its language's file of its method (a shared
    format: byte for byte every language's), objects `i*n ..` each, and a client writing
    into `work`; of the languages `node_languages` gives them."""
    settings = cell.settings
    servers = settings["servers"]
    server_languages, client_language = node_languages(cell)
    count, total = 0, 0
    for i in range(servers * cell.n):
        count, total = count + 1, (total + hashes[i]) & 0xFFFF_FFFF_FFFF_FFFF
    params = {"servers": servers, "n": cell.n, "start": 0, "input": base, "output": work,
              "page_size": cell.page_size, "net_page_bytes": cell.net_page_bytes,
              "net_frame_bytes": cell.net_frame_bytes,
              "server_languages": server_languages, "client_language": client_language,
              "expected": {"count": count, "sum": f"{total:016x}"}}
    return NetCell.of(ID, cell, settings["source"], params)
