"""The analytics stage's assets: the taxonomy's rules for each day, then the marts built from them."""

from __future__ import annotations

import dagster as dg

from vllm_digest.analytics.build import ANALYTICS_MODELS, REF_MODELS, build_analytics, build_taxonomy_rules
from vllm_digest.core.calendar import daily_partitions
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.sqlmodel.assets import build_layer_asset
from vllm_digest.core.taxonomy.loader import Taxonomy, taxonomy_from_settings
from vllm_digest.core.taxonomy.selection import SelectionWeights, load_selection_weights


def build_repo_assets(repo: RepoRef, settings: Settings, taxonomy: Taxonomy, partitions_def,
                      weights: SelectionWeights | None = None) -> list[dg.AssetsDefinition]:
    weights = weights or load_selection_weights()

    def analytics(con, repo_, windows, models):
        return build_analytics(con, repo_, windows, taxonomy, models=models, weights=weights)

    def rules(con, repo_, windows, models):
        return build_taxonomy_rules(con, repo_, windows, taxonomy)

    return [
        # the taxonomy's fingerprint as code version: editing the taxonomy marks the rules (and so the
        # marts below them) as changed in the UI
        build_layer_asset(
            repo, settings, partitions_def, "ref", REF_MODELS, "analytics", build=rules,
            code_version=taxonomy.fingerprint,
        ),
        # the selection weights' fingerprint likewise: refitting them marks the marts as changed
        build_layer_asset(
            repo, settings, partitions_def, "analytics", ANALYTICS_MODELS, "analytics", build=analytics,
            code_version=weights.fingerprint,
        ),
    ]


def defs(settings: Settings) -> dg.Definitions:
    """Each repository's ``ref_taxonomy_rules`` and analytics marts; they use the warehouse stage's resource."""
    # loaded here so a malformed taxonomy stops the code location, not a run
    taxonomy = taxonomy_from_settings(settings)
    weights = load_selection_weights()  # likewise: a malformed weights file stops the code location
    partitions_def = daily_partitions(settings)
    return dg.Definitions(
        assets=[a for repo in settings.repos
                for a in build_repo_assets(repo, settings, taxonomy, partitions_def, weights)]
    )
