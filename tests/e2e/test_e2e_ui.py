"""End to end on a real `dagster dev`, second module (its own server, so the modules run in
parallel): a backfill that also selects the site, and the UI itself in headless Chromium (the asset
graph, and the Lineage page's Materialize-all dialog launching a range as one run).

A backfill that also selects the site asset (key ["site"], unpartitioned) runs its days as one run,
then rebuilds the index and feed once, after every report. It is launched when the module starts
(the `site_backfill` fixture, which the dialog's test asks for first) and runs beside the dialog's
backfill: the daemon's 30 s looks are then paid once for both. Their days differ (03-14 ... 03-16 for
the dialog, 03-17 and 03-18 here), and each test reads only its own backfill's runs."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from vllm_digest.testing.pipeline import report_path
from tests.chromium import ARTIFACTS, launch_chromium
from tests.e2e_support import (
    COUNTS_AT_CUTOFF_1139, REPORT, SITE, UI_ERROR_TEXTS, UI_TIMEOUT_MS, WEEKLY, day_runs, partitioned_keys,
)
from tests.e2e_support import server  # noqa: F401  (the module's dagster dev: a fixture)
from vllm_digest.core.keys import RANGE_END_TAG, RANGE_START_TAG

pytestmark = pytest.mark.e2e


SITE_DAYS = ["2026-03-17", "2026-03-18"]


@pytest.fixture(scope="module")
def site_backfill(server) -> str:
    """The partitionsByAssets backfill of every daily asset and the site over SITE_DAYS: launched, not
    waited for (its test waits)."""
    nodes = server.dev.asset_nodes()
    return server.dev.launch_backfill([*partitioned_keys(nodes), SITE], SITE_DAYS[0], SITE_DAYS[-1], shape="by_assets")


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
def test_ui_lineage_materialize_all_dialog_backfills_a_range_as_one_run(server, site_backfill):
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
    [run] = day_runs(backfill)
    tags = {t["key"]: t["value"] for t in run["tags"]}
    assert (tags[RANGE_START_TAG], tags[RANGE_END_TAG]) == (first, last)
    assert sorted(tuple(a["path"]) for a in run["assetSelection"]) == partitioned_keys(nodes)
    # besides it, at most the site's own run and the weekly digests' of the weeks holding the days
    others = [[tuple(a["path"]) for a in r["assetSelection"]] for r in backfill.runs if r is not run]
    assert all(set(o) <= {SITE, WEEKLY} for o in others), others
    # the weeks holding the days were rendered too, from what the warehouse holds of them
    weeks = sorted({(dt.date.fromisoformat(d) - dt.timedelta(days=dt.date.fromisoformat(d).weekday())).isoformat()
                    for d in days})
    assert sorted(m["partition"] for m in dev.materializations_in(WEEKLY, backfill)) == weeks
    assert sorted(m["partition"] for m in dev.materializations_in(REPORT, backfill)) == days
    for day in days:
        summary = json.loads(report_path(settings, day, "json").read_text(encoding="utf-8"))
        assert summary["counts"] == COUNTS_AT_CUTOFF_1139[day], day
        for lang in settings.languages:
            assert report_path(settings, day, f"{lang}.md").stat().st_size > 1000, (day, lang)
    assert shot.stat().st_size > 20_000, f"screenshot {shot} looks empty"


def test_backfill_with_the_site_rebuilds_the_index_once_after_the_reports(server, site_backfill):
    dev, settings = server.dev, server.settings
    days = SITE_DAYS
    backfill = dev.wait_for_backfill(site_backfill)
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
