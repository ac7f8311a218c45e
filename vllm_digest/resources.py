"""The resources every asset shares, configured from the settings."""

from __future__ import annotations

from vllm_digest.narrative.resource import NarrativeResource
from vllm_digest.settings import Settings
from vllm_digest.sources.resource import ActivitySourceResource
from vllm_digest.warehouse.resource import WarehouseResource


def build_resources(settings: Settings) -> dict:
    return {
        "warehouse": WarehouseResource(path=str(settings.warehouse_path)),
        "activity_source": ActivitySourceResource(
            kind=settings.source,
            sample_dir=str(settings.sample_dir) if settings.sample_dir else None,
            github_api_url=settings.github_api_url,
            github_token=settings.github_token,
        ),
        "narrative": NarrativeResource.from_settings(settings.narrative),
    }
