"""A node's door (PROTOCOL.md 10.1, 10.2) in every language, through its real `listen` on
loopback: strangers, silent or sending their hello a byte at a time, never delay the harness
or the peers (every pending hello is read side by side, each against a deadline for the whole
hello), and a node listens only where it is told, refusing a wildcard host (unless
--allow-wildcard) and a port outside 0-65535 with the same message in every language."""
from __future__ import annotations

import ipaddress
import json
import os
import socket
import subprocess
import threading
import time

import pytest

from serbench.network import exchange as cell_module
from serbench.network.exchange import run_cell
from serbench.network.fetch import Fetch
from serbench.network.placement import TOKEN_ENV, LocalPlacement, start_listening
from serbench.network.wire import _HEADER, ERROR, HELLO, MAX_FRAME, ControlLink, WireError

from conftest import built_driver
from test_network_nodes import fetch_cell, parts  # noqa: F401 (parts: a fixture)

LANGUAGES = ["rust", "java", "cpp"]
SILENT = 200  # more than Rust's default listen queue (128)
# the strangers' ends: refused at the deadline for the whole hello, or, still saying hello
# when the node had admitted its peers, refused then
TIMED_OUT = "no complete hello within 5 s"
TOO_LATE = "this node admits no one after its peers"


class Trickler:
    """A stranger sending a hello header, then one byte of its (4096-byte) payload every
    0.1 s, far within any timeout per read, until the node closes it, `stop` or 30 s."""

    def __init__(self, address: str):
        self.sock = connect(address)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._trickle, daemon=True)
        self.thread.start()

    def _trickle(self) -> None:
        frame = _HEADER.pack(4096, HELLO) + b"SERBNET1{" + b" " * 4087
        stop = time.monotonic() + 30
        for i in range(len(frame)):
            if self.stopped.wait(0.1) or time.monotonic() > stop:
                return
            try:
                self.sock.send(frame[i:i + 1])
            except OSError:  # refused and closed
                return

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(5)


def connect(address: str) -> socket.socket:
    host, port = address.rsplit(":", 1)
    return socket.create_connection((host.strip("[]"), int(port)), timeout=10)


class Crowd:
    """Strangers on nodes' ports: silent connections and tricklers, each set by name."""

    def __init__(self):
        self.sets: dict[str, list[socket.socket]] = {}
        self.tricklers: list[Trickler] = []

    def gather(self, name: str, address: str) -> None:
        trickler = Trickler(address)
        self.tricklers.append(trickler)
        self.sets[name] = [connect(address) for _ in range(SILENT)] + [trickler.sock]

    def unanswered(self, name: str) -> list[bool]:
        """Per stranger of the set: whether the node has neither answered nor closed it."""
        def quiet(sock: socket.socket) -> bool:
            sock.settimeout(0)  # a socket with a timeout waits for it before a recv
            try:
                sock.recv(1, socket.MSG_PEEK)  # an answer, or the end
            except BlockingIOError:
                return True
            except OSError:
                pass  # reset
            return False
        return [quiet(s) for s in self.sets[name]]

    def answers(self, name: str) -> list[str | None]:
        """Per stranger of the set, once its node has ended: why the node refused it (None:
        closed without an answer)."""
        return [answer(s) for s in self.sets[name]]

    def close(self) -> None:
        for trickler in self.tricklers:
            trickler.stop()
        for sock in (s for group in self.sets.values() for s in group):
            sock.close()


def answer(sock: socket.socket) -> str | None:
    """The message of the error frame the node sent `sock` before closing it, without the
    `peer ADDRESS: ` it starts with (which must be `sock`'s own)."""
    data = b""
    sock.settimeout(30)
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass  # closed with the stranger's bytes unread: what it sent first is still here
    if not data:
        return None
    length, kind = _HEADER.unpack_from(data)
    assert kind == ERROR and length <= MAX_FRAME
    message = json.loads(data[_HEADER.size:_HEADER.size + length])["message"]
    prefix = "peer %s:%d: " % sock.getsockname()[:2]
    assert message.startswith(prefix), message
    return message[len(prefix):]


@pytest.fixture
def crowd():
    gathered = Crowd()
    yield gathered
    gathered.close()


@pytest.mark.parametrize("language", LANGUAGES)
def test_strangers_silent_or_trickling_delay_neither_the_harness_nor_the_peers(
        language, parts, tmp_path, monkeypatch, crowd):
    """A fetch whose server0 has 200 silent strangers and a trickling one queued before the
    harness connects, and as many again before its client dials: the harness and the client
    are admitted while every one of them is still saying hello (one at a time, 5 s each,
    they would have held the cell past its timeout)."""
    driver = built_driver(language)
    cell = fetch_cell(language, parts, tmp_path, "handcoded", "disk")
    seen = {}

    class Crowded(LocalPlacement):
        def wired(self, pairs):  # the harness connects right after
            [server0] = [n for n in self.nodes if n.name == "server0"]
            crowd.gather("before the harness", server0.address)
            self.server0 = server0.address

    placement = Crowded()

    class Watched(cell_module.Exchange):
        def each(self, messages, expected):
            answers = super().each(messages, expected)
            if expected == "prepared":  # every node has admitted the harness
                seen["held"] = crowd.unanswered("before the harness")
                crowd.gather("before the client", placement.server0)
            return answers

    monkeypatch.setattr(cell_module, "Exchange", Watched)
    run = run_cell(Fetch(), cell, placement, {language: driver})
    assert [r["client"]["objects"] for r in run.reports] == [120] * 3
    assert seen["held"] == [True] * (SILENT + 1)
    # the client was admitted while every stranger queued before it was still saying hello
    assert crowd.answers("before the client") == [TOO_LATE] * (SILENT + 1)
    assert set(crowd.answers("before the harness")) <= {TIMED_OUT, TOO_LATE}


def test_a_hello_must_arrive_whole_within_5_s_in_every_language():
    """A trickling stranger is refused 5 s after it connected, though it never stays silent
    for long; the node then still admits the harness. Every language at once."""
    placement = LocalPlacement()
    try:
        nodes = {language: placement.start(language, built_driver(language), "0" * 32)
                 for language in LANGUAGES}
        tricklers = {language: Trickler(n.address) for language, n in nodes.items()}
        try:
            answers = {language: answer(t.sock) for language, t in tricklers.items()}
        finally:
            for t in tricklers.values():
                t.stop()
        assert answers == {language: TIMED_OUT for language in nodes}
        for language, n in nodes.items():
            harness = ControlLink(language, n.address, "0" * 32, 10)
            harness.send({"op": "go"})
            with pytest.raises(WireError, match="expected setup"):
                harness.receive()
            harness.close()
    finally:
        placement.close()


WILDCARD = ("an empty or wildcard host (0.0.0.0, ::) listens on every interface; "
            "--allow-wildcard allows it")
REFUSED = {"0.0.0.0:0": WILDCARD, "[::]:0": WILDCARD, ":0": WILDCARD,
           "[::ffff:0.0.0.0]:0": WILDCARD,
           "127.0.0.1:65536": "the port must be a number in 0-65535"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_node_listens_only_where_it_is_told(language):
    """Every interface only when --allow-wildcard says so; every refusal worded alike."""
    driver = str(built_driver(language))
    env = {**os.environ, TOKEN_ENV: "0" * 32}
    refused = {address: subprocess.Popen([driver, "listen", "--address", address], env=env,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
               for address in REFUSED}
    wildcard = None
    try:
        wildcard = start_listening("wildcard", [driver, "listen", "--address", "0.0.0.0:0",
                                                "--allow-wildcard"], "0" * 32)
        host, port = wildcard.address.rsplit(":", 1)
        assert ipaddress.ip_address(host.strip("[]")).is_unspecified and int(port) > 0
        for address, proc in refused.items():
            out, err = proc.communicate(timeout=60)
            assert (proc.returncode, out) == (1, b""), err
            assert (f"serbench-{language} listen: bad_request: cannot listen on '{address}': "
                    f"{REFUSED[address]}\n") in err.decode(), err
    finally:
        for proc in refused.values():
            proc.kill()
            proc.wait()
        if wildcard:
            wildcard.kill()
