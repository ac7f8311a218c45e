"""`make demo`: materialize every day of the partitions (with the sample source: every day the sample
covers) and the site in one run, with the warehouse checks, and say where the reports are."""

from __future__ import annotations

import os
import sys
import time

import dagster as dg

from vllm_digest.definitions import build_definitions
from vllm_digest.partitions import daily_partitions, weekly_partitions
from vllm_digest.schedules import daily_selection, weekly_selection
from vllm_digest.report.render import report_dir
from vllm_digest.settings import Settings, SettingsError, load_settings


def materialize_days(settings: Settings, instance: dg.DagsterInstance, first: str, last: str):
    """One run over ``first`` ... ``last``: every asset and every asset check of the definitions, so the
    UI shows each check's result per day after the demo, as after a backfill from the UI."""
    defs = build_definitions(settings)
    return dg.materialize(
        [*defs.assets, *defs.asset_checks],
        selection=daily_selection(),
        resources=defs.resources,
        instance=instance,
        tags={
            "dagster/asset_partition_range_start": first,
            "dagster/asset_partition_range_end": last,
        },
        raise_on_error=False,
        # step-level DEBUG events would bury the summary below
        run_config={"loggers": {"console": {"config": {"log_level": "INFO"}}}},
    )


def step_times(result, instance: dg.DagsterInstance, run_seconds: float, install_ms: str | None) -> str:
    """Wall time of each step of the demo: install (measured by make), materialize (the run without
    the site step) and site (its own step in the run), and their total."""
    site = _site_seconds(result, instance)
    install = int(install_ms) / 1000 if install_ms and install_ms.isdigit() else None
    parts = [f"install {install:.1f} s" if install is not None else "install (not measured: run through make demo)",
             f"materialize {run_seconds - site:.1f} s", f"site {site:.1f} s"]
    total = run_seconds + (install or 0)
    return "Wall time: " + ", ".join(parts) + f"; total {total:.1f} s"


def _site_seconds(result, instance: dg.DagsterInstance) -> float:
    """The site step's duration, from the instance's step stats of the run."""
    return sum((s.end_time or 0) - (s.start_time or 0)
               for s in instance.get_run_step_stats(result.run_id) if s.step_key == "site")


def materialize_weeks(settings: Settings, instance: dg.DagsterInstance, first: str, last: str):
    """One run over the whole weeks ``first`` ... ``last`` (Mondays): the weekly digests and the site."""
    defs = build_definitions(settings)
    return dg.materialize(
        list(defs.assets),
        selection=weekly_selection(),
        resources=defs.resources,
        instance=instance,
        tags={"dagster/asset_partition_range_start": first, "dagster/asset_partition_range_end": last},
        raise_on_error=False,
        run_config={"loggers": {"console": {"config": {"log_level": "INFO"}}}},
    )


def main() -> int:
    try:
        settings = load_settings()
        keys = daily_partitions(settings).get_partition_keys()
    except SettingsError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    first, last = keys[0], keys[-1]
    started = time.perf_counter()
    instance = dg.DagsterInstance.get()
    result = materialize_days(settings, instance, first, last)
    elapsed = time.perf_counter() - started
    if not result.success:
        print("the demo run failed; see the log above", file=sys.stderr)
        return 1
    print(f"\nMaterialized {first} ... {last} in one run ({elapsed:.1f} s).")
    print(step_times(result, instance, elapsed, os.environ.get("VLLM_DIGEST_DEMO_INSTALL_MS")))
    # the whole weeks among those days, in a second run: weekly partitions cannot share a run with days
    weeks = weekly_partitions(settings).get_partition_keys()
    if weeks:
        if not materialize_weeks(settings, instance, weeks[0], weeks[-1]).success:
            print("the weekly digest run failed; see the log above", file=sys.stderr)
            return 1
        print(f"Weekly digests {weeks[0]} ... {weeks[-1]} ({len(weeks)} weeks): "
              f"{report_dir(settings, settings.repos[0]) / 'weekly'}")
    for repo in settings.repos:
        folder = report_dir(settings, repo)
        print(f"Reports for {repo.full_name}: {folder}")
        print(f"  e.g. {folder / (last + '.zh.md')} and {folder / (last + '.zh.html')}")
    index = settings.site_dir / "index.html"
    print(f"Site index: {index}")
    print(f"  open it in a browser: {index.as_uri()}")
    print(f"Atom feed: {settings.site_dir / 'feed.xml'}")
    print(f"Warehouse: {settings.warehouse_path}  (open with: duckdb {settings.warehouse_path})")
    print("Open the Dagster UI with: make dev   (then http://127.0.0.1:3000)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
