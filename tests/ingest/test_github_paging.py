"""Paging that GitHub gets wrong (issue 27): a Link header that loops, an events feed that does not
advance, a stale 304, a 422 "pagination is limited" and a 301 for a moved repository. Each is met
with a clear error or a day marked for what it is, never a hang and never a silent hole."""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading

import pytest

from vllm_digest.testing.github_emulator import Dataset, Fault, GitHubEmulator
from vllm_digest.testing.github_fixtures import FAST, REPO, TOKEN, expected_windows, window_of
from tests.emulator_fixtures import sample_dataset
from vllm_digest.ingest.github.client import GitHubClient, GitHubError, PagingError
from vllm_digest.ingest.github.plan import fetch_day
from vllm_digest.ingest.raw_store import read_day, write_day

__all__ = ["sample_dataset"]  # a fixture used by name

LAG = dt.timedelta(minutes=10)  # a daily run: the recent plan (open issues list)
LATE = dt.timedelta(days=2)  # a late re-run: the search plan
# a hang guard, not a timing assertion: an endless loop fails the test instead of hanging the suite
GUARD_SECONDS = 60


def with_comments(dataset: Dataset, window, count: int = 25) -> Dataset:
    """The dataset with ``count`` conversation and review comments spread over the window (the
    embedded sample has none), so the comment lists take several pages of 10."""
    pr = min(n for n, item in dataset.items.items() if "pull_request" in item)
    api = f"https://api.github.com/repos/{dataset.repo}"
    step = (window.end - window.start) / (count + 1)
    comments, review_comments = [], []
    for i in range(count):
        at = (window.start + step * (i + 1)).astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        common = {"created_at": at, "updated_at": at, "user": {"login": f"user{i}", "type": "User"}, "body": "ok"}
        comments.append({**common, "id": 7_000_000 + i, "issue_url": f"{api}/issues/{pr}"})
        review_comments.append({**common, "id": 8_000_000 + i, "pull_request_url": f"{api}/pulls/{pr}"})
    return dataclasses.replace(dataset, comments=comments, review_comments=review_comments)


def fetch_guarded(emu: GitHubEmulator, window, previous=None, **options):
    """``fetch_day`` in a thread that must end within the guard: (payload, error)."""
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["payload"] = fetch_day(REPO, window, emu.base_url, TOKEN, previous, **{**FAST, **options})
        except Exception as exc:  # handed to the test
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(GUARD_SECONDS)
    assert not worker.is_alive(), "the fetch did not end: a paging loop without a stop"
    return outcome.get("payload"), outcome.get("error")


@pytest.fixture
def window():
    return window_of(expected_windows()[5])


@pytest.mark.parametrize("path, lag", [
    ("/vllm/issues/comments", LAG),  # the day's comments
    ("/vllm/pulls/comments", LAG),  # its review comments
    ("/vllm/issues", LAG),  # the open issues list of a recent day
    ("/search/issues", LATE),  # the created searches of an older day
])
def test_a_link_header_that_loops_stops_with_an_error_naming_endpoint_url_and_cap(
        sample_dataset, window, tmp_path, path, lag):
    with GitHubEmulator(with_comments(sample_dataset, window), token=TOKEN, search_limit=1000) as emu:
        emu.now = window.end + lag
        emu.loop_links.add(path)
        # 10 a page: the window's comments and items take more than one
        _, error = fetch_guarded(emu, window, per_page=10)
        asked = sum(1 for r in emu.requests if r.path.endswith(path))
    assert isinstance(error, PagingError), error
    assert error.transient is False  # the same request pages the same way again: not retried
    message = str(error)
    assert f"{path}?" in message and "paging loop" in message
    assert "page=1" in message  # the URL already fetched
    assert "capped at 1000" in message
    assert asked <= 6  # the first page, page=1 once, then the loop is seen (search: a few searches)


def test_a_list_that_never_ends_stops_at_the_page_cap(sample_dataset):
    with GitHubEmulator(sample_dataset, token=TOKEN) as emu:
        emu.stuck_pages.add("/issues/comments")  # a next on every page, each a new URL
        with GitHubClient(api_url=emu.base_url, token=TOKEN, max_pages=4, **FAST) as client:
            with pytest.raises(PagingError) as caught:
                for _ in client.pages("repos/vllm-project/vllm/issues/comments", {"per_page": 10}):
                    pass
        asked = sum(1 for r in emu.requests if r.path.endswith("/issues/comments"))
    assert asked == 4
    message = str(caught.value)
    assert message.startswith("GitHub GET /repos/vllm-project/vllm/issues/comments?per_page=10: more than 4 pages")
    assert "page=5" in message


def _events_plan_day(emu: GitHubEmulator, window, **options):
    payload, error = fetch_guarded(emu, window, per_page=10, **options)
    assert error is None, error
    return payload.manifest


def test_an_events_feed_that_does_not_advance_marks_the_day_incomplete(sample_dataset, window):
    """Every page serves the newest events again: the plan used to page it 300 times and land the
    day under snapshot counting with 0 events as complete."""
    with GitHubEmulator(sample_dataset, token=TOKEN) as emu:
        emu.now = window.end + dt.timedelta(days=3)  # the window lies pages deep
        emu.stuck_pages.add("/issues/events")
        manifest = _events_plan_day(emu, window)
        feed_requests = sum(1 for r in emu.requests if r.path.endswith("/issues/events"))
    assert feed_requests == 4  # page 1, then STUCK_PAGES pages without a new event
    assert manifest.semantics == "snapshot" and manifest.complete is False
    [reason] = manifest.incomplete_reasons
    assert "the issue events feed does not advance: pages 2 to 4" in reason and "page=4" in reason
    assert manifest.details["snapshot_reason"] == reason


def test_new_events_shifting_the_feed_between_two_pages_do_not_make_it_stuck(sample_dataset, window):
    """A page's worth of new events arrives at the feed's head between pages 1 and 2, so page 2 repeats
    page 1: the day still reads the feed back to its window, complete, with the same events as a quiet feed."""
    with GitHubEmulator(sample_dataset, token=TOKEN, search_limit=1000) as emu:  # two fetches of the day
        emu.now = window.end + dt.timedelta(days=3)  # the window lies pages deep
        quiet, error = fetch_guarded(emu, window, per_page=10)
        assert error is None, error
        emu.shifted_pages.add("/issues/events")
        emu.clear_log()
        shifted, error = fetch_guarded(emu, window, per_page=10)
        assert error is None, error
    assert quiet.manifest.semantics == "events" and quiet.manifest.complete is True  # the baseline
    manifest = shifted.manifest
    assert manifest.semantics == "events" and manifest.complete is True, manifest.incomplete_reasons
    assert "snapshot_reason" not in manifest.details
    assert manifest.details["event_pages"] == quiet.manifest.details["event_pages"] + 1
    assert [e["id"] for e in shifted.events] == [e["id"] for e in quiet.events] and shifted.events


def test_an_events_feed_whose_link_loops_back_marks_the_day_incomplete(sample_dataset, window):
    """The feed ends (GitHub keeps a day of events here) and its last Link loops back to page 1."""
    with GitHubEmulator(sample_dataset, token=TOKEN, events_horizon_days=1) as emu:
        emu.now = window.end + dt.timedelta(days=3)
        emu.loop_links.add("/issues/events")
        manifest = _events_plan_day(emu, window, events_horizon_days=10_000)
        feed_requests = sum(1 for r in emu.requests if r.path.endswith("/issues/events"))
    assert feed_requests < 20
    assert manifest.semantics == "snapshot" and manifest.complete is False
    [reason] = manifest.incomplete_reasons
    assert "issue events feed" in reason and "/issues/events" in reason
    # one repeated page is tolerated (new events may shift the feed): the loop itself is what is named
    assert "paging loop" in reason


def test_the_page_cap_fallback_stays_a_complete_snapshot_day(sample_dataset, window):
    """Distinct from a broken feed: a feed that is fine but too long for the cap is the documented fallback."""
    with GitHubEmulator(sample_dataset, token=TOKEN) as emu:
        emu.now = window.end + dt.timedelta(days=3)
        manifest = _events_plan_day(emu, window, max_event_pages=2)
    assert manifest.semantics == "snapshot" and manifest.complete is True
    assert manifest.details["snapshot_reason"] == "2 pages of issue events did not reach back to the window start"


def test_pagination_is_limited_falls_back_to_snapshot_counting_with_the_reason(sample_dataset, window):
    with GitHubEmulator(sample_dataset, token=TOKEN) as emu:
        emu.now = window.end + dt.timedelta(days=3)
        emu.faults.append(Fault("422paging", match="/issues/events", min_page=3, count=100))
        manifest = _events_plan_day(emu, window)
    assert manifest.semantics == "snapshot" and manifest.complete is True
    reason = manifest.details["snapshot_reason"]
    assert "pagination is limited" in reason and "/issues/events" in reason and "page=3" in reason


def test_pagination_is_limited_on_the_open_issues_list_falls_back_to_the_created_searches(sample_dataset, window):
    with GitHubEmulator(sample_dataset, token=TOKEN) as emu:
        emu.now = window.end + LAG
        emu.faults.append(Fault("422paging", match="/vllm/issues", exact=True, min_page=2, count=100))
        payload, error = fetch_guarded(emu, window, per_page=10)
        with GitHubEmulator(sample_dataset, token=TOKEN) as clean:
            clean.now = emu.now
            want, _ = fetch_guarded(clean, window, per_page=10)
    assert error is None, error
    details = payload.manifest.details
    assert details["items_plan"] == "created searches" and "pagination is limited" in details["items_plan_reason"]
    assert payload.manifest.complete is True
    # the fallback lands the same items as the list would have
    assert sorted(i["number"] for i in payload.issues) == sorted(i["number"] for i in want.issues)


def _without(dataset: Dataset, event_id) -> Dataset:
    return dataclasses.replace(dataset, events=[e for e in dataset.events if e["id"] != event_id])


def test_a_stale_304_after_a_changed_page_is_asked_again(sample_dataset, window, tmp_path):
    """A closing the first landing missed is on a page GitHub answers 304 although the page before
    it changed: new events shift every later page, so the 304 cannot be true and the page is asked again."""
    closing = min((e for e in sample_dataset.events if e["event"] == "closed" and window.contains(
        dt.datetime.fromisoformat(e["created_at"].replace("Z", "+00:00")))), key=lambda e: e["created_at"])
    with GitHubEmulator(_without(sample_dataset, closing["id"]), token=TOKEN) as emu:
        emu.now = window.end + LAG
        first, error = fetch_guarded(emu, window, per_page=10)
        assert error is None, error
        write_day(tmp_path, REPO, window.key, first)
        assert closing["id"] not in {e["id"] for e in first.events}
        previous = read_day(tmp_path, REPO, window.key)
        # the same server (the replay is keyed by URL) with the closing, and newer events: page 1 changed
        emu.dataset = sample_dataset
        emu.now = window.end + dt.timedelta(hours=5)
        emu.faults.append(Fault("stale304", match="/issues/events", min_page=2, count=1000))
        second, error = fetch_guarded(emu, window, previous, per_page=10)
        stale = [r for r in emu.requests if r.path.endswith("/issues/events") and r.status == 304]
    assert error is None, error
    assert closing["id"] in {e["id"] for e in second.events}
    assert stale and second.manifest.details["event_pages_reasked"] == len(stale)
    assert second.manifest.semantics == "events" and second.manifest.complete is True


def test_a_moved_repository_names_the_new_location_and_the_setting(sample_dataset, window):
    with GitHubEmulator(sample_dataset, token=TOKEN) as emu:
        emu.now = window.end + LAG
        emu.faults.append(Fault("moved", match="/repos/vllm-project/vllm/", count=100))
        _, error = fetch_guarded(emu, window)
        location = f"{emu.base_url}/repositories/41811467/issues/events"
    assert isinstance(error, GitHubError) and error.status == 301 and error.transient is False
    message = str(error)
    assert "moved permanently (renamed or transferred)" in message
    assert location in message and "GET /repositories/41811467" in message
    assert "`repos`" in message and "unexpected status" not in message


def test_a_stale_304_on_the_first_page_is_seen_from_a_later_closing_and_the_feed_asked_again(
        sample_dataset, window, tmp_path):
    """Every page of the feed answers 304 on a re-fetch a day later, the first included, so no page
    changed to tell. But an item the searches return was closed after the newest event of that
    first page: a closing is an event, so the page cannot be current and the feed is asked again."""
    closing = min((e for e in sample_dataset.events if e["event"] == "closed" and window.contains(
        dt.datetime.fromisoformat(e["created_at"].replace("Z", "+00:00")))), key=lambda e: e["created_at"])
    with GitHubEmulator(_without(sample_dataset, closing["id"]), token=TOKEN, search_limit=1000) as emu:
        emu.now = window.end + dt.timedelta(days=1)  # an older day: its items come from searches
        first, error = fetch_guarded(emu, window, per_page=10)
        assert error is None, error
        write_day(tmp_path, REPO, window.key, first)
        previous = read_day(tmp_path, REPO, window.key)
        emu.dataset = sample_dataset
        emu.now = window.end + dt.timedelta(days=2)  # items created in the window were closed since
        emu.faults.append(Fault("stale304", match="/issues/events", count=1000))
        second, error = fetch_guarded(emu, window, previous, per_page=10)
    assert error is None, error
    assert closing["id"] in {e["id"] for e in second.events}
    details = second.manifest.details
    assert "first page answered 304 Not Modified" in details["event_feed_refreshed"]
    assert second.manifest.semantics == "events" and second.manifest.complete is True
