"""A report day's request plan: the fewest GitHub requests that land a whole day.

Plan (``events`` semantics, the normal case), with its cost in requests:

1. ``GET /repos/{o}/{r}/issues/events`` newest first, paged by Link until the
   page's oldest event is older than the window start. Closings, merges and
   reopens come only from here: an item closed in the window and reopened
   later still counts, which no ``closed_at`` snapshot can tell. Each event
   embeds its issue object (its current state), so those items cost nothing
   more, including items closed after the window ended. Cost: events from the
   window start until now / 100 (1-3 for a day fetched just after it ends).
   The first page's Date header also tells how old the day is.
1b. The cross-check of step 1 (``DayPlan.cross_check``): two searches, ``repo:o/r is:issue
   closed:A..B`` and ``is:pr is:merged merged:A..B`` (UTC, the window's [start, end), halved past the
   1,000-result cap like every search here). An item either search finds closed or merged in the window
   that the events gave no closing or merge for is a hole in the feed: the manifest names it and the day is
   incomplete. Cost: 2 search requests a day (one more per further 100 results), on every day counted
   from events; a day counted from current state takes its lists from such searches and skips this.
2. The day's other items: those created in the window and those its comments
   and reviews belong to. Two ways, by the day's age on GitHub's clock:

   - **A recent day** (the daily run, ``recent_hours`` after the window end at
     most): the open issues list ``state=open&since=start&sort=updated``, all
     pages. Every item created in the window is either open now (so updated
     since the start: listed) or was closed since (so its closing is one of
     step 1's events, which embed it); every item commented in the window is
     open (listed) or closed since the start (step 1) or closed before it,
     which one search ``closed:<start updated:>=start`` finds (only asked when
     a commented item is still unknown). The created sets' totals are counted
     from these items. Cost: open items touched since the start / 100 (1 on a
     quiet day, 3 on a busy vLLM day), against 2 searches plus the paged
     updated list that finding commented items costs the other way.
   - **An older day** (backfills, late re-runs): search ``repo:o/r is:issue
     created:A..B`` and ``is:pr`` (2 requests while a set has <= 100 items),
     whose cost does not grow with the day's age and whose ``total_count``
     checks the landing; search's 1,000-result cap is met by halving the
     window. Items that comments belong to and that nothing else returned come
     from the issues list ``since=start&sort=updated&direction=asc``, paged
     only until every missing number is found (0 requests when none is).
3. ``GET /repos/{o}/{r}/issues/comments`` and ``/pulls/comments`` with
   ``since=start&sort=created&direction=asc``, paged until past the window end
   (1 request each per 100 comments; ``since`` filters on updated_at, so a few
   older comments edited later come along and are dropped).
4. Optional, one request per PR, off by default: reviews (``/pulls/{n}/reviews``
   for PRs with review comments in the window, then merged ones) and PR sizes
   (``/pulls/{n}`` for PRs merged in the window). Labels, author, draft and
   merged_at already come with the issue objects.
5. Optional, off by default (``max_user_requests``): the profiles of the day's
   item authors (``/users/{login}``, ``enrich.py`` with the cache of ``people.py``),
   each asked once and then monthly with its ETag; a steady day asks only its new authors'.
6. Optional, off by default (``max_file_requests``, at most 20): the files of the
   day's key-change and focus candidates (``/pulls/{n}/files``, ``enrich.py`` with
   the cache of ``pr_files.py``): PRs whose title tags or labels name a focus area
   first, then PRs merged in the window, then PRs opened in it; a PR unchanged
   since its files were read costs nothing, a changed one a conditional request.

The day's manifest (what it cost, how it was counted) is assembled by ``manifest.py``.

Every page is asked with ``per_page=100``, the most GitHub serves. A busy vLLM
day costs at least ceil(events/100) + ceil(comments/100) + ceil(open items
touched/100) + 1 (review comments) requests whatever the plan: 2 + 6 + 3 + 1, and the cross-check's 2
searches.

When the events endpoint no longer reaches back to the window (GitHub serves
about 90 days, 300 pages did not reach it, or GitHub's 422 "pagination is
limited" stopped the paging), closings come from ``closed:A..B`` searches and
the day is landed with ``snapshot`` semantics: counted from the items' current
state, which the manifest (``SNAPSHOT_NOTE``), the report and a warning check
say. A feed that loops or does not advance (``EventFeed``) falls back the same
way, and the day is marked incomplete: what it served is not the truth.
"""

from __future__ import annotations

import datetime as dt
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterator

from vllm_digest.core.calendar import DayWindow
from vllm_digest.core.config.settings import RepoRef
from vllm_digest.core.vocabulary import DayPayload
from vllm_digest.ingest.github.client import GitHubClient, PageTrail, PaginationLimitedError, PagingError
from vllm_digest.ingest.github.endpoints import (
    Page,
    fetch_issue_comments,
    fetch_issue_events_page,
    fetch_issues,
    fetch_pull,
    fetch_pull_reviews,
    fetch_review_comments,
    fetch_search_issues,
)
from vllm_digest.ingest.github.enrich import CachedPages, author_profiles, pr_files
from vllm_digest.ingest.github.manifest import RequestMark, day_manifest
from vllm_digest.ingest.github.people import PeopleCache
from vllm_digest.ingest.github.pr_files import FilesCache
from vllm_digest.ingest.github.replay import ReplayCache, compact, mark_landed
from vllm_digest.ingest.github.rest import number_from_url, parse_time

SECOND = dt.timedelta(seconds=1)
# the sets cross-checked against search (DayPlan.cross_check): set name -> (search qualifiers, the range
# qualifier, the issue event that puts an item in the set, whether the set holds PRs)
CROSS_CHECKED = {
    "closed_issues": ("is:issue", "closed", "closed", False),
    "merged_prs": ("is:pr is:merged", "merged", "merged", True),
}
# the manifest's note on a day counted from current state (snapshot semantics): what such counting loses
SNAPSHOT_NOTE = (
    "closings and merges are counted from the items' current state (closed_at, merged_at), not from issue "
    "events: a closing undone by a later reopening and a PR closed without merge, then merged on a later day, "
    "are missing; an issue converted to a discussion is counted"
)
_PULL_FIELDS = ("number", "additions", "deletions", "changed_files", "commits", "draft", "merged_at", "updated_at")


@dataclass(frozen=True)
class FetchOptions:
    per_page: int = 100
    # GitHub keeps issue events for about 90 days; older days fall back to snapshots
    events_horizon_days: float = 90.0
    max_event_pages: int = 300
    search_cap: int = 1000
    incomplete_retries: int = 2
    max_review_requests: int = 0
    max_pull_requests: int = 0
    # profiles asked (GET /users/{login}) a day, new or due for their monthly refresh; 0: none
    max_user_requests: int = 0
    # PRs whose changed files are asked (GET /pulls/{n}/files) a day; 0: none
    max_file_requests: int = 0
    # title tags and labels (lower case) that mark a focus candidate, whose files are asked first
    focus_words: tuple[str, ...] = ()
    # a day whose window ended at most this long ago (GitHub's clock) takes its items from the open
    # issues list instead of created-in-window searches (module docstring, step 2)
    recent_hours: float = 6.0


def range_time(item: dict, field_name: str) -> str | None:
    """The time a search range qualifier (``created``, ``closed``, ``merged``) reads from an issue object:
    a PR's ``merged_at`` sits inside its ``pull_request`` object, the others at the top."""
    if field_name == "merged":
        return (item.get("pull_request") or {}).get("merged_at")
    return item.get(f"{field_name}_at")


def search_time(moment: dt.datetime) -> str:
    """Search qualifiers take UTC ISO times, e.g. ``2026-03-22T03:39:00Z``."""
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# pages in a row without a new event that make the events feed "stuck": one or two can be new events at
# its head shifting the pages between two fetches (see EventFeed); the page cap still bounds the feed
STUCK_PAGES = 3


class EventFeed:
    """The repository's issue events feed (newest first) shared by the days of one run: each page is
    asked once, so a run of N days pages the feed back to its oldest day once instead of N times
    (each day's plan would page it from now back to its own window). Plans read it in any order.

    Each page is checked against the ones before it, so a feed that loops is not taken as the truth:
    a ``next`` already fetched (or past the page cap) and ``STUCK_PAGES`` pages in a row that bring no
    event not already seen (the feed does not advance) end the feed with ``fault`` set. One such page
    alone is no fault: the feed is read lazily across a run's days, with other requests and rate-limit
    waits between pages, and a page's worth of new events at its head meanwhile shifts every later page
    (the next one then repeats the last one fetched). A day that needed pages beyond the fault
    falls back to snapshot counting, marked incomplete. GitHub's 422 "pagination is limited" ends it
    with ``limited`` set, a fallback like the plan's own page cap. A 304 on a page after one that came
    back changed cannot be true (new events shift every later page), so that page is asked again
    without its ETag."""

    def __init__(self, client: GitHubClient, per_page: int):
        self._client, self._per_page = client, per_page
        self._pages: list[Page] = []
        self._trail: PageTrail | None = None
        self._next: str | None = None
        self._done = False
        self._seen: set = set()  # event ids on the pages so far
        self._stale = 0  # pages in a row that brought no event not already seen
        self._changed = False  # some page came back 200 (changed since the replayed landing)
        self._unconditional = False  # after ``refresh``: no ETags
        self.fault: str | None = None
        self.limited: str | None = None
        self.reasked = 0

    def pages(self, repo: RepoRef) -> Iterator[Page]:
        """The feed's pages in order: those already fetched, then the next ones as they are asked for."""
        i = 0
        while True:
            if i < len(self._pages):
                yield self._pages[i]
                i += 1
                continue
            if self._done:
                return
            page = self._fetch_next(repo)
            if page is None:
                self._done = True
                return
            self._pages.append(page)

    @property
    def first(self) -> Page | None:
        return self._pages[0] if self._pages else None

    def refresh(self) -> None:
        """Forget the pages fetched; the next reader gets them all again, asked without their ETags
        (a 304 the plan found cannot be true, ``DayPlan.stale_feed``)."""
        self.__init__(self._client, self._per_page)
        self._unconditional = True

    def _fetch_next(self, repo: RepoRef) -> Page | None:
        if self._pages and not self._next:
            return None
        try:
            url = self._trail.follow(self._next) if self._trail is not None else None
            page = fetch_issue_events_page(self._client, repo, self._per_page, url,
                                           conditional=not self._unconditional)
            if page.response.not_modified and self._changed:
                self._client.log.warning(
                    f"GitHub GET {page.response.url}: 304 Not Modified after an earlier page of the events "
                    "feed changed, which shifts every later page; asking it again without its ETag"
                )
                page = fetch_issue_events_page(self._client, repo, self._per_page, page.response.url,
                                               conditional=False)
                self.reasked += 1
        except PagingError as exc:
            self.fault = f"the issue events feed cannot be followed: {exc}"
            return None
        except PaginationLimitedError as exc:
            self.limited = f"GitHub limits how deep the issue events feed pages ({exc})"
            return None
        if self._trail is None:
            self._trail = self._client.trail(page.response.url)
        self._changed = self._changed or not page.response.not_modified
        ids = {event.get("id") for event in page.rows}
        number = len(self._pages) + 1
        self._stale = self._stale + 1 if self._pages and page.rows and not (ids - self._seen) else 0
        if self._stale >= STUCK_PAGES:
            self.fault = (
                f"the issue events feed does not advance: pages {number - STUCK_PAGES + 1} to {number} "
                f"(the last {page.response.url}) hold only events of the pages before them"
            )
            return None
        self._seen |= ids
        self._next = page.response.next_url
        return page


@dataclass
class _SearchResult:
    total: int = 0
    items: list[dict] = field(default_factory=list)
    returned: int = 0  # items the search's pages held, in the range or not
    undated: int = 0  # of those, items without the time the range reads (see DayPlan.cross_check)


class DayPlan:
    """The requests that land one report day (the module docstring's plan); ``run()`` makes them.

    ``previous`` is the day as landed before, if any: its pages are replayed for GitHub's 304
    answers, so an unchanged page costs no rate limit."""

    def __init__(
        self,
        client: GitHubClient,
        repo: RepoRef,
        window: DayWindow,
        previous: DayPayload | None = None,
        options: FetchOptions | None = None,
        people: PeopleCache | None = None,
        files: FilesCache | None = None,
        feed: EventFeed | None = None,
    ):
        self.client, self.repo, self.window = client, repo, window
        # the run's shared events feed (several days in one run), or this day's own
        self.feed = feed or EventFeed(client, (options or FetchOptions()).per_page)
        self.options = options or FetchOptions()
        self.people = people
        self.files_cache = files
        self.replay_cache = ReplayCache(previous)
        client.cache = CachedPages(self.replay_cache, people, files)
        self.replay: dict[str, dict] = {}
        self.reasons: list[str] = []
        self.totals: dict[str, dict] = {}
        self.items: dict[int, dict] = {}
        # current-state issue objects seen on the way, not yet known to belong to the day
        self.pool: dict[int, dict] = {}
        self.server_now: float | None = None
        self.notes: dict[str, object] = {}
        self.cross_checked: dict = {}

    # ------------------------------------------------------------- helpers
    def _note(self, page: Page) -> Page:
        if page.response.etag:
            self.replay[page.response.url] = compact(page.response, page.kind, page.shape)
        return page

    def _pages(self, pages: Iterator[Page]) -> Iterator[Page]:
        """An endpoint's pages, each recorded for the replay as it arrives."""
        for page in pages:
            yield self._note(page)

    def _keep_item(self, item: dict, into: dict[int, dict] | None = None) -> None:
        into = self.items if into is None else into
        number = item.get("number")
        if not isinstance(number, int):
            return
        old = into.get(number)
        if old is None or (item.get("updated_at") or "") >= (old.get("updated_at") or ""):
            into[number] = item

    def is_recent(self) -> bool:
        """The window ended at most ``recent_hours`` before GitHub's clock (step 2's choice)."""
        now = self.server_now or time.time()
        return now - self.window.end.timestamp() <= self.options.recent_hours * 3600

    # -------------------------------------------------------------- events
    def events(self) -> list[dict] | None:
        """Events of the window, or None when the endpoint no longer reaches back to it."""
        kept: dict[int, dict] = {}
        pages = 0
        for page in self._pages(self.feed.pages(self.repo)):
            pages += 1
            response, rows = page.response, page.rows
            if pages == 1:
                now = response.server_time or time.time()
                self.server_now = now
                horizon = now - self.options.events_horizon_days * 86400
                if self.window.start.timestamp() < horizon:
                    self.notes["snapshot_reason"] = (
                        f"the window starts more than {self.options.events_horizon_days:g} days before "
                        "GitHub's clock, beyond what the issue events endpoint serves"
                    )
                    return None
            for event in rows:
                moment = parse_time(event.get("created_at"))
                if moment is not None and self.window.contains(moment):
                    kept.setdefault(event["id"], event)
                issue = event.get("issue")
                if moment is not None and moment >= self.window.start and isinstance(issue, dict) and "title" in issue:
                    self._keep_item(issue, self.pool)
            if not rows or parse_time(rows[-1].get("created_at")) < self.window.start:
                break
            if pages >= self.options.max_event_pages and response.next_url:
                self.notes["snapshot_reason"] = (
                    f"{pages} pages of issue events did not reach back to the window start"
                )
                return None
        else:
            # the feed ended before the window start: at its true end (GitHub serves no older events),
            # or cut short, which the day must not take as the whole truth
            if self.feed.limited:
                self.notes["snapshot_reason"] = f"{self.feed.limited}, before reaching the window start"
                return None
            if self.feed.fault:
                reason = f"{self.feed.fault}; the day is counted from current state instead"
                self.notes["snapshot_reason"] = reason
                self.reasons.append(reason)
                return None
        self.notes["event_pages"] = pages
        if self.feed.reasked:
            self.notes["event_pages_reasked"] = self.feed.reasked
        return sorted(kept.values(), key=lambda e: (e.get("created_at") or "", e["id"]))

    def stale_feed(self) -> str | None:
        """Why the feed's first page, answered 304, cannot be current, or None: an item the plan saw
        was closed or merged after the newest event that page holds, and every closing and merge is an
        event of the feed (newest first), so it would be on that page."""
        first = self.feed.first
        if first is None or not first.response.not_modified:
            return None
        newest = max((m for e in first.rows if (m := parse_time(e.get("created_at"))) is not None), default=None)
        if newest is None:
            return None
        for item in (*self.items.values(), *self.pool.values()):
            for what, value in (("closed", item.get("closed_at")),
                                ("merged", (item.get("pull_request") or {}).get("merged_at"))):
                moment = parse_time(value)
                if moment is not None and moment > newest:
                    return (f"the issue events feed's first page answered 304 Not Modified, but item "
                            f"{item.get('number')} was {what} at {value}, after the newest event it holds "
                            f"({search_time(newest)})")
        return None

    def events_again(self, why: str, events: list[dict]) -> list[dict]:
        """The window's events from the feed asked again without ETags (``stale_feed`` said why)."""
        self.client.log.warning(f"{why}; asking the feed again without ETags")
        self.feed.refresh()
        again = self.events()
        if again is None:
            self.reasons.append(f"{why}; asked again, the feed no longer reached the window "
                                f"({self.notes.get('snapshot_reason')})")
            return events
        self.notes["event_feed_refreshed"] = why
        self.closed_from_events(again)
        return again

    # -------------------------------------------------------------- search
    def _search_page(self, params: dict | None = None, url: str | None = None) -> Page:
        page = fetch_search_issues(self.client, params, url)
        retries = 0
        while page.data.get("incomplete_results") and retries < self.options.incomplete_retries:
            retries += 1
            page = fetch_search_issues(self.client, url=page.response.url, conditional=False)
        if page.data.get("incomplete_results"):
            self.reasons.append(
                f"search {params['q'] if params else page.response.url} returned incomplete_results "
                f"after {retries + 1} tries"
            )
        return self._note(page)

    def search(self, qualifiers: str, field_name: str, lo: dt.datetime, hi: dt.datetime) -> _SearchResult:
        """Items whose ``field_name`` lies in [lo, hi), splitting the range past the result cap."""
        q = f"repo:{self.repo.full_name} {qualifiers} {field_name}:{search_time(lo)}..{search_time(hi - SECOND)}"
        params = {"q": q, "sort": "created", "order": "asc", "per_page": self.options.per_page}
        page = self._search_page(params)
        total = page.data["total_count"]
        if total > self.options.search_cap:
            if hi - lo > SECOND:
                mid = lo + (hi - lo) / 2
                mid = mid.replace(microsecond=0)
                if mid <= lo:
                    mid = lo + SECOND
                left = self.search(qualifiers, field_name, lo, mid)
                right = self.search(qualifiers, field_name, mid, hi)
                return _SearchResult(left.total + right.total, left.items + right.items,
                                     left.returned + right.returned, left.undated + right.undated)
            self.reasons.append(f"search {q} has {total} results in one second, over the {self.options.search_cap} cap")
        result = _SearchResult(total=total)
        reachable = self.options.search_cap
        trail = self.client.trail(page.response.url)
        while True:
            for item in page.items:
                result.returned += 1
                value = range_time(item, field_name)
                result.undated += value is None
                moment = parse_time(value)
                if moment is not None and lo <= moment < hi:
                    result.items.append(item)
            if not page.response.next_url or len(result.items) >= reachable:
                break
            page = self._search_page(url=trail.follow(page.response.next_url))
        return result

    def search_set(self, name: str, qualifiers: str, field_name: str) -> list[dict]:
        found = self.search(qualifiers, field_name, self.window.start, self.window.end)
        unique = {i["number"]: i for i in found.items}
        self.totals[name] = {"count": found.total, "numbers": sorted(unique)}
        if found.total != len(unique):
            self.reasons.append(f"{name}: search total_count {found.total} but {len(unique)} items landed")
        return list(unique.values())

    # --------------------------------------------------------- recent day
    def open_items(self) -> None:
        """Every open item updated since the window start, into the pool (step 2, a recent day)."""
        since = search_time(self.window.start)
        for page in self._pages(fetch_issues(self.client, self.repo, "open", since, self.options.per_page)):
            for item in page.rows:
                self._keep_item(item, self.pool)

    def created_from_pool(self) -> None:
        """The created sets from the pool: open now, or closed since the start (step 1 embedded it)."""
        for name, is_pr in (("new_issues", False), ("new_prs", True)):
            numbers = sorted(
                n for n, item in self.pool.items()
                if ("pull_request" in item) == is_pr
                and (moment := parse_time(item.get("created_at"))) is not None and self.window.contains(moment)
            )
            for n in numbers:
                self._keep_item(self.pool[n])
            self.totals[name] = {"count": len(numbers), "numbers": numbers, "source": "open issues list and events"}

    def closed_before(self, missing: set[int]) -> None:
        """Items closed before the window and touched in it: one search finds them all."""
        q = (f"repo:{self.repo.full_name} closed:<{search_time(self.window.start)} "
             f"updated:>={search_time(self.window.start)}")
        params = {"q": q, "sort": "updated", "order": "asc", "per_page": self.options.per_page}
        page = self._search_page(params)
        trail = self.client.trail(page.response.url)
        while True:
            for item in page.items:
                if item.get("number") in missing:
                    self._keep_item(item)
            if not page.response.next_url or not (missing - set(self.items)):
                break
            page = self._search_page(url=trail.follow(page.response.next_url))

    # ------------------------------------------------------------ comments
    def comments(self, endpoint: Callable[..., Iterator[Page]]) -> list[dict]:
        """The window's comments from ``endpoint`` (issue or review comments), paged until past its end."""
        kept: dict[int, dict] = {}
        pages = endpoint(self.client, self.repo, search_time(self.window.start), self.options.per_page)
        for page in self._pages(pages):
            rows = page.rows
            for row in rows:
                moment = parse_time(row.get("created_at"))
                if moment is not None and self.window.contains(moment):
                    kept[row["id"]] = row
            if not rows or parse_time(rows[-1].get("created_at")) >= self.window.end:
                break
        return sorted(kept.values(), key=lambda c: (c.get("created_at") or "", c["id"]))

    def missing_items(self, numbers: set[int]) -> None:
        for n in numbers & set(self.pool):
            self._keep_item(self.pool[n])
        missing = numbers - set(self.items)
        if missing and self.is_recent():
            self.closed_before(missing)
            missing = numbers - set(self.items)
        if not missing:
            return
        since = search_time(self.window.start)
        try:
            for page in self._pages(fetch_issues(self.client, self.repo, "all", since, self.options.per_page)):
                for item in page.rows:
                    if item.get("number") in missing:
                        self._keep_item(item)
                        missing.discard(item["number"])
                if not missing:
                    break
        except PaginationLimitedError as exc:
            # as when the list runs out: the comments stay, their items are listed as missing
            self.notes["missing_items_reason"] = str(exc)
        if missing:
            self.notes["missing_items"] = sorted(missing)

    # ------------------------------------------------------- per-PR detail
    def reviews(self, pr_numbers: list[int]) -> list[dict]:
        kept: dict[int, dict] = {}
        for number in pr_numbers[: self.options.max_review_requests]:
            for page in self._pages(fetch_pull_reviews(self.client, self.repo, number, self.options.per_page)):
                for row in page.rows:
                    moment = parse_time(row.get("submitted_at"))
                    if moment is not None and self.window.contains(moment):
                        kept[row["id"]] = row
        return sorted(kept.values(), key=lambda r: (r.get("submitted_at") or "", r["id"]))

    def pulls(self, pr_numbers: list[int]) -> list[dict]:
        out = []
        for number in pr_numbers[: self.options.max_pull_requests]:
            pull = self._note(fetch_pull(self.client, self.repo, number)).data
            out.append({k: pull.get(k) for k in _PULL_FIELDS})
        return out

    def users(self) -> list[dict]:
        """Step 5: the day's authors' profiles (``enrich.author_profiles``)."""
        rows, asked = author_profiles(self.client, self.items.values(), self.people, self.server_now,
                                      self.options.max_user_requests)
        if asked is not None:
            self.notes["user_requests"] = asked
        return rows

    def files(self, merged: list[int]) -> list[dict]:
        """Step 6: the changed files of the day's key-change and focus candidates (``enrich.pr_files``)."""
        rows, asked = pr_files(self.client, self.repo, self.window, self.items, merged, self.files_cache,
                               self.options.max_file_requests, self.options.focus_words, self.options.per_page)
        if asked is not None:
            self.notes["file_requests"] = asked
        return rows

    # ----------------------------------------------------------------- run
    def run(self) -> DayPayload:
        """Make the day's requests, in the plan's order, and return what they landed."""
        client = self.client
        mark = RequestMark.of(client)
        events = self.events()
        semantics = "events" if events is not None else "snapshot"
        if events is None:
            events = []
            self.closed_from_searches()
        else:
            self.closed_from_events(events)
        self.created(recent=semantics == "events" and self.is_recent())
        if semantics == "events" and (why := self.stale_feed()) is not None:
            events = self.events_again(why, events)
        # after a stale feed was asked again, so the searches check the events the day keeps
        self.cross_check(None if semantics == "snapshot" else events)
        comments = self.comments(fetch_issue_comments)
        review_comments = self.comments(fetch_review_comments)
        reviewed = list(dict.fromkeys(
            n for c in review_comments if (n := number_from_url(c.get("pull_request_url"))) is not None
        ))
        merged_in_window = sorted({
            e["issue"]["number"] for e in events if e.get("event") == "merged" and isinstance(e.get("issue"), dict)
        } | set(self.totals.get("merged_prs", {}).get("numbers", [])))
        reviews = self.reviews(reviewed + [n for n in merged_in_window if n not in reviewed])
        referenced = {n for c in comments if (n := number_from_url(c.get("issue_url"))) is not None}
        referenced |= set(reviewed)
        referenced |= {n for r in reviews if (n := number_from_url(r.get("pull_request_url"))) is not None}
        self.missing_items(referenced)
        pulls = self.pulls(merged_in_window)
        users = self.users()
        files = self.files(merged_in_window)
        payload = DayPayload(
            manifest=None,  # set below, once the replay records know what the day landed
            issues=sorted(self.items.values(), key=lambda i: i["number"]),
            events=events,
            comments=comments,
            review_comments=review_comments,
            reviews=reviews,
            pulls=pulls,
            users=users,
            files=files,
        )
        stubs = self.without_stubs(payload)
        mark_landed(self.replay, payload, stubs)
        payload.manifest = day_manifest(
            client, mark, repo=self.repo, window=self.window, semantics=semantics, reasons=self.reasons,
            totals=self.totals, cross_check=self.cross_checked, replay=self.replay, options=self.options,
            notes=self.notes,
        )
        return payload

    def without_stubs(self, payload: DayPayload) -> dict[str, set]:
        """Take out of ``payload`` any stub the replay served in place of an object the previous landing did
        not hold (a page answered 304 that this plan reads further than the last one did); the day is then
        incomplete, and the next landing asks those pages whole. Also notes the pages asked whole because
        the previous landing lacked an object they held (``ReplayCache.get``). Returns kind -> stub keys."""
        asked = self.replay_cache.unreplayable
        if asked:
            self.notes["pages_asked_whole"] = len(asked)
            self.client.log.warning(
                f"the previous landing of {self.repo.full_name} {self.window.key} lacks objects that {len(asked)} "
                f"of its pages held (the first {asked[0]}): asked them again whole instead of answering them "
                "from the landing"
            )
        stubs = self.replay_cache.take_stubs(payload)
        for kind, keys in sorted(stubs.items()):
            self.reasons.append(
                f"{kind} {', '.join(map(str, sorted(keys, key=str)))}: only a reference of them was at hand (a page "
                "answered 304 Not Modified and the previous landing does not hold them), so they are left out; "
                "landing the day again asks their pages whole"
            )
        return stubs

    def closed_from_events(self, events: list[dict]) -> None:
        """Step 1: the items closed, merged or reopened in the window come embedded in their events."""
        for event in events:
            issue = event.get("issue")
            if event.get("event") in ("closed", "merged", "reopened") and isinstance(issue, dict) and "title" in issue:
                self._keep_item(issue)

    def closed_from_searches(self) -> None:
        """Step 1 on a day the events endpoint no longer reaches: ``closed:`` searches (snapshot semantics)."""
        for item in self.search_set("closed_issues", "is:issue", "closed"):
            self._keep_item(item)
        closed_prs = self.search("is:pr", "closed", self.window.start, self.window.end)
        merged = sorted({i["number"] for i in closed_prs.items if (i.get("pull_request") or {}).get("merged_at")})
        unmerged = sorted({i["number"] for i in closed_prs.items} - set(merged))
        self.totals["merged_prs"] = {"count": len(merged), "numbers": merged}
        self.totals["closed_unmerged_prs"] = {"count": len(unmerged), "numbers": unmerged}
        self.totals["closed_prs"] = {"count": closed_prs.total, "numbers": merged + unmerged}
        for item in closed_prs.items:
            self._keep_item(item)

    def cross_check(self, events: list[dict] | None) -> None:
        """Step 1b: the window's closed issues and merged PRs as the events feed gave them, checked against
        two searches (``is:issue closed:A..B``, ``is:pr is:merged merged:A..B``) that do not read the feed.

        The two disagree legitimately in one direction only. Search reads each item's current
        ``closed_at`` / ``merged_at``; every value an item ever held there is the time of a closing or merge
        event, so an item search finds closed or merged in the window has such an event in it, and our list
        (every closing or merge event in the window) must hold it: one it lacks is a hole in the feed, and
        the day is incomplete. The other way is no hole: an item closed in the window, then reopened (and
        maybe closed again later), is ours but no longer the search's; a search index that lags the last
        minutes of a day fetched just after it ends only finds fewer items, which never reads as a hole
        (each day is fetched again on the next ticks, when the index has caught up). A day counted from
        current state (``events`` None) takes its lists from these very searches: nothing to check, and
        the manifest says how it was counted. A search whose items carry no ``merged_at`` (``closed_at``) at
        all, as an older GitHub Enterprise server's search answers, cannot say when each was merged: that set
        is recorded as not checked, with why, and the day is not marked incomplete for it."""
        if events is None:
            self.cross_checked = {"applied": False, "why": "counted from current state: the closed and merged "
                                  "lists are the searches' own results, not the events feed's"}
            self.notes["counting"] = SNAPSHOT_NOTE
            return
        sets: dict[str, dict] = {}
        for name, (qualifiers, field_name, event_name, is_pr) in CROSS_CHECKED.items():
            ours = {
                issue["number"] for e in events
                if e.get("event") == event_name and isinstance(issue := e.get("issue"), dict)
                and isinstance(issue.get("number"), int) and ("pull_request" in issue) == is_pr
            }
            found = self.search(qualifiers, field_name, self.window.start, self.window.end)
            numbers = {i["number"] for i in found.items if isinstance(i.get("number"), int)}
            query = f"{qualifiers} {field_name}:{search_time(self.window.start)}..{search_time(self.window.end - SECOND)}"
            if found.returned and found.undated == found.returned:
                # no item says when: every one would drop out of the range, which is no hole in the feed
                sets[name] = {"query": query, "total": found.total, "applied": False, "why": (
                    f"the search's {found.returned} items carry no {field_name}_at (an older GitHub Enterprise "
                    f"server's search), so it cannot say which were {event_name} in the window")}
                continue
            missing = sorted(numbers - ours)
            sets[name] = {"query": query, "total": found.total, "applied": True, "numbers": sorted(numbers),
                          "missing": missing, "only_in_events": sorted(ours - numbers)}
            if found.total != len(numbers):
                self.reasons.append(f"the search {query} counts {found.total} items but returned {len(numbers)}, "
                                    "so the events feed could not be checked against it in full")
            if missing:
                what = "a closing of issue" if not is_pr else "a merge of PR"
                self.reasons.append(
                    f"the issue events feed lacks {what} #{', #'.join(map(str, missing))} in the window, which "
                    f"the search {query} finds {event_name} in it"
                )
        if not any(entry["applied"] for entry in sets.values()):
            self.cross_checked = {"applied": False, "sets": sets,
                                  "why": "; ".join(f"{name}: {entry['why']}" for name, entry in sets.items())}
            return
        self.cross_checked = {"applied": True, "sets": sets}

    def created(self, recent: bool) -> None:
        """Step 2: the items created in the window, from the open issues list on a recent day, else searches."""
        self.notes["items_plan"] = "open issues list" if recent else "created searches"
        if recent:
            try:
                self.open_items()
            except PaginationLimitedError as exc:
                # the older day's plan serves as well, at the cost of two searches
                self.notes["items_plan"] = "created searches"
                self.notes["items_plan_reason"] = str(exc)
                recent = False
        if recent:
            self.created_from_pool()
        else:
            for name, qualifier in (("new_issues", "is:issue"), ("new_prs", "is:pr")):
                for item in self.search_set(name, qualifier, "created"):
                    self._keep_item(item)



_FETCH_KEYS = set(FetchOptions.__dataclass_fields__)


@contextmanager
def github_days(repo: RepoRef, api_url: str, token: str | None, **client_options) -> Iterator[Callable]:
    """A run's days from GitHub over one client and one shared events feed: yields
    ``fetch(window, previous) -> DayPayload``. Fetch the days oldest first or in any order: the feed is
    paged back to the oldest day once either way."""
    fetch_kwargs = {k: client_options.pop(k) for k in list(client_options) if k in _FETCH_KEYS}
    options = FetchOptions(**fetch_kwargs)
    with GitHubClient(api_url=api_url, token=token, **client_options) as client:
        feed = EventFeed(client, options.per_page)
        yield lambda window, previous=None, people=None, files=None: DayPlan(
            client, repo, window, previous, options, people, files, feed).run()


def fetch_day(
    repo: RepoRef,
    window: DayWindow,
    api_url: str,
    token: str | None,
    previous: DayPayload | None = None,
    people: PeopleCache | None = None,
    files: FilesCache | None = None,
    **client_options,
) -> DayPayload:
    """Fetch one day from GitHub. ``client_options`` go to ``GitHubClient`` (timeouts,
    retries, ``max_rate_wait_seconds``) or to ``FetchOptions`` (per-PR and per-person budgets);
    ``people`` and ``files`` are the repository's profile and PR-files caches, updated in place (the caller
    saves them)."""
    fetch_kwargs = {k: client_options.pop(k) for k in list(client_options) if k in _FETCH_KEYS}
    with GitHubClient(api_url=api_url, token=token, **client_options) as client:
        return DayPlan(client, repo, window, previous, FetchOptions(**fetch_kwargs), people, files).run()
