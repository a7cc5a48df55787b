"""Generated code lives apart: the Java generators write packages of their own at build time
(drivers/java/pom.xml), and no committed file in any language is generated."""
import subprocess
import sys
from pathlib import Path

from serbench.sizes import is_generated

REPO = Path(__file__).resolve().parents[1]
CODEGEN = REPO / "drivers" / "java" / "codegen"
HAND_WRITTEN = REPO / "drivers" / "java" / "src" / "main" / "java"


def packages(root: Path) -> set[str]:
    """The Java packages of the sources under `root`, by their folders."""
    return {".".join(p.parent.relative_to(root).parts) for p in root.rglob("*.java")}


def test_the_java_generators_write_packages_no_hand_written_file_is_in(tmp_path):
    for generator in ("generate_models.py", "generate_schema_codecs.py"):
        subprocess.run([sys.executable, str(CODEGEN / generator), str(tmp_path)], check=True)
    generated = packages(tmp_path)
    assert generated == {"serbench.model", "serbench.methods.convert"}
    assert not generated & packages(HAND_WRITTEN)
    assert all(is_generated(str(p), p.read_text()) for p in tmp_path.rglob("*.java"))


def test_no_committed_file_is_generated():
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                             check=True).stdout.decode().split("\0")
    generated = [name for name in tracked if name and (REPO / name).is_file()
                 and is_generated(name, head(REPO / name))]
    assert generated == []


def head(path: Path) -> str:
    """The first lines of a file, where a generator puts its mark (binary files: none)."""
    with open(path, "rb") as f:
        return f.read(1024).decode("utf-8", errors="replace")
