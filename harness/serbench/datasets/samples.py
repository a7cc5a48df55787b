"""Real sample documents fetched from public packages (never committed to the repository).

twitter.json is a real Twitter API v1.1 search response (100 statuses) shipped by the npm
package simdjson@0.9.2 (Apache-2.0). `npm pack` downloads the package tarball without
installing it (the package is a native addon); only that one file is extracted.
"""
from __future__ import annotations

import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

TWITTER_PACKAGE = "simdjson@0.9.2"
TWITTER_MEMBER = "package/jsonexamples/twitter.json"
TWITTER_FILE = "twitter.json"


class SampleError(RuntimeError):
    """A sample could not be fetched."""


def fetch_twitter_sample(cache_dir: Path) -> Path:
    """The path of twitter.json in cache_dir, fetched with npm on first use."""
    cache_dir = Path(cache_dir)
    target = cache_dir / TWITTER_FILE
    if target.is_file():
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise SampleError(f"npm is needed to fetch {TWITTER_PACKAGE} (for {TWITTER_FILE}) "
                          "but was not found on PATH; install Node.js and npm")
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=cache_dir) as work:
        tarball = _npm_pack(npm, TWITTER_PACKAGE, Path(work))
        partial = Path(work) / TWITTER_FILE
        _extract(tarball, TWITTER_MEMBER, partial)
        partial.replace(target)  # same file system: a complete file or none
    return target


def _npm_pack(npm: str, package: str, work: Path) -> Path:
    # --ignore-scripts: nothing from the package runs; a private cache keeps npm's own out of it
    command = [npm, "pack", package, "--ignore-scripts", "--silent",
               "--pack-destination", str(work), "--cache", str(work / "npm-cache")]
    result = subprocess.run(command, cwd=work, capture_output=True, text=True)
    tarballs = list(work.glob("*.tgz"))
    if result.returncode != 0 or len(tarballs) != 1:
        detail = (result.stderr or result.stdout).strip()
        raise SampleError(f"npm pack {package} failed (exit {result.returncode}): {detail}")
    return tarballs[0]


def _extract(tarball: Path, member: str, dest: Path) -> None:
    try:
        with tarfile.open(tarball, "r:gz") as archive:
            source = archive.extractfile(member)
            if source is None:
                raise KeyError(member)
            with source, dest.open("wb") as out:
                shutil.copyfileobj(source, out)
    except (KeyError, tarfile.TarError) as e:
        raise SampleError(f"{tarball.name} does not hold {member}: {e}") from None
