"""Assembles each stage's definitions from the settings; nothing else lives here."""

from __future__ import annotations

import warnings

import dagster as dg

from vllm_digest import schedules
from vllm_digest.analytics import assets as analytics
from vllm_digest.assets.report import build_report_asset
from vllm_digest.delivery import defs as delivery_defs
from vllm_digest.ingest import assets as ingest
from vllm_digest.narrative.resource import NarrativeResource
from vllm_digest.partitions import daily_partitions
from vllm_digest.settings import Settings, load_settings
from vllm_digest.site import assets as site
from vllm_digest.warehouse import assets as warehouse

# Dagster flags two APIs the graph is built on as not yet stable: BackfillPolicy (beta) and
# partitioned asset checks (preview). It warns on every load, so on every command, about a choice
# made once with dagster pinned to 1.13.x: nothing a user can act on. Only these two categories,
# only while our definitions are built; anything else Dagster warns about still shows.
PINNED_API_WARNINGS = (dg.BetaWarning, dg.PreviewWarning)


def report_defs(settings: Settings) -> dg.Definitions:
    """The report stage: until its asset module moves to report/assets.py with a defs() of its own."""
    partitions_def = daily_partitions(settings)
    return dg.Definitions(
        assets=[build_report_asset(repo, settings, partitions_def) for repo in settings.repos],
        resources={"narrative": NarrativeResource.from_settings(settings.narrative)},
    )


# in the order a day flows through them; delivery adds nothing unless configured; schedules.defs adds
# the job, its schedule, the re-render sensor and the executor
STAGES = (ingest.defs, warehouse.defs, analytics.defs, report_defs, site.defs, delivery_defs, schedules.defs)


def build_definitions(settings: Settings) -> dg.Definitions:
    with warnings.catch_warnings():
        for category in PINNED_API_WARNINGS:
            warnings.filterwarnings("ignore", category=category)
        return dg.Definitions.merge(*(stage(settings) for stage in STAGES))


defs = build_definitions(load_settings())
