"""A report step killed with SIGKILL while it writes a day's files leaves the day all old, all new, or saying
it is stale, and the next report step sweeps the temporaries it left.

The killed process is a real `dagster asset materialize` of daily_report, which an audit hook installed by the
test's launcher (not the product) kills with SIGKILL at a chosen call: the rename onto a day's file of its second
language (its first language's files are already replaced), or the write that marks the day's group as being
replaced (every temporary written, nothing renamed yet).
Each re-render uses a catalog folder whose summary sentence differs from the bundled one, so every new file
differs from the old one."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from vllm_digest.core import day_file
from vllm_digest.core.config.settings import load_settings
from vllm_digest.core.i18n import BUNDLED
from vllm_digest.delivery.digest import DigestInputError, read_digest
from vllm_digest.report.render import report_dir
from vllm_digest.site.catalog import read_day
from vllm_digest.testing.pipeline import ROOT, materialize, project_dagster_home, settings_at

DAYS = ("2026-03-21", "2026-03-22")
REPORT = "vllm_project/vllm/daily_report"
MARK = "⟲ "
# a temporary of a day's file, as mkstemp names it beside the file
TEMP = re.compile(r"^\.\d{4}-\d{2}-\d{2}\..+\.[a-z0-9_]{8}$")


# the dagster CLI, killed with SIGKILL by its own process at the n-th audit event EVENT whose path is PATH:
# "os.rename" (os.replace; its target), "os.truncate" (os.ftruncate; the file the descriptor names). The
# audit hook fires before the call, so the call itself never happens; the product code is unchanged
_KILLER = """
import os, signal, sys
event, path, nth = sys.argv[1], sys.argv[2], int(sys.argv[3])
seen = 0

def target(name, args):
    if name == "os.rename":
        return os.fspath(args[1])
    if name == "os.truncate":
        return os.readlink(f"/proc/self/fd/{args[0]}") if isinstance(args[0], int) else os.fspath(args[0])
    return None

def hook(name, args):
    global seen
    if name == event and target(name, args) == path:
        seen += 1
        if seen == nth:
            os.kill(os.getpid(), signal.SIGKILL)

sys.addaudithook(hook)
from dagster._cli import main
sys.argv = ["dagster", *sys.argv[4:]]
sys.exit(main())
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("kill")
    settings = settings_at(root / "home")
    materialize(settings, DAYS[0], DAYS[1])
    # the re-render's catalogs: the bundled ones with a mark before the summary sentence
    catalogs = root / "catalogs"
    catalogs.mkdir()
    for lang in settings.languages:
        text = (BUNDLED / f"{lang}.toml").read_text(encoding="utf-8")
        head, summary = text.split("\n[summary]\n", 1)
        summary = re.sub(r'^counts = "', f'counts = "{MARK}', summary, count=1, flags=re.M)
        (catalogs / f"{lang}.toml").write_text(f"{head}\n[summary]\n{summary}", encoding="utf-8")
    env = {**os.environ, "VLLM_DIGEST_HOME": str(settings.home), "VLLM_DIGEST_CUTOFF": "11:39",
           "VLLM_DIGEST_CATALOG_DIR": str(catalogs), "DAGSTER_HOME": str(project_dagster_home(root / "dagster"))}
    return settings, env


def day_files(settings, day: str) -> list[Path]:
    folder = report_dir(settings, settings.repos[0])
    pages = [folder / f"{day}.{lang}.{ext}" for lang in settings.languages for ext in ("md", "html")]
    return [*pages, folder / f"{day}.json"]


def snapshot(settings, day: str) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in day_files(settings, day)}


def state(settings, day: str, old: dict[Path, bytes]) -> str:
    """'new', 'old' or 'stale' (the site's reading of the day says so); 'mixed' is the fault: some files new,
    some old, and nothing says so."""
    files = day_files(settings, day)
    new = [p.read_bytes() != old[p] for p in files]
    if getattr(read_day(files[-1], settings.repos[0], settings.languages), "stale", False):
        return "stale"
    if all(new):
        assert all(MARK in p.read_text(encoding="utf-8") for p in files)
        return "new"
    return "old" if not any(new) else "mixed: " + ", ".join(p.name for p, n in zip(files, new) if n)


def leftovers(settings) -> list[str]:
    return sorted(p.name for p in report_dir(settings, settings.repos[0]).iterdir() if p.name.startswith("."))


def report_run(env: dict, day: str, kill_at: tuple[str, Path, int] | None = None) -> subprocess.CompletedProcess:
    """`dagster asset materialize` of the day's report, killed at ``kill_at`` (event, path, n) when given."""
    args = ["asset", "materialize", "-m", "vllm_digest.definitions", "--select", REPORT, "--partition", day]
    if kill_at:
        event, path, nth = kill_at
        command = [sys.executable, "-c", _KILLER, event, str(path), str(nth), *args]
    else:
        command = [str(Path(sys.executable).with_name("dagster")), *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_a_kill_in_the_report_step_leaves_each_day_whole_or_stale_and_the_next_step_sweeps(built):
    settings, env = built
    first, second = DAYS
    old = {day: snapshot(settings, day) for day in DAYS}
    # killed at the rename onto the first day's page of the second language: the first language's pages
    # are new by then
    target = report_dir(settings, settings.repos[0]) / f"{first}.{settings.languages[1]}.md"
    killed = report_run(env, first, ("os.rename", target, 1))
    assert killed.returncode == -9, killed.stderr[-2000:]
    assert state(settings, first, old[first]) == "stale"
    assert [p.read_bytes() != old[first][p] for p in day_files(settings, first)] == [True, True, False, False, False]
    assert any(TEMP.match(name) for name in leftovers(settings))
    # the readers say so: the site lists the day flagged, delivery holds it naming the reason
    assert read_day(day_files(settings, first)[-1], settings.repos[0], settings.languages).stale
    delivery_settings = load_settings({k: v for k, v in env.items() if k.startswith("VLLM_DIGEST_")})
    with pytest.raises(DigestInputError, match=rf"files of {first} are stale.*materialize its daily_report again"):
        read_digest(delivery_settings, settings.repos[0], first)

    # killed as it marks the second day's group as being replaced (the marker's second rewrite: the first
    # said "writing"): every temporary written, none renamed
    marker = report_dir(settings, settings.repos[0]) / f".{second}.replacing"
    killed = report_run(env, second, ("os.truncate", marker, 2))
    assert killed.returncode == -9, killed.stderr[-2000:]
    assert state(settings, second, old[second]) == "old"
    second_temps = [n for n in leftovers(settings) if TEMP.match(n) and n.startswith(f".{second}.")]
    assert len(second_temps) == len(day_files(settings, second))

    # the next report step (of the second day only) sweeps every temporary the kills left, and the marker of
    # the write killed before its renames; the first day, not rendered again, still says it is stale
    again = report_run(env, second)
    assert again.returncode == 0, again.stderr[-3000:]
    assert leftovers(settings) == [f".{first}.replacing"]
    assert state(settings, second, old[second]) == "new"
    assert state(settings, first, old[first]) == "stale"

    # rendering the first day again makes it whole
    again = report_run(env, first)
    assert again.returncode == 0, again.stderr[-3000:]
    assert state(settings, first, old[first]) == "new"
    assert leftovers(settings) == []
    assert not read_day(day_files(settings, first)[-1], settings.repos[0], settings.languages).stale
    assert read_digest(delivery_settings, settings.repos[0], first).day == first
