"""Rebuild the analytics marts of each day, oldest first, one transaction per day.

The taxonomy is bound into ``mart_taxonomy_rules`` at the start of each day's
transaction, and every matching mart reads it from there, so a day's topics and the
rules that produced them are replaced together (or not at all).
"""

from __future__ import annotations

from typing import Sequence

import duckdb

from vllm_digest.partitions import DayWindow
from vllm_digest.settings import RepoRef
from vllm_digest.taxonomy import Taxonomy
from vllm_digest.warehouse.partitions import replace_partition

# Order matters: each model reads the ones before it for the same (repo, day); mart_topic_daily also
# reads its own and mart_activity_daily's earlier days for the trend.
ANALYTICS_MODELS = (
    "mart_taxonomy_rules",
    "mart_item_links",
    "mart_item_topics",
    "mart_item_hotness",
    "mart_focus_items",
    "mart_activity_daily",
    "mart_topic_daily",
    "mart_key_changes",
    "mart_notable_issues",
)


def analytics_params(repo: RepoRef | str, window: DayWindow, taxonomy: Taxonomy) -> dict:
    return {
        "repo": repo.full_name if isinstance(repo, RepoRef) else repo,
        "day": window.key,
        "window_start": window.start,
        "window_end": window.end,
        **taxonomy.params(),
    }


def build_analytics(
    con: duckdb.DuckDBPyConnection,
    repo: RepoRef | str,
    windows: Sequence[DayWindow],
    taxonomy: Taxonomy,
) -> dict[str, dict[str, int]]:
    """Rebuild the analytics marts for each day; returns day -> model -> rows written.

    Days are built oldest first whatever order they come in, because the topic trend of a
    day reads the days before it from the warehouse.
    """
    shared = taxonomy.params()
    name = repo.full_name if isinstance(repo, RepoRef) else repo
    out: dict[str, dict[str, int]] = {}
    for w in sorted(windows, key=lambda w: w.day):
        params = {"repo": name, "day": w.key, "window_start": w.start, "window_end": w.end, **shared}
        out[w.key] = replace_partition(con, ANALYTICS_MODELS, params)
    return out
