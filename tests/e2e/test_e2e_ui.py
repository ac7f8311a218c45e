"""End to end on a real `dagster dev`, second module (its own server, so the two modules run in
parallel): a backfill that also selects the site, and the UI itself in headless Chromium (the asset
graph, and the Lineage page's Materialize-all dialog launching a range as one run).

A backfill that also selects the site asset (key ["site"], unpartitioned) runs its days as one run,
then rebuilds the index and feed once, after every report."""

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


ACTIVE = "[QUEUED, NOT_STARTED, STARTING, STARTED, CANCELING]"


def wait_until_quiet(dev, timeout: float = 600) -> None:
    """Until no run is queued or running and the re-render sensor has ticked since the last run ended, so
    every follow-up it asks for has been launched and has run (the timeout guards against a hang)."""
    import time

    from vllm_digest.core.keys import BASELINE_SENSOR
    query = """{ runsOrError(filter: {statuses: %s}) { ... on Runs { results { runId } } }
        finished: runsOrError(limit: 50) { ... on Runs { results { endTime } } }
        sensorOrError(sensorSelector: {repositoryLocationName: "vllm_digest", repositoryName: "__repository__",
                                       sensorName: "%s"}) {
            ... on Sensor { sensorState { ticks(limit: 1) { timestamp status } } } } }""" % (ACTIVE, BASELINE_SENSOR)
    deadline = time.monotonic() + timeout
    quiet = 0
    while time.monotonic() < deadline:
        data = dev.graphql(query)
        active = data["runsOrError"]["results"]
        ends = [r["endTime"] or 0 for r in data["finished"]["results"]]
        ticks = data["sensorOrError"]["sensorState"]["ticks"]
        # a finished tick that started after the last run ended (the runs listed newest first by creation:
        # the last to end may be any of them; a tick still running may yet launch one), seen twice in a row
        settled = ticks and ticks[0]["status"] != "STARTED" and ticks[0]["timestamp"] > max(ends, default=0) + 1
        quiet = quiet + 1 if not active and settled else 0
        if quiet == 2:
            return
        time.sleep(2)
    raise dev.fail(f"runs still active or the sensor has not ticked since within {timeout:.0f} s")


def test_a_ui_backfill_renders_each_day_and_week_once(server):
    """A backfill as the Lineage page's "Materialize all" sends it (every key, the days' names), over days
    whose week is already rendered and whose following days are built: the backfill renders its days and
    their week, the re-render sensor follows up later days, and nothing is rendered twice (the sensor used
    to render the backfilled week again, before or after the backfill's own weekly run)."""
    dev = server.dev
    nodes = dev.asset_nodes()
    # the days 03-06 ... 03-10 and their weeks, rendered before (a Friday to a Tuesday: two weeks)
    days = dev.run_backfill([*partitioned_keys(nodes), SITE], "2026-03-06", "2026-03-10", shape="by_assets")
    weeks = dev.run_backfill([WEEKLY], "2026-03-02", "2026-03-09", shape="by_assets")
    assert (days.status, weeks.status) == ("COMPLETED_SUCCESS",) * 2, dev.fail(f"backfills ended {days.status}, {weeks.status}")
    wait_until_quiet(dev)
    before = {m["runId"] for key in (REPORT, WEEKLY) for m in dev.materializations(key)}
    # Friday to Sunday again, as the UI sends it: the week of 03-02 is the backfill's; 03-09 and 03-10 follow
    backfill = dev.run_backfill(sorted(nodes), "2026-03-06", "2026-03-08")
    assert backfill.status == "COMPLETED_SUCCESS", dev.fail(f"backfill ended {backfill.status}")
    wait_until_quiet(dev)
    renders = {key: sorted(m["partition"] for m in dev.materializations(key) if m["runId"] not in before)
               for key in (REPORT, WEEKLY)}
    runs = dev.graphql("""{ runsOrError(limit: 30) { ... on Runs { results { runId jobName status
        tags { key value } } } } }""")["runsOrError"]["results"]
    listed = [(r["jobName"], r["status"], {t["key"]: t["value"] for t in r["tags"]
                                          if "range" in t["key"] or "rerender" in t["key"]}) for r in runs]
    # nothing twice, and the backfilled days and their week once: the sensor used to render the week again.
    # (Which later days and weeks the sensor follows up depends on what the module's other tests built.)
    assert all(len(set(found)) == len(found) for found in renders.values()), (renders, listed)
    assert {"2026-03-06", "2026-03-07", "2026-03-08"} <= set(renders[REPORT]), (renders, listed)
    assert "2026-03-02" in renders[WEEKLY], (renders, listed)
