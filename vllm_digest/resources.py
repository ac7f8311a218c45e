"""The resources every asset shares, configured from the settings."""

from __future__ import annotations

import os

import dagster as dg

from vllm_digest.narrative.resource import NarrativeResource
from vllm_digest.settings import Settings
from vllm_digest.ingest.resources import ActivitySourceResource
from vllm_digest.warehouse.resource import WarehouseResource


def build_resources(settings: Settings) -> dict:
    return {
        "warehouse": WarehouseResource(path=str(settings.warehouse_path)),
        "activity_source": ActivitySourceResource(
            kind=settings.source,
            sample_dir=str(settings.sample_dir) if settings.sample_dir else None,
            github_api_url=settings.github_api_url,
            github_token=_github_token(settings),
        ),
        "narrative": NarrativeResource.from_settings(settings.narrative),
    }


def _github_token(settings: Settings):
    """The token as an EnvVar: Dagster then stores only the variable's name in run storage
    (job snapshots keep resource config). A token handed in another way than the process
    environment (a settings mapping in a script) can only be passed as its value."""
    if not settings.github_token:
        return None
    if os.environ.get("GITHUB_TOKEN") == settings.github_token:
        return dg.EnvVar("GITHUB_TOKEN")
    return settings.github_token
