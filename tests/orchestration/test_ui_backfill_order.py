"""A UI backfill over days and weeks asks for the weekly digests only once the run over the days is done.

Dagster's backfill daemon requests a week as soon as every asset it depends on is materialized for the
week's days, reading the materializations as they are written. The weekly digest used to depend on the
daily marts alone, which the day run's analytics step writes before its checks and reports: a look of the
daemon while that step was writing its events (`python -m tools.perf.ui_backfill`, 22 days) asked for the first
week alone, the other weeks a tick later (30 s), and the re-render sensor then rendered the first week
again, because its run had started before the day run ended. The digest's pages link to the days' reports,
and the report is the day run's last asset step: depending on it, the weeks come after the whole day run.
"""

from __future__ import annotations

import dagster as dg

from vllm_digest.core.keys import REPORT_ASSET, WEEKLY_ASSET
from vllm_digest.definitions import build_definitions
from vllm_digest.report.weekly import WEEKLY_TABLES_READ


def test_the_weekly_digest_waits_for_the_days_reports_which_come_after_everything_else_it_reads(make_settings):
    settings = make_settings()
    graph = build_definitions(settings).resolve_asset_graph()
    for repo in settings.repos:
        key = lambda name: dg.AssetKey([*repo.key_prefix, name])  # noqa: E731
        weekly, report = key(WEEKLY_ASSET), key(REPORT_ASSET)
        assert report in graph.get(weekly).parent_keys
        # every other input of the week is upstream of the report, so it is materialized by then
        upstream = graph.upstream_key_iterator(report)
        assert {key(t) for t in WEEKLY_TABLES_READ} <= set(upstream)
