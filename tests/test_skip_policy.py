"""The one skip policy (tests/conftest.py, README's Testing): a missing prerequisite skips a
test locally and fails it under CI=true."""
import pytest

from conftest import require


def test_a_missing_prerequisite_skips_locally_and_fails_under_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no widget installed"):
        require(False, "no widget installed")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="under CI=true: no widget installed"):
        require(False, "no widget installed")
    require(True, "a prerequisite present passes silently, in CI too")
