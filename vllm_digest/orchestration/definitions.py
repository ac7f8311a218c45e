"""How the graph runs, assembled: the two jobs, their schedules, the re-render sensor and the executor.
They belong to no stage: the jobs select every asset of every repository."""

from __future__ import annotations

import dagster as dg

from vllm_digest.core.config.settings import Settings
from vllm_digest.core.taxonomy.loader import taxonomy_from_settings
from vllm_digest.orchestration.jobs import EXECUTORS, build_daily_job, build_weekly_job
from vllm_digest.orchestration.schedules import build_daily_schedule, build_weekly_schedule
from vllm_digest.orchestration.sensors import build_baseline_sensor, followers_window


def defs(settings: Settings) -> dg.Definitions:
    """The daily job and its schedule, the weekly job and its schedule, the sensor that re-renders the days
    whose trend baseline and follow-ups a run fed, and the executor every run takes (scheduled, launched
    from the UI, backfills)."""
    job = build_daily_job(settings)
    weekly = build_weekly_job(settings)
    window = followers_window(taxonomy_from_settings(settings).params())
    return dg.Definitions(
        jobs=[job, weekly],
        schedules=[build_daily_schedule(settings, job), build_weekly_schedule(settings, weekly)],
        sensors=[build_baseline_sensor(settings, job, window, weekly)],
        executor=EXECUTORS[settings.executor],
    )
