"""The committed Java model classes are what the generator makes from the model definition."""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_generated_java_models_are_current():
    gen = REPO / "drivers" / "java" / "codegen" / "generate_models.py"
    done = subprocess.run([sys.executable, str(gen), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
