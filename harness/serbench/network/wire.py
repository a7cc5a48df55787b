"""The harness's end of a node's control connection (PROTOCOL.md 10.2, 10.4): frames of
`u32 length | u8 kind | payload` with the same hard maximum the nodes enforce."""
from __future__ import annotations

import json
import socket
import struct

MAX_FRAME = 64 << 20
MAGIC = b"SERBNET1"
HELLO, CONTROL, PAGES, END, REQUEST, ERROR = 1, 2, 3, 4, 5, 6
_HEADER = struct.Struct("<IB")


class WireError(RuntimeError):
    """A node's connection failed or carried something other than the protocol."""


class ControlLink:
    """One control connection to one node; every message is a JSON object."""

    def __init__(self, node: str, address: str, token: str, timeout_s: float):
        host, port = address.rsplit(":", 1)
        self.node = node
        try:
            self.sock = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s)
        except OSError as exc:
            raise WireError(f"node {node}: cannot connect to {address}: {exc}") from exc
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._send(HELLO, MAGIC + json.dumps({"role": "control", "from": "harness",
                                              "token": token}).encode())

    def send(self, message: dict) -> None:
        self._send(CONTROL, json.dumps(message).encode())

    def _send(self, kind: int, payload: bytes) -> None:
        try:
            self.sock.sendall(_HEADER.pack(len(payload), kind) + payload)
        except OSError as exc:
            raise WireError(f"node {self.node}: sending to it failed: {exc}") from exc

    def fileno(self) -> int:
        return self.sock.fileno()

    def receive(self) -> dict:
        """The next control message; a node's error frame raises WireError with its reason."""
        length, kind = _HEADER.unpack(self._exactly(_HEADER.size))
        if length > MAX_FRAME:
            raise WireError(f"node {self.node}: a frame of {length} bytes exceeds {MAX_FRAME}")
        payload = self._exactly(length)
        try:
            message = json.loads(payload)
        except ValueError as exc:
            raise WireError(f"node {self.node}: a control frame is not JSON: {exc}") from exc
        if kind == ERROR:
            raise WireError(f"node {self.node} failed: {message.get('kind')}: "
                            f"{message.get('message')}")
        if kind != CONTROL or not isinstance(message, dict):
            raise WireError(f"node {self.node}: expected a control message, got frame kind {kind}")
        return message

    def _exactly(self, n: int) -> bytes:
        chunks, left = [], n
        while left:
            try:
                chunk = self.sock.recv(min(left, 1 << 20))
            except socket.timeout as exc:
                raise WireError(f"node {self.node}: no answer in time") from exc
            except OSError as exc:
                raise WireError(f"node {self.node}: its connection failed: {exc}") from exc
            if not chunk:
                raise WireError(f"node {self.node}: closed its connection (died?)")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        self.sock.close()
