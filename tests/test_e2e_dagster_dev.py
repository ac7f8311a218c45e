"""End to end on a real `dagster dev` (webserver + daemon + code server + run
workers): the lineage the UI reads, a three-day backfill launched the way the
UI launches one, and the UI's asset graph in headless Chromium.

One server serves the whole module (starting it costs ~10 s on 2 cores). Its
DAGSTER_HOME, data home and log live in a temp dir; the log path is printed
in every failure. The server is stopped at the end, and the teardown fails
if any process of its group outlives it.

A backfill that also selects the site asset (key ["site"], unpartitioned) runs
its days as one run, then rebuilds the index and feed once, after every report.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

import dagster as dg
import pytest

from conftest import report_path, sample_windows
from tests.chromium import ARTIFACTS, launch_chromium
from tests.dagster_dev import DagsterDev, group_members
from vllm_digest.schedules import (
    DAILY_SCHEDULE, RANGE_END_TAG, RANGE_START_TAG, WEEKLY_GROUP, WEEKLY_SCHEDULE, report_freshness_policy,
)
from vllm_digest.settings import Settings, load_settings

pytestmark = pytest.mark.e2e

LOCATION = "vllm_digest"
PREFIX = ("vllm_project", "vllm")
REPORT = (*PREFIX, "daily_report")
WEEKLY = (*PREFIX, "weekly_digest")
SITE = ("site",)
FIRST, LAST = "2026-03-20", "2026-03-22"
DAYS = ["2026-03-20", "2026-03-21", "2026-03-22"]
# Left to right as the data flows; an edge may skip layers, never point back.
LAYERS = ("ingest", "stg", "core", "mart", "analytics", "report", "site")
# The day's five counts with the one cutoff 11:39 (UTC+8). The real reports of
# 03-14, 03-15, 03-16, 03-20 and 03-21 closed their windows at 11:46, 11:50,
# 11:28, 11:14 and 11:34, so expected.json's counts for them may differ by the
# items of those minutes (03-15 has 2 new PRs fewer); these are counted from
# the sample's own timestamps (created_at; closed and merged events, a PR's
# closing without a merge at the same moment counting as closed unmerged), by
# a counter that reproduces expected.json at each window's own cutoff (all but
# 03-05 and 03-07, whose stated counts include items the embedded sample
# lacks). 03-22's window is its real report's, so its counts come from
# expected.json.
COUNTS_AT_CUTOFF_1139 = {
    "2026-03-14": {"new_issues": 11, "closed_issues": 10, "new_prs": 51, "merged_prs": 14, "closed_unmerged_prs": 8},
    "2026-03-15": {"new_issues": 6, "closed_issues": 10, "new_prs": 37, "merged_prs": 7, "closed_unmerged_prs": 11},
    "2026-03-16": {"new_issues": 21, "closed_issues": 20, "new_prs": 93, "merged_prs": 63, "closed_unmerged_prs": 28},
    "2026-03-20": {"new_issues": 31, "closed_issues": 38, "new_prs": 65, "merged_prs": 46, "closed_unmerged_prs": 25},
    "2026-03-21": {"new_issues": 12, "closed_issues": 10, "new_prs": 43, "merged_prs": 16, "closed_unmerged_prs": 10},
}
UI_TIMEOUT_MS = 60_000  # a hang guard, not a speed target
# what the Dagster UI prints when a query or a component fails
UI_ERROR_TEXTS = ("Unexpected GraphQL error", "Something went wrong", "PythonError", "An error occurred")


@dataclass
class Server:
    dev: DagsterDev
    settings: Settings


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("e2e")
    config = root / "vllm_digest.toml"
    config.write_text("# empty: no developer config file applies\n", encoding="utf-8")
    env = {
        "VLLM_DIGEST_CONFIG": str(config),
        "VLLM_DIGEST_HOME": str(root / "home"),
        "VLLM_DIGEST_SOURCE": "sample",
        "VLLM_DIGEST_CUTOFF": "11:39",
    }
    dev = DagsterDev.start(root / "dagster_home", env, root / "dagster-dev.log")
    try:
        info = dev.wait_for_server()
        assert info["dagster_version"] == dg.__version__
        dev.wait_for_location(LOCATION)
        yield Server(dev, load_settings(env))
    finally:
        pgid = dev.process.pid
        dev.stop()
        left = group_members(pgid)
        assert not left, f"processes of dagster dev still alive after stop: {left} (log: {dev.log_path})"


def partitioned_keys(nodes: dict) -> list[tuple[str, ...]]:
    """The assets of the daily partitions (the weekly digests have weekly ones, and a job of their own)."""
    return sorted(k for k, n in nodes.items() if n["isPartitioned"] and n["groupName"] != WEEKLY_GROUP)


def layer_of(key: tuple[str, ...], node: dict) -> str:
    if key == SITE:
        return "site"
    group = node["groupName"]
    if group == WEEKLY_GROUP:
        return "report"  # the weekly digest is a report over weeks: from the marts to the site
    # the warehouse group holds three layers, told apart by the table prefix
    layer = key[-1].split("_", 1)[0] if group == "warehouse" else group
    assert layer in LAYERS, f"{'/'.join(key)} (group {group!r}) is in no known layer {LAYERS}"
    return layer


def upstream_of(nodes: dict, key: tuple[str, ...]) -> set[tuple[str, ...]]:
    seen: set[tuple[str, ...]] = set()
    todo = list(nodes[key]["deps"])
    while todo:
        k = todo.pop()
        if k not in seen:
            seen.add(k)
            todo.extend(nodes[k]["deps"])
    return seen


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
    assert len(partitioned) == 29
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


def day_runs(backfill) -> list[dict]:
    """The backfill's runs over days (the site, unpartitioned, and the weekly digests of the weeks holding the
    days get runs of their own after them)."""
    return [r for r in backfill.runs if not {tuple(a["path"]) for a in r["assetSelection"]} <= {SITE, WEEKLY}]


def test_lineage_materialize_all_is_one_run_and_writes_three_reports(server):
    """What *Lineage* -> *Materialize all* -> a partition range sends: every asset key of the graph (the
    site included) and the range's partition names."""
    dev, settings = server.dev, server.settings
    every = sorted(dev.asset_nodes())
    partitioned = partitioned_keys(dev.asset_nodes())
    backfill = dev.run_backfill(every, FIRST, LAST, shape="ui")
    assert backfill.status == "COMPLETED_SUCCESS", dev.fail(f"backfill ended {backfill.status}")
    # days and weeks: an asset backfill over two partitions definitions, whose partition names are per asset
    print("backfill partition names:", backfill.partition_names)
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


def test_asset_page_catalog_group_and_job_partitions_backfills_are_one_run_each(server):
    """Three more ways the UI starts a backfill, launched together (the daemon's 30 s loop is then
    paid once) over days the Lineage test built:

    - an asset's own page (or a Catalog selection of one table) sends just its key: the layer's
      step rebuilds that table alone, reading the others as the warehouse holds them;
    - a Catalog multi-select of the analytics group: every table of it;
    - *Jobs* -> daily_digest -> *Partitions* -> *Materialize*: a partition-set backfill of the job.
    """
    dev = server.dev
    days = ["2026-03-21", "2026-03-22"]
    key = (*PREFIX, "mart_key_changes")
    group = sorted(k for k, n in dev.asset_nodes().items() if n["groupName"] == "analytics")
    assert len(group) == 14
    launched = {
        "asset": dev.launch_backfill([key], days[0], days[-1], shape="ui"),
        "group": dev.launch_backfill(group, days[0], days[-1], shape="ui"),
        "job": dev.launch_backfill([("job", "daily_digest")], days[0], days[-1], shape="partition_set"),
    }
    done = {name: dev.wait_for_backfill(backfill_id) for name, backfill_id in launched.items()}
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


def test_backfill_with_the_site_rebuilds_the_index_once_after_the_reports(server):
    dev, settings = server.dev, server.settings
    days = ["2026-03-17", "2026-03-18"]
    backfill = dev.run_backfill([*partitioned_keys(dev.asset_nodes()), SITE], days[0], days[-1], shape="by_assets")
    assert backfill.status == "COMPLETED_SUCCESS", dev.fail(f"backfill ended {backfill.status}")
    reports = dev.materializations_in(REPORT, backfill)
    assert sorted(m["partition"] for m in reports) == days
    # the days are still one run; the site is built once, when the last report is on disk
    assert len(day_runs(backfill)) == 1
    [site] = dev.materializations_in(SITE, backfill)
    assert int(site["timestamp"]) >= max(int(m["timestamp"]) for m in reports)
    index = (settings.site_dir / "index.html").read_text(encoding="utf-8")
    feed = (settings.site_dir / "feed.xml").read_text(encoding="utf-8")
    for day in days:
        assert f"{day}.zh.html" in index and f"{day}.zh.html" in feed, day


def graphql_failures(responses) -> list:
    """Each GraphQL response that failed or carried errors (read while its page is open)."""
    failed = []
    for response in responses:
        body = response.json() if response.ok else {}
        if not response.ok or body.get("errors"):
            failed.append((response.status, body.get("errors")))
    return failed


def expand_all_groups(page) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    # the shortcut is listened for by the graph's toolbar: wait until it is drawn
    page.locator("button:has([aria-label='zoom_in'])").last.wait_for()
    report_node = page.get_by_text("daily_report", exact=True)
    page.keyboard.press("Alt+KeyE")
    try:
        report_node.last.wait_for(timeout=15_000)
    except PlaywrightTimeout:
        # the shortcut toggles: press again only if the groups are still all collapsed
        assert report_node.count() == 0
        page.keyboard.press("Alt+KeyE")
        report_node.last.wait_for()


@pytest.mark.browser
def test_ui_asset_graph_renders_without_errors(server):
    from playwright.sync_api import expect, sync_playwright

    dev = server.dev
    # the first-visit community dialog would cover the graph; mark it seen as its Skip button does
    assert dev.graphql("mutation { setNuxSeen }")["setNuxSeen"] is True
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "dagster-asset-graph.png"
    shot.unlink(missing_ok=True)
    failed, page_errors, shown_errors, responses_seen = [], [], [], 0
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            # tall enough that the expanded graph fits at a zoom where names are legible
            context = browser.new_context(viewport={"width": 1700, "height": 1900})
            context.set_default_timeout(UI_TIMEOUT_MS)

            def open_graph():
                page, responses = context.new_page(), []
                page.on("response", lambda r: responses.append(r) if "/graphql" in r.url else None)
                page.on("pageerror", lambda e: page_errors.append(str(e)))
                page.goto(f"{dev.url}/asset-groups", wait_until="domcontentloaded")
                page.get_by_text("warehouse", exact=True).last.wait_for()
                return page, responses

            # expand every group with the UI's shortcut (Alt+E); the choice is kept,
            # and the next page lays the expanded graph out fitted to the viewport
            page, responses = open_graph()
            expand_all_groups(page)
            failed += graphql_failures(responses)
            responses_seen += len(responses)
            page.close()

            page, responses = open_graph()
            for name in ("raw_activity", "stg_issues", "core_items", "mart_five_sets", "mart_key_changes", "daily_report"):
                expect(page.get_by_text(name, exact=True).last).to_be_visible()
            page.screenshot(path=str(shot))
            shown_errors = [t for t in UI_ERROR_TEXTS if page.get_by_text(t).count()]
            failed += graphql_failures(responses)
            responses_seen += len(responses)
        finally:
            browser.close()
    assert not shown_errors, f"the page shows {shown_errors}; screenshot {shot}"
    assert not page_errors, page_errors
    assert responses_seen and not failed, failed
    assert shot.stat().st_size > 20_000, f"screenshot {shot} looks empty"


def is_backfill_launch(request) -> bool:
    return "/graphql" in request.url and (request.post_data_json or {}).get("operationName") == "LaunchPartitionBackfill"


@pytest.mark.browser
def test_ui_lineage_materialize_all_dialog_backfills_a_range_as_one_run(server):
    """A user's clicks on *Lineage*: *Materialize all…*, *Show all partitions* when the dialog opens on
    the last 90 days only, the range typed into the partition box, *Launch backfill*. The mutation the
    browser sends must carry every asset key and the three days, and the daemon must run them as one run
    that writes the three days' reports. Its days are ones no other test here backfills."""
    import re

    from playwright.sync_api import expect, sync_playwright

    dev, settings = server.dev, server.settings
    first, last = "2026-03-14", "2026-03-16"
    days = ["2026-03-14", "2026-03-15", "2026-03-16"]
    assert dev.graphql("mutation { setNuxSeen }")["setNuxSeen"] is True
    nodes = dev.asset_nodes()
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "dagster-lineage-backfill-dialog.png"
    shot.unlink(missing_ok=True)
    sent, responses, page_errors = [], [], []
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            context = browser.new_context(viewport={"width": 1600, "height": 1000})
            context.set_default_timeout(UI_TIMEOUT_MS)
            page = context.new_page()
            page.on("request", lambda r: sent.append(r.post_data_json["variables"]) if is_backfill_launch(r) else None)
            page.on("response", lambda r: responses.append(r) if "/graphql" in r.url else None)
            page.on("pageerror", lambda e: page_errors.append(str(e)))
            page.goto(f"{dev.url}/asset-groups", wait_until="domcontentloaded")
            # the button's accessible name starts with its icon's label ("materialization")
            page.get_by_role("button", name=re.compile(r"Materialize all")).click()
            dialog = page.get_by_role("dialog")
            range_box = dialog.get_by_role("textbox")
            range_box.wait_for()
            # drawn with the partition box when the partitions outrun 90 days
            show_all = dialog.get_by_role("button", name="Show all partitions")
            if show_all.count():
                show_all.click()
            range_box.fill(f"[{first}...{last}]")
            range_box.press("Enter")
            # days and weeks in one graph: the dialog selects the days of its first asset and maps them to
            # the weeks downstream ("materialize all partitions downstream of the selected partitions")
            expect(range_box).to_have_value(f"[{first}...{last}]")
            page.screenshot(path=str(shot))
            with page.expect_response(lambda r: is_backfill_launch(r.request)) as answer:
                dialog.get_by_role("button", name="Launch backfill").click()
            launched = answer.value.json()["data"]["launchPartitionBackfill"]
            if launched["__typename"] == "LaunchBackfillSuccess":
                expect(page.get_by_text(f"Created backfill {launched['backfillId']}")).to_be_visible()
            failed = graphql_failures(responses)
        finally:
            browser.close()
    print("launchPartitionBackfill variables sent by the browser:", json.dumps(sent))
    # what the UI sent: every asset key of the graph (the site included) and the range's days
    [variables] = sent
    params = variables["backfillParams"]
    assert sorted(tuple(a["path"]) for a in params["assetSelection"]) == sorted(nodes)
    assert params["partitionNames"] == days
    assert "partitionsByAssets" not in params and "selector" not in params
    assert launched["__typename"] == "LaunchBackfillSuccess", dev.fail(f"the UI's backfill was refused: {launched}")
    assert not page_errors, page_errors
    assert not failed, failed

    backfill = dev.wait_for_backfill(launched["backfillId"])
    assert backfill.status == "COMPLETED_SUCCESS", dev.fail(f"backfill ended {backfill.status}")
    # days and weeks: an asset backfill over two partitions definitions, whose partition names are per asset
    assert {r["status"] for r in backfill.runs} == {"SUCCESS"}
    # the weeks holding the days were rendered too, from what the warehouse holds of them
    weeks = sorted({(dt.date.fromisoformat(d) - dt.timedelta(days=dt.date.fromisoformat(d).weekday())).isoformat()
                    for d in days})
    assert sorted(m["partition"] for m in dev.materializations_in(WEEKLY, backfill)) == weeks
    [run] = day_runs(backfill)
    tags = {t["key"]: t["value"] for t in run["tags"]}
    assert (tags[RANGE_START_TAG], tags[RANGE_END_TAG]) == (first, last)
    assert sorted(tuple(a["path"]) for a in run["assetSelection"]) == partitioned_keys(nodes)
    # besides it, at most the site's own run and the weekly digests' of the weeks holding the days
    others = [{tuple(a["path"]) for a in r["assetSelection"]} for r in backfill.runs if r is not run]
    assert all(o <= {SITE, WEEKLY} for o in others), others
    assert sorted(m["partition"] for m in dev.materializations_in(REPORT, backfill)) == days
    for day in days:
        summary = json.loads(report_path(settings, day, "json").read_text(encoding="utf-8"))
        assert summary["counts"] == COUNTS_AT_CUTOFF_1139[day], day
        for lang in settings.languages:
            assert report_path(settings, day, f"{lang}.md").stat().st_size > 1000, (day, lang)
    assert shot.stat().st_size > 20_000, f"screenshot {shot} looks empty"
