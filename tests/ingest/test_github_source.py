"""The live source against the emulator lands days the SQL layers read exactly like the sample's."""

from __future__ import annotations

import datetime as dt
import logging

import pytest

from vllm_digest.testing.github_emulator import Dataset, Fault, GitHubEmulator
from vllm_digest.testing.github_fixtures import FAST, REPO, SET_NAMES, TOKEN, expected_windows, five_sets, tree_bytes, window_of
from tests.emulator_fixtures import emulator, sample_dataset
from vllm_digest.ingest.github.client import GitHubError
from vllm_digest.ingest.github.plan import fetch_day
from vllm_digest.ingest.raw_store import read_day, write_day
from vllm_digest.ingest.sample import fetch_sample_day

__all__ = ["emulator", "sample_dataset"]  # fixtures used by name

LAG = dt.timedelta(minutes=10)  # a daily run fetches the day shortly after it ends
LATE = dt.timedelta(days=1)  # a late re-run: the day's items come from searches, which these tests break


def land(emu, window, home, previous=None, **options):
    payload = fetch_day(REPO, window, emu.base_url, TOKEN, previous, **{**FAST, **options})
    write_day(home / "raw", REPO, window.key, payload)
    return payload


def test_every_sample_day_matches_sample_source_and_expected(sample_dataset, tmp_path, caplog):
    caplog.set_level(logging.DEBUG, logger="vllm_digest")
    # 44 searches in a few seconds: a budget wider than GitHub's 30/min keeps this test from waiting a minute
    emulator = GitHubEmulator(sample_dataset, token=TOKEN, search_limit=1000).__enter__()
    entries = expected_windows()
    windows = [window_of(e) for e in entries]
    gh_home, sample_home = tmp_path / "gh", tmp_path / "sample"
    manifests = {}
    for w in windows:
        emulator.now = w.end + LAG
        manifests[w.key] = land(emulator, w, gh_home).manifest.to_json()
        write_day(sample_home / "raw", REPO, w.key, fetch_sample_day(REPO, w))
    got, want = five_sets(gh_home, REPO, windows), five_sets(sample_home, REPO, windows)
    assert len(windows) == 22
    for entry, w in zip(entries, windows):
        assert got[w.key] == want[w.key], w.key
        assert got[w.key] == {name: sorted(entry["lists"][name]) for name in SET_NAMES}, w.key
        m = manifests[w.key]
        assert m["semantics"] == "events" and m["complete"] is True and m["incomplete_reasons"] == []
        assert m["totals"]["new_issues"]["numbers"] == sorted(entry["lists"]["new_issues"])
        assert m["totals"]["new_prs"]["count"] == len(entry["lists"]["new_prs"])
        assert m["request_count"] <= 12
    # the token is nowhere: not on disk, not in the manifests, not in any log line
    for home in (gh_home,):
        for path in home.rglob("*"):
            if path.is_file():
                assert TOKEN.encode() not in path.read_bytes(), path
    assert TOKEN not in caplog.text
    assert any("GitHub GET" in r.getMessage() for r in caplog.records)
    emulator.stop()


def test_links_drive_pagination_and_search_uses_half_open_utc_range(emulator, tmp_path):
    entry = expected_windows()[5]
    w = window_of(entry)
    emulator.now = w.end + dt.timedelta(days=3)  # three days of newer events to page through
    payload = land(emulator, w, tmp_path)
    event_requests = [r for r in emulator.requests if r.path.endswith("/issues/events")]
    assert len(event_requests) >= 2
    assert [r.query.get("page") for r in event_requests] == [None] + [str(i) for i in range(2, len(event_requests) + 1)]
    assert payload.manifest.details["requests"][1]["path"].endswith("page=2")
    searches = [r.query["q"] for r in emulator.requests if r.path == "/search/issues"]
    start = w.start.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    end_incl = (w.end - dt.timedelta(seconds=1)).astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert f"repo:vllm-project/vllm is:issue created:{start}..{end_incl}" in searches
    assert f"repo:vllm-project/vllm is:pr created:{start}..{end_incl}" in searches
    assert all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in emulator.requests)
    assert five_sets(tmp_path, REPO, [w])[w.key] == {n: sorted(entry["lists"][n]) for n in SET_NAMES}


def test_refetch_of_unchanged_day_is_all_304_and_free(emulator, tmp_path):
    entry = expected_windows()[10]
    w = window_of(entry)
    emulator.now = w.end + LAG
    first = land(emulator, w, tmp_path)
    before = {k: emulator.budgets[k].remaining for k in ("core", "search")}
    emulator.clear_log()
    second = land(emulator, w, tmp_path, previous=read_day(tmp_path / "raw", REPO, w.key))
    assert second.manifest.request_count == first.manifest.request_count == len(emulator.requests)
    assert second.manifest.not_modified_count == second.manifest.request_count
    assert all(r.status == 304 and r.headers.get("if-none-match") for r in emulator.requests)
    assert {k: emulator.budgets[k].remaining for k in ("core", "search")} == before
    assert second.manifest.details["rate_limited_requests"] == {}
    assert second.issues == first.issues and second.events == first.events
    assert five_sets(tmp_path, REPO, [w])[w.key] == {n: sorted(entry["lists"][n]) for n in SET_NAMES}


def test_every_third_request_502_still_lands_complete(emulator, tmp_path):
    entry = expected_windows()[3]
    w = window_of(entry)
    emulator.now = w.end + dt.timedelta(days=2)
    emulator.fail_every = 3
    payload = land(emulator, w, tmp_path)
    assert payload.manifest.complete is True
    assert sum(1 for r in emulator.requests if r.status == 502) >= 2
    assert any(r["status"] == 502 for r in payload.manifest.details["requests"])
    assert five_sets(tmp_path, REPO, [w])[w.key] == {n: sorted(entry["lists"][n]) for n in SET_NAMES}


def test_rate_limit_exhausted_mid_day_waits_for_reset_then_completes(emulator, tmp_path):
    entry = expected_windows()[7]
    w = window_of(entry)
    emulator.now = w.end + LAG
    emulator.faults.append(Fault("rate403", match="/issues/comments", reset_in=0.2))
    t0 = dt.datetime.now()
    payload = land(emulator, w, tmp_path)
    waited = (dt.datetime.now() - t0).total_seconds()
    statuses = [(r.path, r.status) for r in emulator.requests]
    assert (("/repos/vllm-project/vllm/issues/comments", 403)) in statuses
    assert statuses[-1][1] == 200 and payload.manifest.complete is True
    assert waited >= 0.2
    assert five_sets(tmp_path, REPO, [w])[w.key] == {n: sorted(entry["lists"][n]) for n in SET_NAMES}


def test_rate_limit_reset_too_far_raises_with_retry_time(emulator, tmp_path):
    w = window_of(expected_windows()[7])
    emulator.now = w.end + LATE
    emulator.faults.append(Fault("rate403", match="/search/issues", reset_in=3600))
    with pytest.raises(GitHubError) as info:
        land(emulator, w, tmp_path)
    assert "retry after 20" in str(info.value) and "/search/issues" in str(info.value)
    assert info.value.status == 403


def test_429_retry_after_is_honoured(emulator, tmp_path):
    w = window_of(expected_windows()[2])
    emulator.now = w.end + LAG
    emulator.faults.append(Fault("429", match="/pulls/comments", retry_after=1))
    t0 = dt.datetime.now()
    payload = land(emulator, w, tmp_path)
    assert (dt.datetime.now() - t0).total_seconds() >= 1.0
    hits = [r.status for r in emulator.requests if r.path.endswith("/pulls/comments")]
    assert hits == [429, 200]
    assert payload.manifest.complete is True


@pytest.mark.parametrize("kind", ["truncate", "garble"])
def test_broken_body_is_a_clear_error_and_landed_day_survives(emulator, tmp_path, kind):
    w = window_of(expected_windows()[4])
    emulator.now = w.end + LATE
    land(emulator, w, tmp_path)
    before = tree_bytes(tmp_path / "raw")
    emulator.faults.append(Fault(kind, match="/search/issues", count=100))
    with pytest.raises(GitHubError) as info:
        land(emulator, w, tmp_path, previous=None)
    message = str(info.value)
    assert "GET /search/issues" in message
    assert ("truncated" in message) if kind == "truncate" else ("response is not JSON" in message)
    # a body shorter than its Content-Length may come whole next time; a whole body that is not JSON comes
    # the same way again
    assert info.value.transient is (kind == "truncate")
    assert TOKEN not in message and TOKEN not in repr(info.value)
    assert tree_bytes(tmp_path / "raw") == before


def test_bad_token_and_unknown_repo_are_clear_errors(emulator, tmp_path):
    w = window_of(expected_windows()[0])
    with pytest.raises(GitHubError) as info:
        fetch_day(REPO, w, emulator.base_url, "wrong-token", None, **FAST)
    assert info.value.status == 401 and "GITHUB_TOKEN" in str(info.value)
    assert "/repos/vllm-project/vllm/issues/events" in str(info.value) and "wrong-token" not in str(info.value)
    from vllm_digest.core.config.settings import RepoRef
    with pytest.raises(GitHubError) as info:
        fetch_day(RepoRef("nobody", "nothing"), w, emulator.base_url, TOKEN, None, **FAST)
    assert info.value.status == 404 and "does not exist" in str(info.value)
    assert len(emulator.requests) == 2  # 4xx are never retried


def test_old_day_falls_back_to_snapshot_semantics(emulator, tmp_path):
    entry = expected_windows()[12]
    w = window_of(entry)
    emulator.now = w.end + dt.timedelta(days=120)
    payload = land(emulator, w, tmp_path)
    m = payload.manifest.to_json()
    assert m["semantics"] == "snapshot" and "90 days" in m["snapshot_reason"]
    assert payload.events == []
    qs = [r.query["q"] for r in emulator.requests if r.path == "/search/issues"]
    assert any("is:issue closed:" in q for q in qs) and any("is:pr closed:" in q for q in qs)
    sets = five_sets(tmp_path, REPO, [w])[w.key]
    items = emulator.dataset.items
    closed_now = sorted(n for n, i in items.items()
                        if "pull_request" not in i and i["closed_at"] and w.contains(dt.datetime.fromisoformat(i["closed_at"].replace("Z", "+00:00"))))
    assert sets["closed_issues"] == closed_now == m["totals"]["closed_issues"]["numbers"]
    assert sets["new_prs"] == sorted(entry["lists"]["new_prs"])
    assert sets["merged_prs"] == m["totals"]["merged_prs"]["numbers"]


def test_recent_plan_lands_what_the_search_plan_lands_on_vllm_sized_days(tmp_path):
    """Synthetic vLLM days (hundreds of comments, old threads, closings after the window): fetched
    ten minutes after each window, the open-list plan lands the same payload in fewer requests."""
    from vllm_digest.testing.synthetic import generate
    from vllm_digest.core.calendar import DayWindow
    start = dt.datetime(2026, 1, 3, 3, 39, tzinfo=dt.timezone.utc)
    data = Dataset.from_sample(generate(tmp_path / "root", start, 4))
    with GitHubEmulator(data, token=TOKEN, search_limit=1000) as emu:
        for i in (1, 2, 3):  # the emulator shows each day as GitHub did then, not the final state
            w = DayWindow(day=(start + dt.timedelta(days=i)).date(), start=start + dt.timedelta(days=i),
                          end=start + dt.timedelta(days=i + 1))
            emu.now = w.end + LAG
            recent = fetch_day(REPO, w, emu.base_url, TOKEN, None, **FAST)
            searched = fetch_day(REPO, w, emu.base_url, TOKEN, None, recent_hours=0, **FAST)
            for kind in ("issues", "events", "comments", "review_comments", "reviews"):
                assert getattr(recent, kind) == getattr(searched, kind), (w.key, kind)
            assert len(recent.comments) > 100 and len(recent.issues) > 80
            assert recent.manifest.request_count < searched.manifest.request_count, w.key
            for name in ("new_issues", "new_prs"):
                assert recent.manifest.totals[name]["numbers"] == searched.manifest.totals[name]["numbers"]


def test_a_run_of_several_days_pages_the_events_feed_once(tmp_path):
    """Six synthetic vLLM days fetched in one run (one session, as raw_activity runs a range) ask the
    emulator for each events page once: as many event requests as the oldest day alone needs, where six
    one-day fetches page the feed from now back to each day. The days land the same payloads."""
    from vllm_digest.testing.synthetic import generate
    from vllm_digest.ingest.github.plan import github_days
    from vllm_digest.core.calendar import DayWindow
    start = dt.datetime(2026, 1, 3, 3, 39, tzinfo=dt.timezone.utc)
    data = Dataset.from_sample(generate(tmp_path / "root", start, 6))
    windows = [DayWindow(day=(start + dt.timedelta(days=i)).date(), start=start + dt.timedelta(days=i),
                         end=start + dt.timedelta(days=i + 1)) for i in range(6)]

    def event_requests(emu) -> int:
        return sum(r.path.endswith("/issues/events") for r in emu.requests)

    with GitHubEmulator(data, token=TOKEN, search_limit=1000) as emu:
        emu.now = windows[-1].end + dt.timedelta(hours=1)
        alone = [fetch_day(REPO, w, emu.base_url, TOKEN, None, **FAST) for w in windows]
        per_day_runs = event_requests(emu)
        emu.requests.clear()
        with github_days(REPO, emu.base_url, TOKEN, **FAST) as fetch:
            together = [fetch(w) for w in windows]
        one_run = event_requests(emu)
    pages_for_oldest = sum(r["path"].split("?")[0].endswith("/issues/events")
                           for r in alone[0].manifest.details["requests"])
    assert one_run == pages_for_oldest >= 2
    assert per_day_runs > one_run + 4
    for a, b in zip(alone, together):
        for kind in ("issues", "events", "comments", "review_comments", "reviews"):
            assert getattr(a, kind) == getattr(b, kind), kind
