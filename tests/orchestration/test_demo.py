"""`make demo` leaves an instance in which every asset check has a result for every day it ran."""

import os
import re

import dagster as dg

from vllm_digest.core.keys import DAILY_JOB
from vllm_digest.definitions import build_definitions
from vllm_digest.demo import run_job
from vllm_digest.testing.pipeline import project_dagster_home

DAYS = ["2026-03-21", "2026-03-22"]


def _check_records(instance, check_keys) -> dict:
    """(table, check, day) -> (status, passed, run id), read back from the instance as the UI reads it."""
    found = {}
    for key in check_keys:
        for record in instance.event_log_storage.get_asset_check_execution_history(key, limit=10):
            evaluation = record.event.dagster_event.event_specific_data
            found[(key.asset_key.path[-1], key.name, record.partition)] = (
                record.status.value, evaluation.passed, record.run_id,
            )
    return found


def test_demo_run_evaluates_every_check_for_every_day(make_settings, tmp_path):
    settings = make_settings()
    check_keys = build_definitions(settings).resolve_asset_graph().asset_check_keys
    assert len(check_keys) == 10  # with the lists' search cross-check and the counting warning
    # the SQLite instance of the project's dagster.yaml, which `make demo` and `make dev` share
    with dg.DagsterInstance.from_config(str(project_dagster_home(tmp_path / "dagster_home"))) as instance:
        result = run_job(settings, instance, DAILY_JOB, DAYS[0], DAYS[-1])
        assert result.success
        found = _check_records(instance, check_keys)
    assert set(found) == {(k.asset_key.path[-1], k.name, day) for k in check_keys for day in DAYS}
    assert {v[:2] for v in found.values()} == {("SUCCEEDED", True)}
    assert {v[2] for v in found.values()} == {result.run_id}  # the same single run as the assets


def test_demo_materializes_every_partition_and_nothing_else(make_settings, tmp_path, monkeypatch, capsys):
    from vllm_digest.testing.pipeline import report_path
    from vllm_digest.demo import main

    # a start date near the sample's end keeps the demo to its last two days
    settings = make_settings(VLLM_DIGEST_START_DATE="2026-03-21")
    # main() reads the process environment, as `make demo` does: only these settings, no config file
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("VLLM_DIGEST_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("DAGSTER_HOME", str(project_dagster_home(tmp_path / "dagster_home")))
    for name, value in {"VLLM_DIGEST_HOME": str(settings.home), "VLLM_DIGEST_CUTOFF": "11:39",
                        "VLLM_DIGEST_START_DATE": "2026-03-21", "VLLM_DIGEST_DEMO_INSTALL_MS": "1500"}.items():
        monkeypatch.setenv(name, value)
    assert main() == 0
    out = capsys.readouterr().out
    assert "Materialized 2026-03-21 ... 2026-03-22 in one run of daily_digest." in out
    # what it waits for, before the run starts, then each step's time
    assert re.search(r"^daily_digest: planning one run over 2 days x \d+ assets \(2026-03-21 \.\.\. 2026-03-22\)", out, re.M), out
    assert re.search(r"^  vllm_project__vllm__raw_activity: [\d.]+ s$", out, re.M) and re.search(r"^  site: [\d.]+ s$", out, re.M), out
    # each stage's wall time (install as make measured it), adding up to the total printed after the last run
    times = re.search(r"Wall time: install ([\d.]+) s, daily_digest run ([\d.]+) s; total ([\d.]+) s", out)
    assert times, out
    install, run, total = map(float, times.groups())
    assert install == 1.5 and run > 0
    assert abs(install + run - total) <= 0.15
    # the project's job, so the run is named and listed under Overview; long steps log their progress
    with dg.DagsterInstance.get() as instance:
        [run_record] = instance.get_runs()
        assert run_record.job_name == "daily_digest"
        logged = [e.user_message for e in instance.all_logs(run_record.run_id)]
    for line in ("raw vllm-project/vllm: landed 1/2 days", "report vllm-project/vllm: built 2/2 days",
                 "report vllm-project/vllm: written 2/2 days"):
        assert line in logged, [m for m in logged if "days" in m]
    assert report_path(settings, "2026-03-21").is_file() and report_path(settings, "2026-03-22").is_file()
    assert not report_path(settings, "2026-03-20").exists()


def test_demo_follows_up_earlier_reports_and_links_every_whole_week(make_settings, tmp_path, monkeypatch, capsys):
    """The issue's check, on the sample's last two whole weeks: some day's follow-ups cite an item an
    earlier report featured and that moved that day by the day's appendix; each whole week has its
    pages, linked from the site index."""
    from vllm_digest.testing.pipeline import report_path
    from tests.orchestration.test_follow_ups import FOLLOW, REF, days_between, featured, lists, section
    from vllm_digest.demo import main

    first, last = "2026-03-08", "2026-03-22"
    settings = make_settings(VLLM_DIGEST_START_DATE=first)
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("VLLM_DIGEST_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("DAGSTER_HOME", str(project_dagster_home(tmp_path / "dagster_home")))
    for name, value in {"VLLM_DIGEST_HOME": str(settings.home), "VLLM_DIGEST_CUTOFF": "11:39",
                        "VLLM_DIGEST_START_DATE": first}.items():
        monkeypatch.setenv(name, value)
    assert main() == 0
    out = capsys.readouterr().out
    assert "and 2 weeks 2026-03-09 ... 2026-03-16 in one run of weekly_digest." in out
    assert "weekly_digest: planning one run over 2 weeks x 2 assets (2026-03-09 ... 2026-03-16)" in out
    # the step-time line comes after both runs and counts both
    times = re.search(r"Wall time: install \(not measured: run through make demo\), daily_digest run ([\d.]+) s, "
                      r"weekly_digest run ([\d.]+) s; total ([\d.]+) s", out)
    assert times and out.index("Wall time") > out.index("weekly_digest: 2 weeks in one run"), out
    daily, weekly, total = map(float, times.groups())
    assert abs(daily + weekly - total) <= 0.15
    with dg.DagsterInstance.get() as instance:
        assert sorted(r.job_name for r in instance.get_runs()) == ["daily_digest", "weekly_digest"]
    days = days_between(first, last)
    cited = []
    for i, day in enumerate(days):
        moved = {n for name in ("merged_prs", "closed_issues", "closed_unmerged_prs") for n in lists(settings, day)[name]}
        earlier = set().union(*(featured(settings, d) for d in days[:i]))
        body = section(report_path(settings, day, "en.md").read_text(encoding="utf-8"), FOLLOW)
        cited += [(day, n) for n in (int(m[1]) for m in REF.findall(body)) if n in earlier and n in moved]
    assert cited
    index = (settings.site_dir / "index.html").read_text(encoding="utf-8")
    for monday in ("2026-03-09", "2026-03-16"):
        for lang in ("zh", "en"):
            page = report_path(settings, "x", "json").parent / "weekly" / f"{monday}.{lang}.html"
            assert page.is_file() and f'href="../reports/vllm-project/vllm/weekly/{monday}.{lang}.html"' in index
    assert "weekly/2026-03-02." not in index  # 03-02 ... 03-08 is not whole from a start on 03-08
