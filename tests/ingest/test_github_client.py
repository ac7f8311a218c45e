"""Client behaviour and the comment, search-cap and incomplete-results paths, over loopback."""

from __future__ import annotations

import datetime as dt

from vllm_digest.core.calendar import DayWindow
from vllm_digest.core.vocabulary import PAYLOAD_KINDS
from vllm_digest.ingest.github.client import GitHubClient
from vllm_digest.ingest.github.plan import fetch_day
from vllm_digest.ingest.raw_store import write_day
from vllm_digest.testing.github_emulator import Dataset, Fault, GitHubEmulator
from vllm_digest.testing.github_fixtures import FAST, REPO, TOKEN, five_sets


UTC = dt.timezone.utc
DAY = DayWindow(dt.date(2026, 3, 10), dt.datetime(2026, 3, 10, 4, tzinfo=UTC), dt.datetime(2026, 3, 11, 4, tzinfo=UTC))
API = "https://api.github.com/repos/vllm-project/vllm"


def iso(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def item(number, created, pr=False, closed=None, merged=None, updated=None):
    row = {"number": number, "title": f"item {number}", "user": {"login": f"u{number % 7}", "type": "User"},
           "labels": [{"name": "bug"}], "state": "closed" if closed else "open", "created_at": iso(created),
           "updated_at": iso(updated or closed or created), "closed_at": iso(closed) if closed else None,
           "comments": 0, "body": None, "draft": False if pr else None}
    if pr:
        row["pull_request"] = {"url": f"{API}/pulls/{number}", "merged_at": iso(merged) if merged else None}
    return row


def synthetic() -> Dataset:
    s = DAY.start
    old = dt.datetime(2025, 12, 1, tzinfo=UTC)
    items = {
        1: item(1, old, updated=s + dt.timedelta(hours=2)),                     # old issue, commented in window
        2: item(2, old, pr=True, updated=s + dt.timedelta(hours=3)),            # old PR, reviewed in window
        3: item(3, s + dt.timedelta(hours=1), pr=True, closed=s + dt.timedelta(hours=5),
                merged=s + dt.timedelta(hours=5)),
        4: item(4, old, updated=s + dt.timedelta(days=2)),                      # closed in window, reopened later
        5: item(5, DAY.end, updated=DAY.end),                                   # created exactly at the end: next day
    }
    events = [
        {"id": 10, "event": "closed", "created_at": iso(s + dt.timedelta(hours=4)), "actor": None, "commit_id": None,
         "issue": {"number": 4}},
        {"id": 11, "event": "reopened", "created_at": iso(s + dt.timedelta(days=2)), "actor": None, "commit_id": None,
         "issue": {"number": 4}},
        {"id": 12, "event": "merged", "created_at": iso(s + dt.timedelta(hours=5)), "actor": None, "commit_id": "abc",
         "issue": {"number": 3}},
        {"id": 13, "event": "closed", "created_at": iso(s + dt.timedelta(hours=5)), "actor": None, "commit_id": None,
         "issue": {"number": 3}},
    ]
    user = {"login": "reviewer", "type": "User"}
    comments = [
        {"id": 100, "issue_url": f"{API}/issues/1", "user": user, "created_at": iso(s + dt.timedelta(hours=2)),
         "updated_at": iso(s + dt.timedelta(hours=2)), "body": "hello", "author_association": "MEMBER"},
        {"id": 101, "issue_url": f"{API}/issues/1", "user": user, "created_at": iso(s - dt.timedelta(days=3)),
         "updated_at": iso(s + dt.timedelta(hours=1)), "body": "edited later", "author_association": "MEMBER"},
    ]
    review_comments = [
        {"id": 200, "pull_request_url": f"{API}/pulls/2", "user": user, "created_at": iso(s + dt.timedelta(hours=3)),
         "updated_at": iso(s + dt.timedelta(hours=3)), "body": "nit", "path": "a.py", "in_reply_to_id": None,
         "pull_request_review_id": 300},
    ]
    reviews = [
        {"id": 300, "pull_request_url": f"{API}/pulls/2", "user": user, "state": "COMMENTED",
         "submitted_at": iso(s + dt.timedelta(hours=3)), "body": ""},
        {"id": 301, "pull_request_url": f"{API}/pulls/3", "user": user, "state": "APPROVED",
         "submitted_at": iso(s + dt.timedelta(hours=4)), "body": "lgtm"},
    ]
    pulls = {3: {"number": 3, "additions": 12, "deletions": 3, "changed_files": 2}}
    return Dataset("vllm-project/vllm", items, events, comments, review_comments, reviews, pulls)


def test_comments_reviews_sizes_and_reopened_closing(tmp_path):
    with GitHubEmulator(synthetic(), token=TOKEN, now=DAY.end + dt.timedelta(days=3)) as emu:
        payload = fetch_day(REPO, DAY, emu.base_url, TOKEN, None, max_review_requests=5, max_pull_requests=5, **FAST)
    assert [c["id"] for c in payload.comments] == [100]
    assert [c["id"] for c in payload.review_comments] == [200]
    assert sorted(r["id"] for r in payload.reviews) == [300, 301]
    assert [p["additions"] for p in payload.pulls] == [12]
    assert sorted(i["number"] for i in payload.issues) == [1, 2, 3, 4]
    assert [r.query.get("since") for r in emu.requests if r.path.endswith("/repos/vllm-project/vllm/issues")] == [iso(DAY.start)]
    write_day(tmp_path / "raw", REPO, DAY.key, payload)
    sets = five_sets(tmp_path, REPO, [DAY])[DAY.key]
    assert sets == {"new_issues": [], "closed_issues": [4], "new_prs": [3], "merged_prs": [3], "closed_unmerged_prs": []}


def test_search_cap_splits_the_window_and_lands_everything(tmp_path):
    items = {n: item(n, DAY.start + dt.timedelta(seconds=30 * n), pr=True) for n in range(1, 2501)}
    # a day old: its items come from created-in-window searches, which the cap makes split
    with GitHubEmulator(Dataset("vllm-project/vllm", items), token=TOKEN, now=DAY.end + dt.timedelta(days=1),
                        search_limit=500) as emu:
        payload = fetch_day(REPO, DAY, emu.base_url, TOKEN, None, **FAST)
    searches = [r.query["q"] for r in emu.requests if r.path == "/search/issues" and "is:pr" in r.query["q"]]
    assert len({q for q in searches}) > 3  # the day was halved until each part fits under the cap
    assert payload.manifest.totals["new_prs"]["count"] == 2500 == len(payload.manifest.totals["new_prs"]["numbers"])
    assert payload.manifest.complete is True
    assert all(int(r.query.get("page", 1)) <= 10 for r in emu.requests if r.path == "/search/issues")


def test_incomplete_results_are_retried_then_recorded(tmp_path):
    with GitHubEmulator(synthetic(), token=TOKEN, now=DAY.end + dt.timedelta(days=1)) as emu:
        emu.faults.append(Fault("incomplete", match="/search/issues", count=3))
        payload = fetch_day(REPO, DAY, emu.base_url, TOKEN, None, **FAST)
    m = payload.manifest.to_json()
    assert m["complete"] is False
    assert any("incomplete_results" in r and "is:issue" in r for r in m["incomplete_reasons"])
    write_day(tmp_path / "raw", REPO, DAY.key, payload)
    five_sets(tmp_path, REPO, [DAY])
    from vllm_digest.core.sqlmodel.resource import WarehouseResource
    with WarehouseResource(path=str(tmp_path / "warehouse.duckdb")).connect() as con:
        assert con.execute("SELECT complete FROM mart_daily_counts").fetchall() == [(False,)]


def test_token_only_to_api_host_and_ghe_prefix_and_repr():
    with GitHubEmulator(synthetic(), token=TOKEN, prefix="/api/v3") as ghe, GitHubEmulator(synthetic()) as other:
        other.prefix = "/api/v3"
        ghe.link_base = other.origin  # a Link pointing at another host
        with GitHubClient(api_url=ghe.base_url, token=TOKEN, **FAST) as client:
            assert TOKEN not in repr(client)
            pages = list(client.pages("repos/vllm-project/vllm/issues", {"per_page": 2, "state": "all"}))
        assert len(pages) == 3 and sum(len(p.data) for p in pages) == 5
        assert ghe.requests[0].path == "/api/v3/repos/vllm-project/vllm/issues"
        assert ghe.requests[0].headers["authorization"] == f"Bearer {TOKEN}"
        assert other.requests and all("authorization" not in r.headers for r in other.requests)
        assert client.budgets["core"].limit == 5000 and client.rate_limit_remaining is not None


def test_timeouts_and_persistent_5xx_are_bounded():
    with GitHubEmulator(synthetic(), now=DAY.end) as emu:
        emu.faults.append(Fault("slow", match="/issues/comments", delay=0.6))
        with GitHubClient(api_url=emu.base_url, **{**FAST, "timeout_seconds": 0.3}) as client:
            resp = client.get("repos/vllm-project/vllm/issues/comments")
            assert resp.status == 200 and len(resp.data) == 2
            assert [r.status for r in client.records] == [0, 200]
            emu.faults.append(Fault("502", match="/pulls/comments", count=100))
            try:
                client.get("repos/vllm-project/vllm/pulls/comments")
            except Exception as exc:  # noqa: BLE001 - asserting on the message
                assert "502" in str(exc) and "gave up after 5 attempts" in str(exc)
            else:
                raise AssertionError("persistent 502 must fail")
        assert sum(1 for r in emu.requests if r.path.endswith("/pulls/comments")) == 5


def test_search_budget_is_tracked_and_waited_for():
    with GitHubEmulator(synthetic(), now=DAY.end, search_limit=2, search_window=0.5) as emu:
        with GitHubClient(api_url=emu.base_url, **FAST) as client:
            for _ in range(3):
                client.get("search/issues", {"q": "repo:vllm-project/vllm is:issue"}, conditional=False)
        assert [r.status for r in emu.requests] == [200, 200, 200]  # waited instead of hitting a 403
        assert client.budgets["search"].limit == 2


def _issues_lists(emu):
    return [r.query for r in emu.requests if r.path.endswith("/repos/vllm-project/vllm/issues")]


def test_recent_day_takes_its_items_from_the_open_list_and_lands_the_same(tmp_path):
    """Fetched just after the window ends, the day's items come from the open issues list (no
    created-in-window searches); the payload is the one the search plan lands."""
    lag = DAY.end + dt.timedelta(minutes=10)
    with GitHubEmulator(synthetic(), token=TOKEN, now=lag) as emu:
        recent = fetch_day(REPO, DAY, emu.base_url, TOKEN, None, **FAST)
        lists, searches = _issues_lists(emu), [r for r in emu.requests if r.path == "/search/issues"]
        emu.clear_log()
        searched = fetch_day(REPO, DAY, emu.base_url, TOKEN, None, recent_hours=0, **FAST)
        # is:issue and is:pr created:, then the cross-check's is:issue closed: and is:pr is:merged merged:
        assert sum(1 for r in emu.requests if r.path == "/search/issues") == 4
    assert recent.manifest.details["items_plan"] == "open issues list"
    assert searched.manifest.details["items_plan"] == "created searches"
    # no created-in-window search: the only two are the closed and merged lists' cross-check
    span = f"{iso(DAY.start)}..{iso(DAY.end - dt.timedelta(seconds=1))}"
    assert [r.query["q"] for r in searches] == [f"repo:vllm-project/vllm is:issue closed:{span}",
                                                f"repo:vllm-project/vllm is:pr is:merged merged:{span}"]
    assert lists == [{"state": "open", "since": iso(DAY.start), "sort": "updated", "direction": "asc", "per_page": "100"}]
    for kind in PAYLOAD_KINDS:
        assert getattr(recent, kind) == getattr(searched, kind), kind
    assert sorted(i["number"] for i in recent.issues) == [1, 2, 3, 4]
    assert recent.manifest.totals["new_prs"]["numbers"] == [3] == searched.manifest.totals["new_prs"]["numbers"]
    assert recent.manifest.request_count < searched.manifest.request_count


def test_recent_day_finds_items_closed_after_the_window_or_before_it():
    """Created in the window and closed minutes after it: not open, so only the closing event after
    the window embeds it. Closed before the window and commented in it: one search finds it."""
    s = DAY.start
    old = dt.datetime(2025, 12, 1, tzinfo=UTC)
    items = {
        7: item(7, s + dt.timedelta(hours=6), closed=DAY.end + dt.timedelta(minutes=5)),
        8: item(8, old, closed=old + dt.timedelta(days=1), updated=s + dt.timedelta(hours=7)),
        9: item(9, old, updated=s + dt.timedelta(hours=8)),  # open, touched in the window, no comment: not the day's
    }
    events = [{"id": 20, "event": "closed", "created_at": iso(DAY.end + dt.timedelta(minutes=5)), "actor": None,
               "commit_id": None, "issue": {"number": 7}}]
    comments = [{"id": 110, "issue_url": f"{API}/issues/8", "user": {"login": "x", "type": "User"},
                 "created_at": iso(s + dt.timedelta(hours=7)), "updated_at": iso(s + dt.timedelta(hours=7)),
                 "body": "still broken", "author_association": "NONE"}]
    data = Dataset("vllm-project/vllm", items, events, comments)
    with GitHubEmulator(data, token=TOKEN, now=DAY.end + dt.timedelta(minutes=10)) as emu:
        payload = fetch_day(REPO, DAY, emu.base_url, TOKEN, None, **FAST)
        queries = [r.query["q"] for r in emu.requests if r.path == "/search/issues"]
    assert sorted(i["number"] for i in payload.issues) == [7, 8]
    assert payload.manifest.totals["new_issues"]["numbers"] == [7]
    span = f"{iso(s)}..{iso(DAY.end - dt.timedelta(seconds=1))}"
    assert queries == [f"repo:vllm-project/vllm is:issue closed:{span}",  # the cross-check's two
                       f"repo:vllm-project/vllm is:pr is:merged merged:{span}",
                       f"repo:vllm-project/vllm closed:<{iso(s)} updated:>={iso(s)}"]
    assert payload.events == [] and payload.manifest.complete is True


def test_emulator_shows_the_dataset_as_of_its_clock():
    """GitHub never lists what does not exist yet, nor a closing still to come."""
    data = synthetic()
    view = data.as_of(DAY.start + dt.timedelta(hours=4, minutes=30))  # #3 created, merge still to come
    assert 5 not in view.items
    assert view.items[3]["state"] == "open" and view.items[3]["pull_request"]["merged_at"] is None
    assert view.items[3]["updated_at"] == iso(DAY.start + dt.timedelta(hours=1))
    assert view.items[4]["state"] == "closed"  # closed at 4 h, reopened two days later
    assert [c["id"] for c in view.comments] == [100, 101]
    later = data.as_of(DAY.end + dt.timedelta(days=3))
    assert later.items == data.items
