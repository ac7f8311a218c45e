"""The two jobs a user launches: ``daily_digest`` over every asset of the daily partitions (and the site),
and ``weekly_digest`` over the weekly digests; and the executor every run takes."""

from __future__ import annotations

import dagster as dg

from vllm_digest.core.config.settings import Settings
from vllm_digest.core.keys import DAILY_JOB, SITE_GROUP, WEEKLY_GROUP, WEEKLY_JOB


EXECUTORS = {"in_process": dg.in_process_executor, "multiprocess": dg.multiprocess_executor}


def daily_selection() -> dg.AssetSelection:
    """Every asset of the daily partitions (and the site): all but the weekly digests, whose weeks a run
    over days cannot carry (a run covers one partitions definition)."""
    return dg.AssetSelection.all() - dg.AssetSelection.groups(WEEKLY_GROUP)


def weekly_selection() -> dg.AssetSelection:
    """The weekly digests and the site that lists them."""
    return dg.AssetSelection.groups(WEEKLY_GROUP, SITE_GROUP)


def build_daily_job(settings: Settings) -> dg.UnresolvedAssetJobDefinition:
    # partitioning is inferred from the assets (passing it is deprecated);
    # no executor here: the job takes the Definitions' executor, so
    # VLLM_DIGEST_EXECUTOR switches scheduled runs and UI launches alike
    return dg.define_asset_job(
        DAILY_JOB,
        selection=daily_selection(),
        description=(
            "Every repository's whole graph, ingest (raw) -> warehouse (stg -> core -> mart) -> analytics "
            "-> report, then the site over every report, for a range of days in one run."
        ),
    )


def build_weekly_job(settings: Settings) -> dg.UnresolvedAssetJobDefinition:
    return dg.define_asset_job(
        WEEKLY_JOB,
        selection=weekly_selection(),
        description=(
            "Every repository's weekly digest (Monday to Sunday, from the daily marts, no fetch), then the site "
            "that lists it, for a range of weeks in one run."
        ),
    )
