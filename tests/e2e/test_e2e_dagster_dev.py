"""End to end on a real `dagster dev` (webserver + daemon + code server + run workers): the
lineage the UI reads, the schedule, and backfills launched the way the UI's Lineage page, an asset's
page, a Catalog group selection and the job's Partitions page launch them. The server and the
helpers are in tests/e2e_support.py; test_e2e_ui.py drives the UI itself in headless Chromium."""

from __future__ import annotations

import json

import pytest

from vllm_digest.testing.pipeline import report_path, sample_windows
from tests.e2e_support import (
    COUNTS_AT_CUTOFF_1139, DAYS, FIRST, LAST, LAYERS, LOCATION, PREFIX, REPORT, SITE, day_runs, is_day_run, layer_of,
    WEEKLY, partitioned_keys, upstream_of,
)
from tests.e2e_support import server  # noqa: F401  (the module's dagster dev: a fixture)
from vllm_digest.core.due import report_freshness_policy
from vllm_digest.core.keys import DAILY_SCHEDULE, RANGE_END_TAG, RANGE_START_TAG, WEEKLY_SCHEDULE

pytestmark = pytest.mark.e2e


def test_lineage_runs_raw_to_report_through_every_layer(server):
    nodes = server.dev.asset_nodes()
    layers = {k: layer_of(k, n) for k, n in nodes.items()}
    rank = {k: LAYERS.index(layer) for k, layer in layers.items()}
    backwards = [(d, k) for k, n in nodes.items() for d in n["deps"] if rank[d] > rank[k]]
    assert not backwards
    edges = {(layers[d], layers[k]) for k, n in nodes.items() for d in n["deps"]}
    present = [layer for layer in LAYERS if layer in layers.values()]
    assert present[:6] == list(LAYERS[:6])
    for upstream, downstream in zip(present, present[1:]):
        assert (upstream, downstream) in edges, f"no dependency from {upstream} to {downstream}"
    # one chain through all six, by the real dependency keys the UI draws
    chain = ["raw_activity", "stg_issues", "core_items", "mart_five_sets", "mart_key_changes", "daily_report"]
    for upstream, downstream in zip(chain, chain[1:]):
        assert (*PREFIX, upstream) in nodes[(*PREFIX, downstream)]["deps"], (upstream, downstream)
    # nothing dangles: every partitioned asset feeds the report
    partitioned = partitioned_keys(nodes)
    assert len(partitioned) == 37
    assert set(partitioned) == upstream_of(nodes, REPORT) | {REPORT}
    # the weekly digest reads the daily marts and feeds the site
    assert set(nodes[WEEKLY]["deps"]) <= set(partitioned) and WEEKLY in nodes[SITE]["deps"]
    assert {nodes[k]["backfillPolicy"]["policyType"] for k in partitioned} == {"SINGLE_RUN"}


def test_ui_reads_the_report_freshness_policy(server):
    policy = report_freshness_policy(server.settings)
    shown = server.dev.asset_nodes()[REPORT]["internalFreshnessPolicy"]
    assert shown == {
        "__typename": "CronFreshnessPolicy",
        "deadlineCron": policy.deadline_cron,
        "lowerBoundDeltaSeconds": int(policy.lower_bound_delta.total_seconds()),
        "timezone": "Asia/Shanghai",
    }
    assert shown["deadlineCron"] == "49 12 * * *" and shown["lowerBoundDeltaSeconds"] == 70 * 60


def test_daily_schedule_is_loaded_and_stopped_until_turned_on(server):
    data = server.dev.graphql(
        """query($repo: RepositorySelector!) { schedulesOrError(repositorySelector: $repo) { __typename
            ... on Schedules { results { name cronSchedule executionTimezone scheduleState { status } } } } }""",
        {"repo": {"repositoryLocationName": LOCATION, "repositoryName": "__repository__"}},
    )
    assert sorted(data["schedulesOrError"]["results"], key=lambda s: s["name"]) == [{
        "name": DAILY_SCHEDULE, "cronSchedule": "49 11 * * *", "executionTimezone": "Asia/Shanghai",
        "scheduleState": {"status": "STOPPED"},
    }, {
        # the weekly digest: Mondays, after the Sunday's daily run has had its 60 minutes of grace
        "name": WEEKLY_SCHEDULE, "cronSchedule": "49 12 * * 1", "executionTimezone": "Asia/Shanghai",
        "scheduleState": {"status": "STOPPED"},
    }]


ORIGIN_DAYS = ["2026-03-21", "2026-03-22"]
ONE_TABLE = (*PREFIX, "mart_key_changes")


@pytest.fixture(scope="module")
def backfills(server) -> dict[str, str]:
    """The module's backfills, launched as early as their inputs allow, so that the daemon's 30 s looks
    are shared: the Lineage one over FIRST..LAST, then, once its run over the days has succeeded (the
    tables the others read are then built) and while the daemon goes on to its weeks and site, the three
    other origins over ORIGIN_DAYS. Returns their ids by origin; each test waits for its own."""
    dev = server.dev
    every = sorted(dev.asset_nodes())
    lineage = dev.launch_backfill(every, FIRST, LAST, shape="ui")
    dev.wait_for_backfill_run(lineage, is_day_run)
    group = analytics_group(dev)
    return {
        "lineage": lineage,
        "asset": dev.launch_backfill([ONE_TABLE], ORIGIN_DAYS[0], ORIGIN_DAYS[-1], shape="ui"),
        "group": dev.launch_backfill(group, ORIGIN_DAYS[0], ORIGIN_DAYS[-1], shape="ui"),
        "job": dev.launch_backfill([("job", "daily_digest")], ORIGIN_DAYS[0], ORIGIN_DAYS[-1], shape="partition_set"),
    }


def analytics_group(dev) -> list[tuple[str, ...]]:
    return sorted(k for k, n in dev.asset_nodes().items() if n["groupName"] == "analytics")


def test_lineage_materialize_all_is_one_run_and_writes_three_reports(server, backfills):
    """What *Lineage* -> *Materialize all* -> a partition range sends: every asset key of the graph (the
    site included) and the range's partition names."""
    dev, settings = server.dev, server.settings
    partitioned = partitioned_keys(dev.asset_nodes())
    backfill = dev.wait_for_backfill(backfills["lineage"])
    assert backfill.status == "COMPLETED_SUCCESS", dev.fail(f"backfill ended {backfill.status}")
    # days and weeks: an asset backfill over two partitions definitions, whose partition names are per asset
    [run] = day_runs(backfill)
    assert run["status"] == "SUCCESS"
    tags = {t["key"]: t["value"] for t in run["tags"]}
    assert (tags[RANGE_START_TAG], tags[RANGE_END_TAG]) == (FIRST, LAST)
    assert sorted(tuple(a["path"]) for a in run["assetSelection"]) == partitioned
    # that one run wrote the report of each day, once; the site was built once, after them
    reports = dev.materializations_in(REPORT, backfill)
    assert sorted(m["partition"] for m in reports) == DAYS
    [site] = dev.materializations_in(SITE, backfill)
    assert int(site["timestamp"]) >= max(int(m["timestamp"]) for m in reports)

    real = {w["day"]: w for w in sample_windows()}["2026-03-22"]
    expected_counts = {**COUNTS_AT_CUTOFF_1139, "2026-03-22": real["counts"]}
    for day in DAYS:
        summary = json.loads(report_path(settings, day, "json").read_text(encoding="utf-8"))
        assert summary["counts"] == expected_counts[day], day
        for lang in settings.languages:
            assert report_path(settings, day, f"{lang}.md").stat().st_size > 1000, (day, lang)
    last = json.loads(report_path(settings, "2026-03-22", "json").read_text(encoding="utf-8"))
    assert {k: sorted(v) for k, v in last["lists"].items()} == {k: sorted(v) for k, v in real["lists"].items()}
    assert not report_path(settings, "2026-03-19", "json").exists()


def test_asset_page_catalog_group_and_job_partitions_backfills_are_one_run_each(server, backfills):
    """Three more ways the UI starts a backfill, launched together (the daemon's 30 s loop is then
    paid once) over days the Lineage backfill's run over the days built (the `backfills` fixture):

    - an asset's own page (or a Catalog selection of one table) sends just its key: the layer's
      step rebuilds that table alone, reading the others as the warehouse holds them;
    - a Catalog multi-select of the analytics group: every table of it;
    - *Jobs* -> daily_digest -> *Partitions* -> *Materialize*: a partition-set backfill of the job.
    """
    dev = server.dev
    days, key = ORIGIN_DAYS, ONE_TABLE
    group = analytics_group(dev)
    assert len(group) == 19
    done = {name: dev.wait_for_backfill(backfills[name]) for name in ("asset", "group", "job")}
    for name, backfill in done.items():
        assert backfill.status == "COMPLETED_SUCCESS", dev.fail(f"{name} backfill ended {backfill.status}")
        [run] = backfill.runs
        assert run["status"] == "SUCCESS", name

    [run] = done["asset"].runs
    assert [tuple(a["path"]) for a in run["assetSelection"]] == [key]
    assert sorted(m["partition"] for m in dev.materializations_in(key, done["asset"])) == days
    assert dev.materializations_in((*PREFIX, "mart_item_topics"), done["asset"]) == []

    [run] = done["group"].runs
    assert sorted(tuple(a["path"]) for a in run["assetSelection"]) == group
    for k in group:
        assert sorted(m["partition"] for m in dev.materializations_in(k, done["group"])) == days

    # a job backfill's run selects the job, not asset keys; the single-run policy makes the range one run
    [run] = done["job"].runs
    tags = {t["key"]: t["value"] for t in run["tags"]}
    assert (tags[RANGE_START_TAG], tags[RANGE_END_TAG]) == (days[0], days[-1])
    assert sorted(m["partition"] for m in dev.materializations_in(REPORT, done["job"])) == days
