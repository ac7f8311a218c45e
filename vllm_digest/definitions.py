"""Assembles the Dagster definitions from the settings; nothing else lives here."""

from __future__ import annotations

import warnings

import dagster as dg

from vllm_digest.assets.factory import build_all_assets
from vllm_digest.checks import build_all_checks
from vllm_digest.delivery import defs as delivery_defs
from vllm_digest.partitions import daily_partitions
from vllm_digest.rerender import build_baseline_sensor
from vllm_digest.resources import build_resources
from vllm_digest.schedules import build_daily_job, build_daily_schedule
from vllm_digest.settings import Settings, load_settings
from vllm_digest.taxonomy.loader import taxonomy_from_settings


EXECUTORS = {"in_process": dg.in_process_executor, "multiprocess": dg.multiprocess_executor}
# Dagster flags two APIs the graph is built on as not yet stable: BackfillPolicy (beta) and
# partitioned asset checks (preview). It warns on every load, so on every command, about a choice
# made once with dagster pinned to 1.13.x: nothing a user can act on. Only these two categories,
# only while our definitions are built; anything else Dagster warns about still shows.
PINNED_API_WARNINGS = (dg.BetaWarning, dg.PreviewWarning)


def build_definitions(settings: Settings) -> dg.Definitions:
    with warnings.catch_warnings():
        for category in PINNED_API_WARNINGS:
            warnings.filterwarnings("ignore", category=category)
        job = build_daily_job(settings)
        core = dg.Definitions(
            assets=build_all_assets(settings),
            asset_checks=build_all_checks(settings, daily_partitions(settings)),
            resources=build_resources(settings),
            jobs=[job],
            schedules=[build_daily_schedule(settings, job)],
            sensors=[build_baseline_sensor(
                settings, job, taxonomy_from_settings(settings).params()["trend_baseline_days"]
            )],
            executor=EXECUTORS[settings.executor],
        )
        return dg.Definitions.merge(core, delivery_defs(settings))


defs = build_definitions(load_settings())
