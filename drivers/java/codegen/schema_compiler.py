#!/usr/bin/env python3
"""Runs a schema compiler (protoc, flatc) into a scratch directory and writes into the source
root only the files that changed.

Both compilers rewrite every file on every run, and the Java compiler recompiles the whole
module when any source is newer than its class: a build that changed nothing recompiled all
of it. Written through `write_package`, unchanged sources keep their time.

    schema_compiler.py OUT COMMAND ...   (`{out}` in COMMAND is the scratch directory)

The Java build runs it (drivers/java/pom.xml, generate-sources). Each compiler's output must
be packages of its own: a package's directory holds that compiler's classes alone.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_models import write_package  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: schema_compiler.py OUT COMMAND ...", file=sys.stderr)
        return 2
    out, command = Path(argv[0]), argv[1:]
    with tempfile.TemporaryDirectory(prefix="serbench-schemas-") as scratch:
        done = subprocess.run([arg.replace("{out}", scratch) for arg in command])
        if done.returncode != 0:
            return done.returncode
        root = Path(scratch)
        for directory in sorted({path.parent for path in root.rglob("*.java")}):
            package = ".".join(directory.relative_to(root).parts)
            write_package(out, package, {p.name: p.read_text() for p in directory.glob("*.java")})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
