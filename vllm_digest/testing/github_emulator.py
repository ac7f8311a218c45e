"""A GitHub REST emulator: a real HTTP server on 127.0.0.1 serving a dataset the test picks.

It answers the endpoints the live source uses the way api.github.com does:
search with qualifier parsing and its 1,000-result cap, Link pagination,
per-resource rate limits with reset, ETags and 304s that cost nothing, a token
check, and faults on demand (every Nth request 502, slow responses, 403 rate
limits, 429 Retry-After, truncated or garbled bodies, an HTML page served as
200, JSON reshaped by the test (fields dropped or retyped), a response trickled one
byte at a time, a stale 304, a 422 "pagination is limited" on deep pages, a 301
for a renamed repository) and broken paging (a Link header that loops back, a
feed whose pages do not advance). Every request is
recorded so tests can assert on what the client actually sent.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import re
import threading
import time
from dataclasses import dataclass, field
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable
from urllib.parse import parse_qs, urlencode, urlsplit

from vllm_digest.ingest.sample import embedded_sample_root, load_sample

UTC = dt.timezone.utc


def github_moment(text: str | None) -> dt.datetime | None:
    """A GitHub time (``2026-03-22T03:39:00Z``) as an aware datetime; None for none."""
    if not text:
        return None
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


@dataclass
class Dataset:
    repo: str
    items: dict[int, dict] = field(default_factory=dict)
    events: list[dict] = field(default_factory=list)
    comments: list[dict] = field(default_factory=list)
    review_comments: list[dict] = field(default_factory=list)
    reviews: list[dict] = field(default_factory=list)
    pulls: dict[int, dict] = field(default_factory=dict)
    users: dict[str, dict] = field(default_factory=dict)  # login (lower case) -> GET /users/{login}'s profile
    files: dict[int, list[dict]] = field(default_factory=dict)  # PR number -> GET /pulls/{n}/files

    @classmethod
    def from_sample(cls, folder: Path | None = None) -> "Dataset":

        data = load_sample(folder or embedded_sample_root() / "vllm-project__vllm")
        return cls(
            repo="vllm-project/vllm",
            items=dict(data.items),
            events=list(data.events.rows),
            comments=list(data.comments.rows),
            review_comments=list(data.review_comments.rows),
            reviews=list(data.reviews.rows),
            pulls=dict(data.pulls),
        )

    def latest(self) -> dt.datetime:
        times = ([github_moment(e["created_at"]) for e in self.events]
                 + [github_moment(i["created_at"]) for i in self.items.values()])
        return max(times) if times else dt.datetime.now(UTC)

    def as_of(self, now: dt.datetime) -> "Dataset":
        """What GitHub shows at ``now``: nothing created later, and items in their state at ``now``.

        A dataset holds each item's final state; asked at an earlier moment, GitHub would not list
        items created since, show closings or merges still to come, nor an ``updated_at`` after
        ``now``. An item whose final state lies in the future gets its state back from the closed
        and reopened events up to ``now`` and its ``updated_at`` from its last activity up to it.
        """
        def upto(rows, key="created_at"):
            return [r for r in rows if (github_moment(r.get(key) or r.get("created_at")) or now) <= now]

        events = [e for e in self.events if github_moment(e["created_at"]) <= now]
        comments, review_comments = upto(self.comments), upto(self.review_comments)
        reviews = upto(self.reviews, "submitted_at")
        last: dict[int, dt.datetime] = {}
        toggles: dict[int, list[tuple[dt.datetime, str]]] = {}
        for e in events:
            n, at = e["issue"]["number"], github_moment(e["created_at"])
            last[n] = max(last.get(n, at), at)
            if e["event"] in ("closed", "reopened"):
                toggles.setdefault(n, []).append((at, e["event"]))
        for c in comments + review_comments:
            tail = (c.get("issue_url") or c.get("pull_request_url") or "").rstrip("/").rsplit("/", 1)[-1]
            if tail.isdigit():
                at = github_moment(c["created_at"])
                last[int(tail)] = max(last.get(int(tail), at), at)
        items = {}
        for n, item in self.items.items():
            created = github_moment(item["created_at"])
            if created > now:
                continue
            closed, updated = github_moment(item.get("closed_at")), github_moment(item.get("updated_at")) or created
            merged = github_moment((item.get("pull_request") or {}).get("merged_at"))
            if all(m is None or m <= now for m in (closed, merged, updated)):
                items[n] = item
                continue
            marks = sorted(toggles.get(n, []))
            if marks:
                closed = marks[-1][0] if marks[-1][1] == "closed" else None
            elif closed is not None and closed > now:
                closed = None
            merged = merged if merged is not None and merged <= now else None
            if updated > now:
                updated = max(t for t in (created, closed, last.get(n)) if t is not None)
            past = {**item, "state": "closed" if closed else "open", "closed_at": _iso(closed), "updated_at": _iso(updated)}
            if "pull_request" in item:
                past["pull_request"] = {**item["pull_request"], "merged_at": _iso(merged)}
            items[n] = past
        pulls = {n: {**p, "merged_at": (items[n].get("pull_request") or {}).get("merged_at")} if "merged_at" in p else p
                 for n, p in self.pulls.items() if n in items}
        return Dataset(self.repo, items, events, comments, review_comments, reviews, pulls, self.users, self.files)


def _iso(moment: dt.datetime | None) -> str | None:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment is not None else None


@dataclass
class Fault:
    """A scripted misbehaviour for the next ``count`` requests whose path contains ``match``."""

    # "502" | "slow" | "rate403" | "429" | "truncate" | "garble" | "incomplete" | "drip" | "drip_head"
    # | "stale304" (a conditional request is answered 304, changed or not) | "422paging" (GitHub's
    # "pagination is limited") | "moved" (301 to /repositories/<id>/..., a renamed repository)
    # | "html" (200 with an HTML page, as a proxy or a login wall serves it) | "reshape" (the JSON body
    # the endpoint would serve, passed through ``reshape`` first)
    kind: str
    match: str = ""
    count: int = 1
    min_page: int = 1  # only requests for this page (the ``page`` parameter) or a later one
    exact: bool = False  # ``match`` is the whole path's end (``/vllm/issues``), not any part of it
    delay: float = 0.0  # "slow": before answering; "drip" (the body) and "drip_head" (all of it): between bytes
    retry_after: int = 1
    reset_in: float = 1.0
    # a drip stops after this long and drops the connection, so a client without a deadline
    # fails in bounded time (with a cut body) instead of hanging the test
    drip_for: float = 30.0
    # "reshape": the body (a list of objects, a search result or one object) -> the body served
    reshape: Callable[[object], object] | None = None


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    status: int = 0


class _Budget:
    def __init__(self, limit: int, window: float):
        self.limit, self.window = limit, window
        self.remaining = limit
        self.reset = time.time() + window

    def refresh(self) -> None:
        if time.time() >= self.reset:
            self.remaining = self.limit
            self.reset = time.time() + self.window

    def headers(self, resource: str) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Used": str(self.limit - self.remaining),
            "X-RateLimit-Reset": str(math.ceil(self.reset)),
            "X-RateLimit-Resource": resource,
        }


_RANGE_FIELDS = {"created": "created_at", "closed": "closed_at", "merged": "merged_at", "updated": "updated_at"}


def _bound(text: str, upper: bool) -> tuple[dt.datetime, bool]:
    """A qualifier date as (moment, inclusive). A bare date as an upper bound means the whole day."""
    if len(text) == 10:
        day = dt.datetime.fromisoformat(text).replace(tzinfo=UTC)
        return (day + dt.timedelta(days=1), False) if upper else (day, True)
    moment = github_moment(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment, True


def _range_predicate(spec: str):
    def between(lo, lo_inc, hi, hi_inc):
        def ok(m):
            if m is None:
                return False
            if lo is not None and (m < lo or (m == lo and not lo_inc)):
                return False
            if hi is not None and (m > hi or (m == hi and not hi_inc)):
                return False
            return True
        return ok

    if ".." in spec:
        a, b = spec.split("..", 1)
        lo, lo_inc = (None, True) if a in ("", "*") else _bound(a, False)
        hi, hi_inc = (None, True) if b in ("", "*") else _bound(b, True)
        return between(lo, lo_inc, hi, hi_inc)
    if spec.startswith(">="):
        return between(*_bound(spec[2:], False), None, True)
    if spec.startswith("<="):
        return between(None, True, *_bound(spec[2:], True))
    if spec.startswith(">"):
        text = spec[1:]
        if len(text) == 10:
            return between(*_bound(text, True), None, True)
        return between(github_moment(text), False, None, True)
    if spec.startswith("<"):
        text = spec[1:]
        return between(None, True, _bound(text, False)[0], False)
    lo, _ = _bound(spec, False)
    hi, hi_inc = _bound(spec, True)
    return between(lo, True, hi, hi_inc)


class GitHubEmulator:
    def __init__(
        self,
        dataset: Dataset,
        *,
        token: str | None = None,
        now: dt.datetime | None = None,
        prefix: str = "",
        core_limit: int = 5000,
        core_window: float = 3600.0,
        search_limit: int = 30,
        search_window: float = 60.0,
        events_horizon_days: float = 90.0,
        search_cap: int = 1000,
    ):
        self.dataset = dataset
        self.token = token
        self.now = now or dataset.latest()
        self.prefix = prefix.rstrip("/")
        self.budgets = {"core": _Budget(core_limit, core_window), "search": _Budget(search_limit, search_window)}
        self.events_horizon_days = events_horizon_days
        self.search_cap = search_cap
        self.fail_every: int | None = None
        self.faults: list[Fault] = []
        self.link_base: str | None = None  # serve Links pointing at another host
        # path ends (``/issues/comments``) whose every page's Link next points back at page 1: a loop
        self.loop_links: set[str] = set()
        # path ends whose every page serves page 1's rows and always has a next: a feed that does not advance
        self.stuck_pages: set[str] = set()
        # path ends whose pages from 2 on are served one page late: a page's worth of new events arrived at
        # the head after page 1 was served, so page 2 repeats page 1's rows and every later page shifts
        self.shifted_pages: set[str] = set()
        # search items without pull_request.merged_at, as an older GitHub Enterprise server serves them
        self.search_without_merged_at = False
        self.requests: list[Recorded] = []
        self._count = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._view: tuple[dt.datetime, int, Dataset] | None = None

    # ----------------------------------------------------------- lifecycle
    def __enter__(self) -> "GitHubEmulator":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        emulator = self

        class Handler(_Handler):
            emu = emulator

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def origin(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        return self.origin + self.prefix

    def set_budget(self, resource: str, remaining: int, reset_in: float) -> None:
        budget = self.budgets[resource]
        budget.remaining = remaining
        budget.reset = time.time() + reset_in

    def clear_log(self) -> None:
        with self._lock:
            self.requests.clear()

    def view(self) -> Dataset:
        """The dataset as of the emulated clock (recomputed when ``now`` or the dataset changes)."""
        with self._lock:
            key = (self.now, id(self.dataset))
            if self._view is None or self._view[:2] != key:
                self._view = (*key, self.dataset.as_of(self.now))
            return self._view[2]

    # ------------------------------------------------------------- routing
    def _take_fault(self, path: str, page: int = 1) -> Fault | None:
        with self._lock:
            self._count += 1
            if self.fail_every and self._count % self.fail_every == 0:
                return Fault("502")
            for fault in self.faults:
                hit = path.endswith(fault.match) if fault.exact else fault.match in path
                if fault.count > 0 and hit and page >= fault.min_page:
                    fault.count -= 1
                    return fault
        return None

    def route(self, path: str, q: dict[str, str]) -> tuple[int, object, int | None, int | None]:
        """(status, body, page count, per_page) for an authorised, budgeted request."""
        if not path.startswith(self.prefix + "/"):
            return 404, {"message": "Not Found"}, None, None
        path = path[len(self.prefix):]
        if path == "/search/issues":
            return self._search(q)
        user = re.match(r"^/users/([^/]+)$", path)
        if user:
            found = self.dataset.users.get(user.group(1).lower())
            return (200, found, None, None) if found else (404, {"message": "Not Found"}, None, None)
        m = re.match(r"^/repos/([^/]+)/([^/]+)(/.*)$", path)
        if not m or f"{m.group(1)}/{m.group(2)}".lower() != self.dataset.repo.lower():
            return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}, None, None
        rest = m.group(3)
        d = self.view()
        if rest == "/issues/events":
            horizon = self.now - dt.timedelta(days=self.events_horizon_days)
            rows = [e for e in d.events if horizon <= github_moment(e["created_at"])]
            rows.sort(key=lambda e: (e["created_at"], e["id"]), reverse=True)
            rows = [{**e, "issue": d.items.get(e["issue"]["number"], e["issue"])} for e in rows]
            return self._paged(rows, q)
        if rest == "/issues":
            rows = list(d.items.values())
            return self._paged(self._since_sorted(rows, q, "created", "desc", default_state="open"), q)
        if rest == "/issues/comments":
            return self._paged(self._since_sorted(d.comments, q, "created", "asc"), q)
        if rest == "/pulls/comments":
            return self._paged(self._since_sorted(d.review_comments, q, "created", "asc"), q)
        m = re.match(r"^/pulls/(\d+)(/reviews|/files)?$", rest)
        if m:
            number = int(m.group(1))
            item = d.items.get(number)
            if item is None or "pull_request" not in item:
                return 404, {"message": "Not Found"}, None, None
            if m.group(2) == "/files":
                return self._paged(list(d.files.get(number, [])), q)
            if m.group(2):
                rows = [r for r in d.reviews if r["pull_request_url"].rstrip("/").endswith(f"/{number}")]
                return self._paged(sorted(rows, key=lambda r: r["id"]), q)
            pull = {"number": number, "draft": item.get("draft"), "merged_at": item["pull_request"].get("merged_at"),
                    "updated_at": item.get("updated_at"), "additions": 0, "deletions": 0, "changed_files": 0,
                    "commits": 1, **d.pulls.get(number, {})}
            return 200, pull, None, None
        return 404, {"message": "Not Found"}, None, None

    def _since_sorted(self, rows, q, default_sort, default_dir, default_state=None):
        since = github_moment(q.get("since"))
        if since is not None:
            rows = [r for r in rows if github_moment(r.get("updated_at") or r.get("created_at")) >= since]
        # the issues list serves open items unless asked otherwise, as GitHub's does; comments have no state
        state = q.get("state", default_state) if default_state else "all"
        if state != "all":
            rows = [r for r in rows if r.get("state") == state]
        key = "updated_at" if q.get("sort", default_sort) == "updated" else "created_at"
        return sorted(rows, key=lambda r: (r.get(key) or "", r.get("id", 0)),
                      reverse=q.get("direction", default_dir) == "desc")

    def _paged(self, rows: list, q: dict[str, str]):
        per_page = min(int(q.get("per_page", 30)), 100)
        page = int(q.get("page", 1))
        pages = max(1, math.ceil(len(rows) / per_page))
        return 200, rows[(page - 1) * per_page: page * per_page], pages, per_page

    def _search(self, q: dict[str, str]):
        per_page = min(int(q.get("per_page", 30)), 100)
        page = int(q.get("page", 1))
        if page * per_page > self.search_cap and (page - 1) * per_page >= self.search_cap:
            return 422, {"message": "Only the first 1000 search results are available"}, None, None
        preds, repo, kind = [], None, None
        for token in q.get("q", "").split():
            name, _, value = token.partition(":")
            if name == "repo":
                repo = value.lower()
            elif name == "is" and value in ("issue", "pr", "pull-request"):
                kind = "issue" if value == "issue" else "pr"
            elif name in _RANGE_FIELDS and value:
                preds.append((name, _range_predicate(value)))
        rows = []
        if repo == self.dataset.repo.lower():
            for item in self.view().items.values():
                is_pr = "pull_request" in item
                if kind == "issue" and is_pr or kind == "pr" and not is_pr:
                    continue
                ok = True
                for name, pred in preds:
                    value = (item.get("pull_request") or {}).get("merged_at") if name == "merged" else item.get(_RANGE_FIELDS[name])
                    ok = ok and pred(github_moment(value))
                if ok:
                    rows.append(item)
        sort_key = "updated_at" if q.get("sort") == "updated" else "created_at"
        rows.sort(key=lambda r: (r.get(sort_key) or "", r["number"]), reverse=q.get("order", "desc") == "desc")
        reachable = rows[: self.search_cap]
        pages = max(1, math.ceil(len(reachable) / per_page))
        items = reachable[(page - 1) * per_page: page * per_page]
        if self.search_without_merged_at:
            items = [{**i, "pull_request": {k: v for k, v in i["pull_request"].items() if k != "merged_at"}}
                     if isinstance(i.get("pull_request"), dict) else i for i in items]
        body = {"total_count": len(rows), "incomplete_results": False, "items": items}
        return 200, body, pages, per_page


# what a proxy, a captive portal or a login wall answers in GitHub's place: a whole page, status 200
HTML_PAGE = (
    b"<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>Sign in to continue</title></head>\n"
    b"<body><h1>Sign in to continue</h1><p>Your network requires you to sign in before you can reach this site.</p>"
    + b"<!-- padding -->" * 200 + b"</body>\n</html>\n"
)


class _Handler(BaseHTTPRequestHandler):
    emu: GitHubEmulator
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def date_time_string(self, timestamp=None) -> str:
        # the emulated server's clock, which the client uses to judge a day's age
        return format_datetime(self.emu.now.astimezone(UTC), usegmt=True)

    def do_GET(self) -> None:
        emu = self.emu
        parts = urlsplit(self.path)
        q = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        record = Recorded("GET", parts.path, q, {k.lower(): v for k, v in self.headers.items()})
        with emu._lock:
            emu.requests.append(record)
        resource = "search" if parts.path.endswith("/search/issues") else "core"
        budget = emu.budgets[resource]
        budget.refresh()

        if emu.token is not None and self.headers.get("Authorization") != f"Bearer {emu.token}":
            return self._send(record, 401, {"message": "Bad credentials"}, budget.headers(resource))
        fault = emu._take_fault(parts.path, int(q.get("page", 1)))
        incomplete = False
        if fault is not None:
            if fault.kind == "502":
                return self._send(record, 502, {"message": "Server Error"}, {})
            if fault.kind == "html":
                return self._send(record, 200, HTML_PAGE, {}, content_type="text/html; charset=utf-8")
            if fault.kind == "422paging":
                return self._send(record, 422, {
                    "message": "In order to keep the API fast for everyone, pagination is limited for this "
                               "resource. Check the rel=last link relation in the Link response header to see "
                               "how far back you can traverse.",
                    "documentation_url": "https://docs.github.com/rest/overview/resources-in-the-rest-api#pagination",
                }, budget.headers(resource))
            if fault.kind == "moved":
                tail = re.sub(r"^.*?/repos/[^/]+/[^/]+", "", parts.path)
                location = f"{emu.origin}{emu.prefix}/repositories/41811467{tail}"
                return self._send(record, 301, {"message": "Moved Permanently", "url": location},
                                  {"Location": location})
            if fault.kind == "stale304" and self.headers.get("If-None-Match"):
                return self._send(record, 304, None, {**budget.headers(resource),
                                                      "ETag": self.headers["If-None-Match"]})
            if fault.kind == "slow":
                time.sleep(fault.delay)
            if fault.kind == "429":
                return self._send(record, 429, {"message": "You have exceeded a secondary rate limit"},
                                  {"Retry-After": str(fault.retry_after)})
            if fault.kind == "rate403":
                emu.set_budget(resource, 0, fault.reset_in)
            incomplete = fault.kind == "incomplete"
        if budget.remaining <= 0:
            return self._send(record, 403, {"message": "API rate limit exceeded"}, budget.headers(resource))

        stuck = any(parts.path.endswith(s) for s in emu.stuck_pages)
        shifted = int(q.get("page", 1)) >= 2 and any(parts.path.endswith(s) for s in emu.shifted_pages)
        asked = {**q, "page": "1"} if stuck else {**q, "page": str(int(q["page"]) - 1)} if shifted else q
        status, body, pages, per_page = emu.route(parts.path, asked)
        if stuck and pages is not None:
            pages = int(q.get("page", 1)) + 1  # always one more page, never an older one
        if shifted and pages is not None:
            pages += 1  # the shift pushed the oldest events one page further
        if incomplete and isinstance(body, dict) and "items" in body:
            body = {**body, "incomplete_results": True, "items": body["items"][:-1]}
        if fault is not None and fault.kind == "reshape" and status == 200:
            body = fault.reshape(json.loads(json.dumps(body)))  # a copy: the dataset stays as it was
        raw = json.dumps(body).encode()
        headers = {}
        if status == 200:
            etag = 'W/"' + hashlib.sha1(raw).hexdigest() + '"'
            headers["ETag"] = etag
            if self.headers.get("If-None-Match") == etag:
                return self._send(record, 304, None, {**budget.headers(resource), "ETag": etag})
            budget.remaining -= 1
            links = self._links(parts.path, q, pages) if pages is not None else ""
            if links:
                headers["Link"] = links
        headers.update(budget.headers(resource))
        if fault is not None and fault.kind in ("truncate", "garble"):
            return self._send_broken(record, raw, headers, fault.kind)
        if fault is not None and fault.kind in ("drip", "drip_head"):
            return self._send_drip(record, status, raw, headers, fault)
        self._send(record, status, raw, headers)

    def _links(self, path: str, q: dict[str, str], pages: int) -> str:
        base = self.emu.link_base or f"http://{self.headers.get('Host')}"
        page = int(q.get("page", 1))

        def link(n: int, rel: str) -> str:
            return f'<{base}{path}?{urlencode({**q, "page": n})}>; rel="{rel}"'

        if any(path.endswith(s) for s in self.emu.loop_links):
            return link(1, "next")  # the loop: the first page again, whichever page this is
        out = []
        if page < pages:
            out += [link(page + 1, "next"), link(pages, "last")]
        if page > 1:
            out += [link(1, "first"), link(page - 1, "prev")]
        return ", ".join(out)

    def _send(self, record: Recorded, status: int, body, headers: dict,
              content_type: str = "application/json; charset=utf-8") -> None:
        record.status = status
        raw = b"" if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for k, v in headers.items():
            self.send_header(k, v)
        if status != 304:
            self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        if status != 304:
            self.wfile.write(raw)

    def _send_drip(self, record: Recorded, status: int, raw: bytes, headers: dict, fault: Fault) -> None:
        """A valid response, sent one byte every ``fault.delay`` seconds: each byte restarts a
        client's read timeout, so only a deadline on the whole exchange ends it. "drip" sends the
        head at once and trickles the body; "drip_head" trickles from the status line on."""
        record.status = status
        head = [f"HTTP/1.1 {status} OK", "Content-Type: application/json; charset=utf-8",
                *(f"{k}: {v}" for k, v in headers.items()), f"Content-Length: {len(raw)}", "", ""]
        head_bytes = "\r\n".join(head).encode()
        at_once, trickled = (head_bytes, raw) if fault.kind == "drip" else (b"", head_bytes + raw)
        self.close_connection = True
        try:
            self.wfile.write(at_once)
            self.wfile.flush()
            stop = time.monotonic() + fault.drip_for
            for i in range(len(trickled)):
                if self.emu._server is None or time.monotonic() > stop:
                    return
                time.sleep(fault.delay)
                self.wfile.write(trickled[i:i + 1])
                self.wfile.flush()
        except OSError:  # the client hung up, as it should once its deadline passed
            return

    def _send_broken(self, record: Recorded, raw: bytes, headers: dict, kind: str) -> None:
        record.status = 200
        cut = raw[: max(1, len(raw) // 2)]
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        for k, v in headers.items():
            self.send_header(k, v)
        # truncate: the length promises the whole body and the connection drops; garble: a whole but cut JSON
        self.send_header("Content-Length", str(len(raw) if kind == "truncate" else len(cut)))
        self.end_headers()
        self.wfile.write(cut)
        self.wfile.flush()
        self.close_connection = True
