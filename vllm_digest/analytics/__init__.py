"""Analytics marts: topics, links, hotness, vendor focus areas, activity metrics and rankings."""

from vllm_digest.analytics.build import ANALYTICS_MODELS, analytics_params, build_analytics

__all__ = ["ANALYTICS_MODELS", "analytics_params", "build_analytics"]
