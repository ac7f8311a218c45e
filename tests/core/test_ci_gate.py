"""A skip fails the run under CI=true and stays a skip elsewhere (tests/ci_gate.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _run_suite(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess:
    (tmp_path / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\n"
        "from ci_gate import pytest_runtest_makereport  # noqa: F401\n"
    )
    (tmp_path / "test_one.py").write_text(
        "import pytest\n\n"
        "def test_runs():\n    pass\n\n"
        "def test_skips():\n    pytest.skip('chromium is not installed')\n\n"
        "@pytest.mark.xfail(reason='known')\ndef test_expected_failure():\n    assert False\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )


def test_a_skip_fails_the_run_under_ci(tmp_path):
    done = _run_suite(tmp_path, "true")
    assert done.returncode == 1, done.stdout
    assert "skipped under CI=true, where every test must run: chromium is not installed" in done.stdout
    assert "1 failed, 1 passed, 1 xfailed" in done.stdout


def test_a_skip_stays_a_skip_elsewhere(tmp_path):
    done = _run_suite(tmp_path, None)
    assert done.returncode == 0, done.stdout
    assert "1 passed, 1 skipped, 1 xfailed" in done.stdout
