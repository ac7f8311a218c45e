"""Assembles the Dagster definitions from the settings; nothing else lives here."""

from __future__ import annotations

import dagster as dg

from vllm_digest.assets.factory import build_all_assets
from vllm_digest.checks import build_all_checks
from vllm_digest.partitions import daily_partitions
from vllm_digest.resources import build_resources
from vllm_digest.settings import Settings, load_settings


def build_definitions(settings: Settings) -> dg.Definitions:
    return dg.Definitions(
        assets=build_all_assets(settings),
        asset_checks=build_all_checks(settings, daily_partitions(settings)),
        resources=build_resources(settings),
        executor=dg.in_process_executor,
    )


defs = build_definitions(load_settings())
