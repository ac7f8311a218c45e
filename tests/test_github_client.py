"""Client behaviour and the comment, search-cap and incomplete-results paths, over loopback."""

from __future__ import annotations

import datetime as dt

from tests.github_emulator import Dataset, Fault, GitHubEmulator
from tests.github_fixtures import FAST, REPO, TOKEN, five_sets
from vllm_digest.github.client import GitHubClient
from vllm_digest.partitions import DayWindow
from vllm_digest.raw_store import write_day
from vllm_digest.sources.github import fetch_day

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
    with GitHubEmulator(Dataset("vllm-project/vllm", items), token=TOKEN, now=DAY.end, search_limit=500) as emu:
        payload = fetch_day(REPO, DAY, emu.base_url, TOKEN, None, **FAST)
    searches = [r.query["q"] for r in emu.requests if r.path == "/search/issues" and "is:pr" in r.query["q"]]
    assert len({q for q in searches}) > 3  # the day was halved until each part fits under the cap
    assert payload.manifest["totals"]["new_prs"]["count"] == 2500 == len(payload.manifest["totals"]["new_prs"]["numbers"])
    assert payload.manifest["complete"] is True
    assert all(int(r.query.get("page", 1)) <= 10 for r in emu.requests if r.path == "/search/issues")


def test_incomplete_results_are_retried_then_recorded(tmp_path):
    with GitHubEmulator(synthetic(), token=TOKEN, now=DAY.end) as emu:
        emu.faults.append(Fault("incomplete", match="/search/issues", count=3))
        payload = fetch_day(REPO, DAY, emu.base_url, TOKEN, None, **FAST)
    m = payload.manifest
    assert m["complete"] is False
    assert any("incomplete_results" in r and "is:issue" in r for r in m["incomplete_reasons"])
    write_day(tmp_path / "raw", REPO, DAY.key, payload)
    five_sets(tmp_path, REPO, [DAY])
    from vllm_digest.warehouse.resource import WarehouseResource
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
