"""A real network on one machine: every node in its own Linux network namespace, joined to
one bridge by a veth pair whose two ends are each shaped by a token bucket (`tbf`) at the
link rate. This kernel has tbf and htb but no netem: bandwidth is limited, delay and loss are
not emulated (the report says so).

Names are unique per network (`sb<tag>…`, a random tag) so two runs never collide. Each
network's bridge carries its owner (the harness's pid and start time) in its alias, on the
machine beside what it describes rather than in a file of one serbench home: `close` removes
everything, and the next network made on this machine, under any home, removes what a killed
harness left behind (an owner that no longer runs).
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .placement import NodeProcess, Placement, start_listening

PROBE_S = 0.25  # how long each link's throughput probe sends
TBF_LATENCY = "50ms"


class NetworkError(RuntimeError):
    """The namespaces or the shaping could not be set up."""


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and result.returncode != 0:
        raise NetworkError(f"ip {' '.join(args)}: {result.stderr.strip()}")
    return result


def tc(namespace: str | None, *args: str) -> None:
    prefix = ["ip", "netns", "exec", namespace] if namespace else []
    result = subprocess.run([*prefix, "tc", *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise NetworkError(f"tc {' '.join(args)}: {result.stderr.strip()}")


def unavailable() -> str | None:
    """Why namespaces cannot be made here, or None: root (CAP_SYS_ADMIN and CAP_NET_ADMIN)
    and the ip tool are needed."""
    if os.geteuid() != 0:
        return "network namespaces need root (CAP_SYS_ADMIN and CAP_NET_ADMIN)"
    if subprocess.run(["ip", "-V"], capture_output=True).returncode != 0:
        return "the ip tool (iproute2) is not installed"
    return None


def burst_bytes(rate_bit: int) -> int:
    """The bucket: 4 ms at the rate and never under 256 KiB, so a 64 KiB GSO segment always
    fits and the rate is met (a 16 KB burst reached only 84 % of 1 Gbit/s here)."""
    return max(rate_bit // 8 * 4 // 1000, 256 << 10)


@dataclass
class NamespaceNetwork:
    """A bridge and namespaces made on demand, one per node index; `rate_bit` None leaves
    the veth links unshaped."""

    rate_bit: int | None
    tag: str = field(default_factory=lambda: secrets.token_hex(3))
    subnet: int = 0
    namespaces: list[str] = field(default_factory=list)
    throughput_bit: dict[str, float] = field(default_factory=dict)

    @property
    def bridge(self) -> str:
        return f"sb{self.tag}br"

    def address(self, index: int) -> str:
        return f"10.{self.subnet >> 8}.{self.subnet & 255}.{index + 2}"

    @property
    def gateway(self) -> str:
        return f"10.{self.subnet >> 8}.{self.subnet & 255}.1"

    def create(self) -> "NamespaceNetwork":
        with machine_lock():
            sweep_leftovers()
            self.subnet = free_subnet()
            ip("link", "add", self.bridge, "type", "bridge")
            ip("link", "set", "dev", self.bridge, "alias", owner_label(os.getpid()))
            ip("addr", "add", f"{self.gateway}/24", "dev", self.bridge)
        ip("link", "set", self.bridge, "up")
        return self

    def namespace(self, index: int) -> str:
        """Node `index`'s namespace, made (and its link measured) the first time it is asked."""
        while len(self.namespaces) <= index:
            self._add(len(self.namespaces))
        return self.namespaces[index]

    def _add(self, index: int) -> None:
        ns = f"sb{self.tag}n{index}"
        self.namespaces.append(ns)
        ip("netns", "add", ns)
        ip("link", "add", host_end(ns), "type", "veth", "peer", "name", "eth0", "netns", ns)
        ip("link", "set", host_end(ns), "master", self.bridge, "up")
        ip("-n", ns, "addr", "add", f"{self.address(index)}/24", "dev", "eth0")
        ip("-n", ns, "link", "set", "eth0", "up")
        ip("-n", ns, "link", "set", "lo", "up")
        if self.rate_bit:
            shape = ["root", "tbf", "rate", f"{self.rate_bit}bit", "burst",
                     str(burst_bytes(self.rate_bit)), "latency", TBF_LATENCY]
            tc(ns, "qdisc", "add", "dev", "eth0", *shape)
            tc(None, "qdisc", "add", "dev", host_end(ns), *shape)
        self.throughput_bit[ns] = self.probe(index)

    def probe(self, index: int) -> float:
        """The link's measured throughput: bits per second a sender in the namespace pushes
        to a sink on the bridge for PROBE_S (after a first burst that fills the bucket)."""
        seconds = PROBE_S
        total = int((self.rate_bit or 10_000_000_000) / 8 * seconds) + (4 << 20)
        with socket.create_server((self.gateway, 0)) as server:
            port = server.getsockname()[1]
            received: dict[str, float] = {}
            sink = threading.Thread(target=_sink, args=(server, total, received), daemon=True)
            sink.start()
            sender = subprocess.run(
                ["ip", "netns", "exec", self.namespaces[index], sys.executable, "-c", SENDER,
                 self.gateway, str(port), str(total)], capture_output=True, text=True,
                timeout=60)
            sink.join(60)
        if sender.returncode != 0 or "bits" not in received:
            raise NetworkError(f"link probe of {self.namespaces[index]} failed: "
                               f"{sender.stderr.strip() or 'no data arrived'}")
        return received["bits"]

    def start(self, index: int, name: str, driver: Path, token: str) -> NodeProcess:
        ns = self.namespace(index)
        return start_listening(name, ["ip", "netns", "exec", ns, str(driver), "listen",
                                      "--address", f"{self.address(index)}:0"], token)

    def describe(self) -> dict:
        return {"network": "namespaces", "shaped": self.rate_bit is not None,
                "link_rate_bit": self.rate_bit, "delay_emulated": False,
                "measured_bit": {ns: round(bits) for ns, bits in self.throughput_bit.items()}}

    def close(self) -> None:
        remove(self.bridge, self.namespaces)
        self.namespaces = []


# the probe's sender, run in the namespace by the same Python: the payload it sends is
# generated once, so the probe measures the link, not Python
SENDER = """
import socket, sys
host, port, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
chunk = bytes(1 << 20)
with socket.create_connection((host, port)) as s:
    while total > 0:
        n = min(total, len(chunk))
        s.sendall(chunk[:n])
        total -= n
"""


def _sink(server: socket.socket, total: int, out: dict) -> None:
    """Receives `total` bytes; the rate is taken after the first 4 MiB."""
    server.settimeout(30)
    conn, _ = server.accept()
    with conn:
        conn.settimeout(30)
        bits = receive_rate(conn, 4 << 20, total)
        if bits is not None:
            out["bits"] = bits


def receive_rate(conn: socket.socket, warm_bytes: int, total: int | None = None) -> float | None:
    """Bits per second `conn` delivers after its first `warm_bytes` (a token bucket's burst
    and the connection's start), until `total` bytes or, without one, the sender's close;
    None when nothing came after the warm-up or the sender closed before `total`."""
    buf = bytearray(1 << 20)
    got, start, start_got = 0, None, 0
    while total is None or got < total:
        n = conn.recv_into(buf)
        if not n:
            if total is not None:
                return None
            break
        got += n
        if start is None and got >= warm_bytes:
            start, start_got = time.perf_counter(), got
    if start is None or got <= start_got:
        return None
    return (got - start_got) * 8 / (time.perf_counter() - start)


# machine-wide, as the networks are (/run/lock is the system's place for such locks)
LOCK_DIR = Path("/run/lock") if Path("/run/lock").is_dir() else Path(tempfile.gettempdir())


@contextmanager
def machine_lock():
    """Held by a harness while it picks a subnet and puts it on its bridge: two harnesses
    making networks at once (two runs on one host, or tests in parallel) would otherwise both
    find the same subnet free and route each other's nodes."""
    with open(LOCK_DIR / "serbench-networks.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def free_subnet() -> int:
    """A 10.x.y.0/24 no interface on this machine uses (x.y from 77.0 on)."""
    used = ip("-o", "-4", "addr", "show").stdout
    for subnet in range(77 << 8, 78 << 8):
        if f" 10.{subnet >> 8}.{subnet & 255}." not in used:
            return subnet
    raise NetworkError("no free 10.77.x.0/24 subnet")


def host_end(namespace: str) -> str:
    """The bridge-side end of a namespace's veth pair (`sb<tag>n<i>` -> `sb<tag>v<i>`)."""
    tag, index = namespace.rsplit("n", 1)
    return f"{tag}v{index}"


def remove(bridge: str, namespaces: list[str]) -> None:
    # the veth pairs first and explicitly: a deleted namespace releases its end only when the
    # kernel gets to it, which may be after this returns
    for ns in namespaces:
        ip("link", "del", host_end(ns), check=False)
        ip("netns", "del", ns, check=False)
    ip("link", "del", bridge, check=False)


OWNER_PREFIX = "serbench owner "
# a bridge is made and then labelled by two commands; one found unlabelled is looked at again
# after this long before it is taken for a harness killed between them
UNLABELLED_GRACE_S = 0.5


def owner_label(pid: int) -> str:
    """The alias naming a bridge's owner: its pid and the process's start time, so a pid
    reused by another process is not taken for the harness."""
    return f"{OWNER_PREFIX}{pid} {process_start(pid)}"


def process_start(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22), or None
    when no such process runs."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2:].split()[19]


def owner_alive(label: str | None) -> bool:
    if not label or not label.startswith(OWNER_PREFIX):
        return False
    pid, _, start = label[len(OWNER_PREFIX):].partition(" ")
    return pid.isdigit() and process_start(int(pid)) == start


# what a network names: `sb<tag>br` for the bridge, `sb<tag>n<i>` for node i's namespace
BRIDGE_NAME = re.compile(r"(sb[0-9a-f]{6})br")
NAMESPACE_NAME = re.compile(r"(sb[0-9a-f]{6})n[0-9]+")


def serbench_bridges() -> dict[str, str | None]:
    """This machine's serbench networks: tag -> the owner label of its bridge."""
    listed = json.loads(ip("-j", "link", "show", "type", "bridge").stdout or "[]")
    return {m[1]: link.get("ifalias") for link in listed
            if (m := BRIDGE_NAME.fullmatch(link["ifname"]))}


def serbench_namespaces() -> dict[str, str]:
    """This machine's serbench namespaces: name -> its network's tag."""
    names = [line.split()[0] for line in ip("netns", "list", check=False).stdout.splitlines()
             if line.strip()]
    return {m[0]: m[1] for name in names if (m := NAMESPACE_NAME.fullmatch(name))}


def has_ports(tag: str) -> bool:
    """Whether links are attached to the network's bridge. An unlabelled bridge with links is
    a live network of a serbench from before owner labels (it records its owner in its own
    home), never swept from here; an empty one is a harness killed before labelling it."""
    return bool(ip("-o", "link", "show", "master", f"{tag}br", check=False).stdout.strip())


def sweep_leftovers() -> list[str]:
    """Removes, machine-wide, the bridges and namespaces of networks whose harness is gone
    (whatever home it ran under), and namespaces whose bridge is gone; returns what it
    removed."""
    # namespaces are listed before bridges: a bridge is made before its namespaces and removed
    # after them, so a namespace listed here whose bridge is then absent has no owner
    spaces = serbench_namespaces()
    bridges = serbench_bridges()
    if any(label is None for label in bridges.values()):
        time.sleep(UNLABELLED_GRACE_S)
        bridges = serbench_bridges()
    dead = {tag for tag, label in bridges.items()
            if (label is None and not has_ports(tag)) or (label and not owner_alive(label))}
    orphans = {ns: tag for ns, tag in spaces.items() if tag in dead or tag not in bridges}
    removed = []
    for tag in sorted(dead | set(orphans.values())):
        mine = sorted(ns for ns, owner in orphans.items() if owner == tag)
        remove(f"{tag}br", mine)
        removed += ([f"{tag}br"] if tag in dead else []) + mine
    return removed


class NamespacePlacement(Placement):
    """The nodes of one cell in the network's namespaces, node i in namespace i."""

    def __init__(self, network: NamespaceNetwork):
        super().__init__()
        self.network = network

    def describe(self) -> dict:
        return self.network.describe()

    def launch(self, index: int, name: str, driver: Path, token: str) -> NodeProcess:
        return self.network.start(index, name, driver, token)
