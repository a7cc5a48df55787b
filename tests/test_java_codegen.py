"""The committed generated Java sources are what their generators make from the model definition."""
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("generator", ["generate_models.py", "generate_schema_codecs.py"])
def test_generated_java_sources_are_current(generator):
    gen = REPO / "drivers" / "java" / "codegen" / generator
    done = subprocess.run([sys.executable, str(gen), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
