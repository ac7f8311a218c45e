"""Analytics marts: topics, links, hotness, vendor focus areas, activity metrics and rankings."""

from vllm_digest.analytics.build import (
    ANALYTICS_MODELS,
    REF_MODELS,
    analytics_params,
    build_analytics,
    build_taxonomy_rules,
)

__all__ = ["ANALYTICS_MODELS", "REF_MODELS", "analytics_params", "build_analytics", "build_taxonomy_rules"]
