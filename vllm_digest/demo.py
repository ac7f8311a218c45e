"""`make demo`: one run of the daily job over every day of the partitions (with the sample source: every
day the sample covers), with the warehouse checks and the site, then one run of the weekly job over the
whole weeks; it says what each run plans, each step's time, and where the reports are."""

from __future__ import annotations

import os
import sys
import time

import dagster as dg

from vllm_digest.core.calendar import daily_partitions, weekly_partitions
from vllm_digest.core.config.settings import Settings, load_settings
from vllm_digest.core.config.values import SettingsError
from vllm_digest.core.keys import DAILY_JOB, RANGE_END_TAG, RANGE_START_TAG, WEEKLY_JOB
from vllm_digest.definitions import build_definitions
from vllm_digest.orchestration.instance import InstanceSetupError, prepared_instance
from vllm_digest.report.render import report_dir


def run_job(settings: Settings, instance: dg.DagsterInstance, job_name: str, first: str, last: str):
    """One run of the project's job ``job_name`` over ``first`` ... ``last``: a named run, shown under
    Overview and the job's page like a scheduled one. The daily job takes every daily asset and their
    checks, so the UI shows each check's result per day after the demo, as after a backfill."""
    job = build_definitions(settings).resolve_job_def(job_name)
    return job.execute_in_process(
        instance=instance,
        tags={RANGE_START_TAG: first, RANGE_END_TAG: last},
        raise_on_error=False,
        # step-level DEBUG events would bury the summary below
        run_config={"loggers": {"console": {"config": {"log_level": "INFO"}}}},
    )


def planning_line(settings: Settings, job_name: str, keys: list[str], unit: str) -> str:
    """What the demo waits for before a run's first step: Dagster plans every (asset, partition) pair."""
    job = build_definitions(settings).resolve_job_def(job_name)
    assets = len(job.asset_layer.executable_asset_keys)
    return (f"{job_name}: planning one run over {len(keys)} {unit} x {assets} assets "
            f"({keys[0]} ... {keys[-1]}); Dagster plans every pair before the first step starts ...")


def step_lines(result, instance: dg.DagsterInstance) -> list[str]:
    """Each step of the run with its wall time, in the order they ran (the instance's step stats)."""
    stats = sorted(instance.get_run_step_stats(result.run_id), key=lambda s: s.start_time or 0)
    return [f"  {s.step_key}: {(s.end_time or 0) - (s.start_time or 0):.1f} s" for s in stats]


def step_times(stages: list[tuple[str, float]], install_ms: str | None) -> str:
    """Wall time of each stage of the demo (install as make measured it, then each run from its launch to
    its end, planning included) and their total."""
    install = int(install_ms) / 1000 if install_ms and install_ms.isdigit() else None
    parts = [f"install {install:.1f} s" if install is not None else "install (not measured: run through make demo)"]
    parts += [f"{name} {seconds:.1f} s" for name, seconds in stages]
    total = sum(seconds for _, seconds in stages) + (install or 0)
    return "Wall time: " + ", ".join(parts) + f"; total {total:.1f} s"


def timed_run(settings: Settings, instance: dg.DagsterInstance, job_name: str, keys: list[str], unit: str):
    """Say what is planned, run it, say how long it took and each step's time; returns (result, seconds)."""
    print(planning_line(settings, job_name, keys, unit), flush=True)
    started = time.perf_counter()
    result = run_job(settings, instance, job_name, keys[0], keys[-1])
    elapsed = time.perf_counter() - started
    if result.success:
        print(f"{job_name}: {len(keys)} {unit} in one run, {elapsed:.1f} s; its steps:")
        print("\n".join(step_lines(result, instance)), flush=True)
    return result, elapsed


def main() -> int:
    try:
        settings = load_settings()
        keys = daily_partitions(settings).get_partition_keys()
    except SettingsError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    first, last = keys[0], keys[-1]
    try:
        # the storages created by this one process, under the instance lock (orchestration/instance.py)
        instance = prepared_instance()
    except InstanceSetupError as exc:
        print(f"instance error: {exc}", file=sys.stderr)
        return 2
    result, elapsed = timed_run(settings, instance, DAILY_JOB, keys, "days")
    if not result.success:
        print("the demo run failed; see the log above", file=sys.stderr)
        return 1
    stages = [(f"{DAILY_JOB} run", elapsed)]
    # the whole weeks among those days, in a second run: weekly partitions cannot share a run with days
    weeks = weekly_partitions(settings).get_partition_keys()
    if weeks:
        weekly, elapsed = timed_run(settings, instance, WEEKLY_JOB, weeks, "weeks")
        if not weekly.success:
            print("the weekly digest run failed; see the log above", file=sys.stderr)
            return 1
        stages.append((f"{WEEKLY_JOB} run", elapsed))
    print(f"\nMaterialized {first} ... {last} in one run of {DAILY_JOB}"
          + (f", and {len(weeks)} weeks {weeks[0]} ... {weeks[-1]} in one run of {WEEKLY_JOB}." if weeks else "."))
    print(step_times(stages, os.environ.get("VLLM_DIGEST_DEMO_INSTALL_MS")))
    if weeks:
        print(f"Weekly digests: {report_dir(settings, settings.repos[0]) / 'weekly'}")
    for repo in settings.repos:
        folder = report_dir(settings, repo)
        print(f"Reports for {repo.full_name}: {folder}")
        print(f"  e.g. {folder / (last + '.zh.md')} and {folder / (last + '.zh.html')}")
    index = settings.site_dir / "index.html"
    print(f"Site index: {index}")
    print(f"  open it in a browser: {index.as_uri()}")
    print(f"Atom feed: {settings.site_dir / 'feed.xml'}")
    print(f"Warehouse: {settings.warehouse_path}  (open with: duckdb {settings.warehouse_path})")
    print(f"Open the Dagster UI with: make dev   (then http://127.0.0.1:3000; the runs are under Overview "
          f"and the jobs {DAILY_JOB} and {WEEKLY_JOB})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
