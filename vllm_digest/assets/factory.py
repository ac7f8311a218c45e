"""One set of assets per configured repository, built by one factory."""

from __future__ import annotations

import dagster as dg

from vllm_digest.analytics.build import ANALYTICS_MODELS, REF_MODELS, build_analytics, build_taxonomy_rules
from vllm_digest.ingest.assets import build_raw_asset
from vllm_digest.assets.report import build_report_asset
from vllm_digest.assets.site import build_site_asset
from vllm_digest.assets.warehouse import build_layer_asset
from vllm_digest.partitions import daily_partitions
from vllm_digest.settings import RepoRef, Settings
from vllm_digest.taxonomy.loader import taxonomy_from_settings
from vllm_digest.warehouse.layers import CORE_MODELS, MART_MODELS, STG_MODELS


def build_repo_assets(repo: RepoRef, settings: Settings, partitions_def=None) -> list[dg.AssetsDefinition]:
    partitions_def = partitions_def or daily_partitions(settings)
    # loaded here so a malformed taxonomy stops the code location, not a run
    taxonomy = taxonomy_from_settings(settings)

    def analytics(con, repo_, windows, models):
        return build_analytics(con, repo_, windows, taxonomy, models=models)

    def rules(con, repo_, windows, models):
        return build_taxonomy_rules(con, repo_, windows, taxonomy)

    return [
        build_raw_asset(repo, settings, partitions_def),
        build_layer_asset(repo, settings, partitions_def, "stg", STG_MODELS, "warehouse"),
        build_layer_asset(repo, settings, partitions_def, "core", CORE_MODELS, "warehouse"),
        build_layer_asset(repo, settings, partitions_def, "mart", MART_MODELS, "warehouse"),
        # the taxonomy's fingerprint as code version: editing the taxonomy marks the rules (and so the
        # marts below them) as changed in the UI
        build_layer_asset(
            repo, settings, partitions_def, "ref", REF_MODELS, "analytics", build=rules,
            code_version=taxonomy.fingerprint,
        ),
        build_layer_asset(
            repo, settings, partitions_def, "analytics", ANALYTICS_MODELS, "analytics", build=analytics
        ),
        build_report_asset(repo, settings, partitions_def),
    ]


def build_all_assets(settings: Settings) -> list[dg.AssetsDefinition]:
    partitions_def = daily_partitions(settings)
    per_repo = [a for repo in settings.repos for a in build_repo_assets(repo, settings, partitions_def)]
    return [*per_repo, build_site_asset(settings)]
