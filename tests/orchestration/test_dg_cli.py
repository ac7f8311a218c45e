"""Dagster's project CLI, `dg` (dagster-dg-cli, configured by [tool.dg] in pyproject.toml), works on
the project as the README shows it: each command as a subprocess with a temp DAGSTER_HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from vllm_digest.definitions import build_definitions
from vllm_digest.testing.pipeline import ROOT, project_dagster_home, sample_windows, settings_at

DG = str(Path(sys.executable).with_name("dg"))
DAYS = ("2026-03-21", "2026-03-22")


def run_dg(tmp_path: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    extra = env or {}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VLLM_DIGEST_", "DAGSTER_", "GITHUB_"))}
    env.update(DAGSTER_HOME=str(project_dagster_home(tmp_path / "dagster_home")),
               VLLM_DIGEST_HOME=str(tmp_path / "home"), VLLM_DIGEST_CUTOFF="11:39", **extra)
    return subprocess.run([DG, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_dg_check_defs_passes(tmp_path):
    proc = run_dg(tmp_path, "check", "defs")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "All definitions loaded successfully" in proc.stdout + proc.stderr


def test_dg_list_defs_lists_every_asset_check_job_and_schedule(tmp_path):
    proc = run_dg(tmp_path, "list", "defs", "--json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    listed = json.loads(proc.stdout)
    defs = build_definitions(settings_at(tmp_path / "home"))
    graph = defs.resolve_asset_graph()
    assert {a["asset_key"] for a in listed["assets"]} == {k.to_user_string() for k in graph.get_all_asset_keys()}
    # raw, 9 stg, 5 core, 2 mart, 1 ref, 16 analytics, the report, the weekly digest, the site
    assert len(listed["assets"]) == 39
    assert {c["key"] for c in listed["asset_checks"]} == {
        f"{k.asset_key.to_user_string()}:{k.name}" for k in graph.asset_check_keys
    }
    assert sorted(j["name"] for j in listed["jobs"]) == ["daily_digest", "weekly_digest"]
    assert sorted(s["name"] for s in listed["schedules"]) == ["daily_digest_schedule", "weekly_digest_schedule"]
    assert {r["name"] for r in listed["resources"]} == {"activity_source", "warehouse", "narrative", "state"}


# the README's flag: the run's log at INFO, without Dagster's DEBUG events
INFO_LOG = '{"loggers": {"console": {"config": {"log_level": "INFO"}}}}'


def test_dg_launch_partition_range_is_one_run_over_the_whole_graph(tmp_path):
    """The README's command: the daily job (every asset of the days, all but the weekly digests, whose weeks a
    range of days cannot name), so the run is named; its log says what each step does and nothing more."""
    proc = run_dg(tmp_path, "launch", "--job", "daily_digest", "--partition-range", f"{DAYS[0]}...{DAYS[1]}",
                  "--config-json", INFO_LOG)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    assert "DEBUG" not in out and "Warning" not in out, out
    assert "report vllm-project/vllm: written 2/2 days" in out  # progress, at INFO
    with dg.DagsterInstance.from_config(str(tmp_path / "dagster_home")) as instance:
        runs = instance.get_runs()
        assert len(runs) == 1 and runs[0].status == dg.DagsterRunStatus.SUCCESS
        assert runs[0].job_name == "daily_digest"
        for key in (["vllm_project", "vllm", "raw_activity"], ["vllm_project", "vllm", "daily_report"], ["site"]):
            event = instance.get_latest_materialization_event(dg.AssetKey(key))
            assert event is not None and event.run_id == runs[0].run_id, key
    reports = tmp_path / "home" / "reports" / "vllm-project" / "vllm"
    summaries = {day: json.loads((reports / f"{day}.json").read_text(encoding="utf-8")) for day in DAYS}
    (seed,) = [w for w in sample_windows() if w["day"] == DAYS[1]]
    assert summaries[DAYS[1]]["counts"] == seed["counts"]


def test_dg_list_defs_with_the_readmes_columns_is_readable_in_80_columns(tmp_path):
    env_columns = {"COLUMNS": "80"}
    proc = run_dg(tmp_path, "list", "defs", "--columns", "key,group", env=env_columns)
    assert proc.returncode == 0, proc.stderr[-3000:]
    defs = build_definitions(settings_at(tmp_path / "home"))
    keys = [k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys()]
    # every asset key whole, in lines that fit the terminal
    assert all(f" {key} " in proc.stdout for key in keys)
    assert max(len(line) for line in proc.stdout.splitlines()) <= 80


@pytest.mark.e2e
def test_dg_dev_serves_the_code_location(tmp_path):
    from vllm_digest.testing.dagster_dev import DagsterDev

    server = DagsterDev.start(
        tmp_path / "dagster_home",
        {"VLLM_DIGEST_HOME": str(tmp_path / "home"), "VLLM_DIGEST_CUTOFF": "11:39"},
        tmp_path / "dg-dev.log",
        command=[DG, "dev"],
    )
    try:
        server.wait_for_server()
        location = server.wait_for_location("vllm_digest")
        assert [r["name"] for r in location["repositories"]] == ["__repository__"]
        nodes = server.asset_nodes()
        assert len(nodes) == 39 and ("site",) in nodes
        assert nodes[("vllm_project", "vllm", "stg_issues")]["deps"] == {("vllm_project", "vllm", "raw_activity")}
    finally:
        server.stop()
