"""No silent hole in a day marked complete (issue 27, items 4 and 7).

A day counted from issue events is cross-checked against two searches (``is:issue closed:`` and
``is:pr is:merged merged:``): an item the search finds closed or merged in the window that the events
feed gave no closing or merge for makes the day incomplete, puts a warning in its report and fails a
warehouse check. A day counted from current state (past the feed's reach) says so in its manifest, its
report and a warning check. Everything runs against the GitHub emulator over loopback."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

import dagster as dg
import pytest

from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.ingest.github.plan import SNAPSHOT_NOTE, fetch_day
from vllm_digest.ingest.raw_store import read_day
from vllm_digest.testing.github_emulator import Dataset, GitHubEmulator, github_moment
from vllm_digest.testing.github_fixtures import FAST, REPO, TOKEN, expected_windows, window_of
from vllm_digest.testing.pipeline import materialize, report_path, settings_at
from vllm_digest.warehouse import quality


LAG = dt.timedelta(minutes=10)  # the daily run fetches a day shortly after it ends
EN_SNAPSHOT = "Counted from current state: reopenings and later merges may be missing"
ZH_SNAPSHOT = "按条目当前状态统计：之后被重新打开的关闭和之后才合并的 PR 可能缺失"


def _closed_issue(data: Dataset, window) -> int:
    """An issue the window's list holds, closed once in the window and still closed then (search finds it)."""
    for n in sorted(expected_windows()[-1]["lists"]["closed_issues"]):
        item = data.items[n]
        closings = [e for e in data.events if e["issue"]["number"] == n and e["event"] in ("closed", "reopened")]
        if item.get("closed_at") and window.contains(github_moment(item["closed_at"])) and len(closings) == 1:
            return n
    raise AssertionError("the sample's last day has no issue closed once in its window")


def _merged_pr(data: Dataset, window) -> int:
    for n in sorted(expected_windows()[-1]["lists"]["merged_prs"]):
        merged = (data.items[n].get("pull_request") or {}).get("merged_at")
        if merged and window.contains(github_moment(merged)):
            return n
    raise AssertionError("the sample's last day has no PR merged in its window")


def _skipping(data: Dataset, skipped: dict[int, str]) -> Dataset:
    """The dataset whose events feed leaves out the given (number -> event) rows, as a flaky feed would;
    the items keep their closed_at / merged_at, so search still finds them."""
    events = [e for e in data.events if skipped.get(e["issue"]["number"]) != e["event"]]
    assert len(events) == len(data.events) - len(skipped)
    return dataclasses.replace(data, events=events)


def _fetch(data: Dataset, window, now):
    with GitHubEmulator(data, token=TOKEN, search_limit=1000, now=now) as emu:
        payload = fetch_day(REPO, window, emu.base_url, TOKEN, None, **FAST)
        searches = [r.query["q"] for r in emu.requests if r.path == "/search/issues"]
    return payload, searches


def _utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_clean_day_is_cross_checked_by_two_searches_and_stays_complete():
    data = Dataset.from_sample()
    w = window_of(expected_windows()[-1])
    payload, searches = _fetch(data, w, w.end + LAG)
    m = payload.manifest
    assert m.complete is True and m.incomplete_reasons == []
    span = f"{_utc(w.start)}..{_utc(w.end - dt.timedelta(seconds=1))}"
    # a recent day asks no created searches: these two are the cross-check's whole cost
    assert searches == [f"repo:vllm-project/vllm is:issue closed:{span}",
                        f"repo:vllm-project/vllm is:pr is:merged merged:{span}"]
    lists = expected_windows()[-1]["lists"]
    assert m.cross_check["applied"] is True
    for name in ("closed_issues", "merged_prs"):
        found = m.cross_check["sets"][name]
        assert found["missing"] == [] and found["numbers"] == sorted(lists[name]), name
    assert "counting" not in m.details


def test_feed_skipping_a_closing_marks_the_day_incomplete_naming_the_issue():
    data = Dataset.from_sample()
    w = window_of(expected_windows()[-1])
    n = _closed_issue(data, w)
    payload, _ = _fetch(_skipping(data, {n: "closed"}), w, w.end + LAG)
    m = payload.manifest
    assert m.complete is False
    assert m.cross_check["sets"]["closed_issues"]["missing"] == [n]
    assert m.cross_check["sets"]["merged_prs"]["missing"] == []
    [reason] = m.incomplete_reasons
    assert f"lacks a closing of issue #{n} in the window" in reason and "is:issue closed:" in reason


def test_feed_skipping_a_merge_marks_the_day_incomplete_naming_the_pr():
    data = Dataset.from_sample()
    w = window_of(expected_windows()[-1])
    n = _merged_pr(data, w)
    # a day old: the day's items come from created searches, and the cross-check adds its two
    payload, searches = _fetch(_skipping(data, {n: "merged"}), w, w.end + dt.timedelta(days=1))
    m = payload.manifest
    assert m.complete is False and m.cross_check["sets"]["merged_prs"]["missing"] == [n]
    [reason] = m.incomplete_reasons
    assert f"lacks a merge of PR #{n} in the window" in reason and "is:pr is:merged merged:" in reason
    assert len(searches) == 4


def test_a_search_whose_items_carry_no_merged_at_cannot_check_and_leaves_the_day_complete():
    """An older GitHub Enterprise server's search items lack ``pull_request.merged_at``: that search cannot
    say which PRs merged in the window, which is no hole. The set is recorded as not checked, with why;
    the closed issues are still checked, and a closing the feed skipped is still found."""
    data = Dataset.from_sample()
    w = window_of(expected_windows()[-1])
    with GitHubEmulator(data, token=TOKEN, search_limit=1000, now=w.end + LAG) as emu:
        emu.search_without_merged_at = True
        m = fetch_day(REPO, w, emu.base_url, TOKEN, None, **FAST).manifest
    assert m.complete is True, m.incomplete_reasons
    assert m.cross_check["applied"] is True
    merged = m.cross_check["sets"]["merged_prs"]
    assert merged["applied"] is False and "carry no merged_at" in merged["why"] and merged["total"] > 0
    assert "is:pr is:merged merged:" in merged["query"]
    closed = m.cross_check["sets"]["closed_issues"]
    assert closed["applied"] is True and closed["numbers"] == sorted(expected_windows()[-1]["lists"]["closed_issues"])

    n = _closed_issue(data, w)
    with GitHubEmulator(_skipping(data, {n: "closed"}), token=TOKEN, search_limit=1000, now=w.end + LAG) as emu:
        emu.search_without_merged_at = True
        m = fetch_day(REPO, w, emu.base_url, TOKEN, None, **FAST).manifest
    [reason] = m.incomplete_reasons
    assert f"lacks a closing of issue #{n} in the window" in reason


def test_closed_then_reopened_item_is_no_hole():
    """The events count a closing undone later; the search, reading the current closed_at, does not see
    it. That direction is no hole: the day stays complete, and the manifest records the difference."""
    data = Dataset.from_sample()
    w = window_of(expected_windows()[-1])
    n = _closed_issue(data, w)
    closing = next(e for e in data.events if e["issue"]["number"] == n and e["event"] == "closed")
    later = github_moment(closing["created_at"]) + dt.timedelta(minutes=5)
    reopen = {**closing, "id": max(e["id"] for e in data.events) + 1, "event": "reopened",
              "created_at": _utc(later)}
    items = {**data.items, n: {**data.items[n], "state": "open", "closed_at": None, "updated_at": _utc(later)}}
    payload, _ = _fetch(dataclasses.replace(data, items=items, events=[*data.events, reopen]), w, w.end + LAG)
    m = payload.manifest
    assert m.complete is True, m.incomplete_reasons
    assert m.cross_check["sets"]["closed_issues"]["only_in_events"] == [n]


def _evaluations(result) -> dict[tuple[str, str], dg.AssetCheckEvaluation]:
    return {(e.check_name, e.partition): e for e in result.get_asset_check_evaluations()}


@pytest.fixture(scope="module")
def two_day_run(tmp_path_factory):
    """One run of two days with the github source: the 22nd's feed skips a closing and a merge; the 21st
    lies past the feed's reach (GitHub's clock 89.5 days after the 22nd's start), so it is counted from
    current state. -> (settings, check evaluations by (check, day), the skipped issue, the skipped PR)."""
    data = Dataset.from_sample()
    hole_day = window_of(next(e for e in expected_windows() if e["day"] == "2026-03-22"))
    issue, pr = _closed_issue(data, hole_day), _merged_pr(data, hole_day)
    now = hole_day.start + dt.timedelta(days=89, hours=12)
    with pytest.MonkeyPatch.context() as mp, GitHubEmulator(
        _skipping(data, {issue: "closed", pr: "merged"}), token=TOKEN, search_limit=1000, now=now
    ) as emulator:
        mp.setenv("GITHUB_TOKEN", TOKEN)
        settings = settings_at(
            tmp_path_factory.mktemp("cross_check") / "home", VLLM_DIGEST_SOURCE="github",
            GITHUB_API_URL=emulator.base_url, GITHUB_TOKEN=TOKEN, GITHUB_WEB_URL="https://github.com",
            VLLM_DIGEST_GITHUB_PEOPLE="0", VLLM_DIGEST_GITHUB_FILES="0",
        )
        result = materialize(settings, "2026-03-21", "2026-03-22")
    return settings, _evaluations(result), issue, pr


def test_skipped_closing_and_merge_reach_manifest_report_and_a_failing_check(two_day_run):
    settings, evals, issue, pr = two_day_run
    manifest = read_day(settings.raw_dir, REPO, "2026-03-22").manifest
    assert manifest.complete is False and len(manifest.incomplete_reasons) == 2
    assert not evals[("fetch_complete", "2026-03-22")].passed
    hole = evals[("cross_checked_with_search", "2026-03-22")]
    assert not hole.passed and hole.severity == dg.AssetCheckSeverity.ERROR
    assert hole.metadata["missing_numbers"].value == sorted([issue, pr])
    assert f"closed_issues lacks #{issue}" in hole.description and f"merged_prs lacks #{pr}" in hole.description
    for suffix, warning in (("zh.md", "> ⚠️ 数据不完整"), ("en.md", "> ⚠️ Incomplete data"),
                            ("zh.html", "⚠️ 数据不完整"), ("en.html", "⚠️ Incomplete data")):
        page = report_path(settings, "2026-03-22", suffix).read_text(encoding="utf-8")
        assert warning in page, suffix
        assert f"issue #{issue}" in page and f"PR #{pr}" in page, suffix
        assert EN_SNAPSHOT not in page and ZH_SNAPSHOT not in page, suffix
    assert evals[("counted_from_events", "2026-03-22")].passed


def test_snapshot_day_says_how_it_was_counted_in_manifest_report_and_a_warning_check(two_day_run):
    settings, evals, _, _ = two_day_run
    counted = evals[("counted_from_events", "2026-03-21")]
    assert not counted.passed and counted.severity == dg.AssetCheckSeverity.WARN
    assert "counted from current state" in counted.description
    not_checked = evals[("cross_checked_with_search", "2026-03-21")]
    assert not_checked.passed and "not cross-checked: counted from current state" in not_checked.description
    old = read_day(settings.raw_dir, REPO, "2026-03-21").manifest
    assert old.semantics == "snapshot" and old.details["counting"] == SNAPSHOT_NOTE
    assert old.cross_check["applied"] is False
    for suffix, line in (("zh.md", f"> ⚠️ {ZH_SNAPSHOT}"), ("en.md", f"> ⚠️ {EN_SNAPSHOT}"),
                         ("zh.html", f"<strong>⚠️ {ZH_SNAPSHOT}</strong>"),
                         ("en.html", f"<strong>⚠️ {EN_SNAPSHOT}</strong>")):
        assert line in report_path(settings, "2026-03-21", suffix).read_text(encoding="utf-8"), suffix


def test_sample_days_say_they_were_not_cross_checked(make_settings):
    result = materialize(make_settings(), "2026-03-22")
    evals = _evaluations(result)
    check = evals[("cross_checked_with_search", "2026-03-22")]
    assert check.passed and check.description == (
        "not cross-checked: the sample source has no search to check its lists against")
    assert evals[("counted_from_events", "2026-03-22")].passed


def test_the_check_names_a_set_the_search_could_not_check(make_settings):
    """The warehouse check passes such a day saying which set was not cross-checked and why, instead of
    claiming every merged PR was listed."""
    settings = make_settings()
    materialize(settings, "2026-03-22")
    why = "the search's 21 items carry no merged_at (an older GitHub Enterprise server's search), so it cannot say"
    record = {"applied": True, "sets": {
        "closed_issues": {"query": "is:issue closed:…", "applied": True, "numbers": [], "missing": []},
        "merged_prs": {"query": "is:pr is:merged merged:…", "applied": False, "why": why},
    }}
    with WarehouseResource(path=str(settings.warehouse_path)).connect() as con:
        con.execute("UPDATE stg_fetch_manifest SET cross_check = ? WHERE day = DATE '2026-03-22'", [json.dumps(record)])
        outcome = quality.cross_checked(con, repo="vllm-project/vllm", days=["2026-03-22"])["2026-03-22"]
    assert outcome.passed
    assert f"merged_prs not cross-checked: {why}" in outcome.description
    assert outcome.metadata["queries"] == {"closed_issues": "is:issue closed:…"}
