"""`python -m tools.perf --help` prints the usage and runs nothing."""

import os
import subprocess
import sys

from vllm_digest.testing.pipeline import ROOT


def _bench(tmp_path, *args):
    env = {**os.environ, "BENCH_WORKDIR": str(tmp_path / "work")}
    # the timeout only stops a bench that started despite --help (it would run for tens of minutes)
    return subprocess.run([sys.executable, "-m", "tools.perf", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_help_prints_usage_and_runs_nothing(tmp_path):
    results = ROOT / "tools" / "perf" / "results.md"
    before = results.read_bytes() if results.exists() else None
    proc = _bench(tmp_path, "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: python -m tools.perf")
    for option in ("--only", "--repeats", "--year-repeats", "--workdir"):
        assert option in proc.stdout
    for figure in "13456":
        assert f"\n  {figure}  " in proc.stdout
    # figure 2 is retired, and says why
    assert "\n  2  (retired) 365 one-day runs" in proc.stdout
    # nothing ran: no synthetic data, no results written
    assert not (tmp_path / "work").exists()
    assert (results.read_bytes() if results.exists() else None) == before


def test_an_unknown_figure_is_named(tmp_path):
    proc = _bench(tmp_path, "--only", "1,9")
    assert proc.returncode == 2
    assert "--only '1,9': figures are 1, 3, 4, 5, 6" in proc.stderr
    assert not (tmp_path / "work").exists()


def test_the_retired_figure_says_why(tmp_path):
    proc = _bench(tmp_path, "--only", "2")
    assert proc.returncode == 2
    assert "--only '2': figure 2: 365 one-day runs against one 365-day run is retired (issue 31)" in proc.stderr
    assert not (tmp_path / "work").exists()
