"""A node's lease on a Dask worker: `python -m serbench.network.lease LEASE_S -- COMMAND...`.

The worker starts this wrapper as the leader of a new session (its own process group); the
wrapper starts COMMAND (a driver's `listen`) in the same group with the wrapper's stdout and
stderr, so the worker reads the node's address line and logs as if it had started the node
itself. The worker holds the wrapper's stdin: every renewal from the harness writes a byte to
it. The whole group (node and wrapper) is killed when

- stdin closes: the worker died (kill -9 included) or dropped the node, or
- no byte arrived for LEASE_S seconds: the harness died or lost the cluster.

When the node exits on its own the wrapper exits the same way (the same status, or the same
signal), so the worker sees the node's own end. Nothing of serbench is imported: the wrapper
starts in a few milliseconds and depends on no package.
"""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

POLL_S = 0.2


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("usage: python -m serbench.network.lease LEASE_S -- COMMAND...", file=sys.stderr)
        return 2
    lease_s = float(argv[0])
    try:
        node = subprocess.Popen(argv[2:], stdin=subprocess.DEVNULL)
    except OSError as exc:
        print(f"lease: cannot start {argv[2]}: {exc}", file=sys.stderr)
        return 127
    try:
        return watch(node, lease_s)
    finally:  # an error of the wrapper's own (never expected) takes the node with it
        if node.poll() is None:
            expire("the lease wrapper failed")


def watch(node: subprocess.Popen, lease_s: float) -> int:
    renewed = time.monotonic()
    while True:
        code = node.poll()
        if code is not None:
            if code < 0:  # the node's own death, passed on as it happened
                signal.signal(-code, signal.SIG_DFL)
                os.kill(os.getpid(), -code)
            return code
        ready, _, _ = select.select([0], [], [], POLL_S)
        if ready:
            if not os.read(0, 4096):
                expire("its worker is gone (the lease pipe closed)")
            renewed = time.monotonic()
        elif time.monotonic() - renewed > lease_s:
            expire(f"the harness did not renew its lease for {lease_s:g} s")


def expire(why: str) -> None:
    try:  # stderr is a pipe to the worker, which may be dead: saying why must not stop us
        print(f"lease: killing the node: {why}", file=sys.stderr, flush=True)
    except BaseException:
        pass
    os.killpg(0, signal.SIGKILL)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
