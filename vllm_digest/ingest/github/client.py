"""The only place that speaks HTTP to GitHub.

Everything GitHub expects from a well-behaved client lives here: Link-header
pagination, the primary (per resource) and secondary rate limits, bounded
retries of transient failures, and conditional requests so that re-reading
unchanged data costs no rate limit. The token is sent to the configured API
host only and never appears in a message, a log line or a repr.
"""

from __future__ import annotations

import json
import logging
import random
import re
import threading
import time
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Callable, Iterator, Mapping, Protocol
from urllib.parse import urlencode, urlsplit

import httpx

_module_log = logging.getLogger(__name__)

API_VERSION = "2022-11-28"
_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="([^"]+)"')


class GitHubError(RuntimeError):
    """A request failed for good; the message names method, path, status and reason.

    ``transient`` says whether the same request may succeed a little later:
    no response (connection, timeout) or a 5xx after this client's own
    retries, or a body cut off in transit (shorter than its Content-Length).
    A 4xx (token, permission, missing repository, rejected query) or a
    malformed payload (a whole body that is not JSON, such as a proxy's HTML
    page, or JSON without the fields its kind carries) gives the same answer
    every time. The raw asset's RetryPolicy retries only transient errors.
    """

    def __init__(self, method: str, path: str, status: int | None, reason: str, *, transient: bool | None = None):
        self.method, self.path, self.status, self.reason = method, path, status, reason
        self.transient = (status is None or status >= 500) if transient is None else transient
        where = f"{method} {path}"
        super().__init__(f"GitHub {where} failed ({status if status is not None else 'no response'}): {reason}")


class RateLimitError(GitHubError):
    """The rate limit is spent and its reset is further away than we may wait.

    Not transient for a retry policy: its retries come within minutes, the
    reset is further off than that; the next tick's late days pick the day up.
    """

    def __init__(self, method: str, path: str, status: int | None, reason: str, retry_at: float):
        self.retry_at = retry_at
        super().__init__(method, path, status, reason, transient=False)


class PagingError(GitHubError):
    """A paging loop had to stop: its Link ``next`` pointed at a page already fetched, or it ran past
    its page cap. Not transient: the same request pages the same way again."""

    def __init__(self, endpoint: str, reason: str):
        super().__init__("GET", endpoint, None, reason, transient=False)
        # no HTTP status to show: the base message would say "no response"
        RuntimeError.__init__(self, f"GitHub GET {endpoint}: {reason}")


class PaginationLimitedError(GitHubError):
    """GitHub's 422 "pagination is limited for this resource": a page deeper than it serves. The
    events feed falls back as it does at its own page cap; other lists stop with this error."""


class MovedError(GitHubError):
    """A 301/302/307/308: the repository was renamed or transferred. Redirects are not followed."""


@dataclass
class CachedResponse:
    """What a conditional request falls back on when GitHub answers 304."""

    etag: str
    data: object
    next_url: str | None = None


class ResponseCache(Protocol):
    def get(self, url: str) -> CachedResponse | None: ...


@dataclass
class Response:
    url: str
    status: int
    data: object
    headers: Mapping[str, str]
    next_url: str | None
    etag: str | None
    not_modified: bool
    resource: str

    @property
    def server_time(self) -> float | None:
        """GitHub's clock (the Date header), so day-age decisions do not trust the local clock."""
        value = self.headers.get("date")
        if not value:
            return None
        try:
            return parsedate_to_datetime(value).timestamp()
        except (TypeError, ValueError):
            return None


@dataclass
class RequestRecord:
    method: str
    path: str
    status: int
    resource: str
    not_modified: bool
    attempts: int


@dataclass
class Budget:
    """Last seen primary rate limit of one resource (core, search, ...)."""

    limit: int | None = None
    remaining: int | None = None
    reset: float | None = None


def parse_link(header: str | None) -> dict[str, str]:
    return {rel: url for url, rel in _LINK.findall(header or "")}


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), port


class _Transient(Exception):
    """A failure worth another attempt: 5xx, connection trouble, timeouts."""

    def __init__(self, status: int | None, reason: str, wait: float | None = None):
        super().__init__(reason)
        self.status, self.reason, self.wait = status, reason, wait


class _PastDeadline(Exception):
    """Raised inside an attempt's worker once the attempt's deadline has passed."""


@dataclass
class GitHubClient:
    api_url: str = "https://api.github.com"
    token: str | None = field(default=None, repr=False)
    # each attempt's whole exchange (connect, send, headers, the whole body) must finish within
    # this; httpx's own timeouts bound each network operation, and a server that trickles a byte
    # at a time resets them on every byte
    request_deadline_seconds: float = 30.0
    timeout_seconds: float = 30.0
    max_retries: int = 4
    backoff_base_seconds: float = 1.0
    backoff_max_seconds: float = 30.0
    max_retry_seconds: float = 120.0
    max_rate_wait_seconds: float = 900.0
    max_rate_waits: int = 5
    # a paging loop stops with a PagingError past this many pages; far above any day's need
    # (a day is a few pages, the events feed stops itself at its own cap) and there against a
    # Link header that never ends
    max_pages: int = 1000
    user_agent: str = "vllm-digest"
    cache: ResponseCache | None = field(default=None, repr=False)
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    # where retries and waits are logged; the raw asset passes its context.log (a Logger too),
    # so they show in the run's log
    log: logging.Logger = field(default=_module_log, repr=False)
    # counters the manifest reports
    request_count: int = field(default=0, init=False)
    not_modified_count: int = field(default=0, init=False)
    records: list[RequestRecord] = field(default_factory=list, init=False, repr=False)
    budgets: dict[str, Budget] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.api_url = self.api_url.rstrip("/")
        self._api_origin = _origin(self.api_url)
        self._http = httpx.Client(
            timeout=httpx.Timeout(self.timeout_seconds),
            follow_redirects=False,  # a redirect could carry the token elsewhere
            headers={
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": self.user_agent,
            },
        )

    def __enter__(self) -> "GitHubClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # ------------------------------------------------------------------ urls
    def url(self, path: str, params: Mapping[str, object] | None = None) -> str:
        url = path if path.startswith(("http://", "https://")) else f"{self.api_url}/{path.lstrip('/')}"
        if params:
            url += ("&" if "?" in url else "?") + urlencode({k: v for k, v in params.items() if v is not None})
        return url

    def _display_path(self, url: str) -> str:
        parts = urlsplit(url)
        return parts.path + (f"?{parts.query}" if parts.query else "")

    @staticmethod
    def resource_of(url: str) -> str:
        return "search" if "/search/" in urlsplit(url).path else "core"

    @property
    def rate_limit_remaining(self) -> int | None:
        return self.budgets.get("core", Budget()).remaining

    # -------------------------------------------------------------- requests
    def get(self, path: str, params: Mapping[str, object] | None = None, *, conditional: bool = True) -> Response:
        """One GET, with retries, rate-limit waits and the 304 fallback.

        A transient failure is tried again up to ``max_retries`` times, as long as the failed
        attempts and their backoff fit in ``max_retry_seconds``. Each attempt gets the request
        deadline, cut to what is left of that window, so a server that never answers in full
        costs at most the window. Rate-limit waits have their own bounds and do not use it up.
        Each retry and wait is logged with its cause.
        """
        url = self.url(path, params)
        shown = self._display_path(url)
        resource = self.resource_of(url)
        cached = self.cache.get(url) if (conditional and self.cache is not None) else None
        retry_used = 0.0  # seconds of failed attempts and backoff, against max_retry_seconds
        attempt = 0
        rate_waits = 0
        while True:
            attempt += 1
            self._wait_for_budget(resource, shown)
            budget = min(self.request_deadline_seconds, self.max_retry_seconds - retry_used)
            began = time.monotonic()
            try:
                return self._attempt(url, shown, resource, cached, attempt, budget)
            except _Transient as exc:
                if exc.wait is not None:
                    wait = exc.wait
                    rate_waits += 1
                    if rate_waits > self.max_rate_waits:
                        raise GitHubError("GET", shown, exc.status, f"{exc.reason} (still limited after {rate_waits - 1} waits)") from None
                    if wait > self.max_rate_wait_seconds:
                        retry_at = time.time() + wait
                        raise RateLimitError(
                            "GET", shown, exc.status,
                            f"{exc.reason}; retry after {_iso(retry_at)}", retry_at,
                        ) from None
                    then = f"waiting {wait:.1f}s (rate-limit wait {rate_waits} of {self.max_rate_waits})"
                else:
                    retry_used += time.monotonic() - began
                    if attempt > self.max_retries:
                        raise GitHubError("GET", shown, exc.status, f"{exc.reason} (gave up after {attempt} attempts)") from None
                    wait = min(self.backoff_max_seconds, self.backoff_base_seconds * 2 ** (attempt - 1))
                    wait *= 0.5 + random.random()  # jitter keeps parallel runs from retrying in lockstep
                    if retry_used + wait >= self.max_retry_seconds:
                        raise GitHubError(
                            "GET", shown, exc.status,
                            f"{exc.reason} (gave up after {attempt} attempts in {retry_used:.1f}s; "
                            f"retries stop at {self.max_retry_seconds:g}s)",
                        ) from None
                    retry_used += wait
                    then = f"retrying in {wait:.2f}s (attempt {attempt} of {self.max_retries + 1})"
                self.log.warning(f"GitHub GET {shown}: {exc.reason}; {then}")
                self.sleep(wait)

    def _wait_for_budget(self, resource: str, shown: str) -> None:
        budget = self.budgets.get(resource)
        if budget is None or budget.remaining is None or budget.remaining > 0 or budget.reset is None:
            return
        wait = budget.reset - time.time() + 1.0  # reset is whole seconds; one more avoids an early retry
        if wait <= 0:
            return
        if wait > self.max_rate_wait_seconds:
            raise RateLimitError(
                "GET", shown, None,
                f"{resource} rate limit exhausted (limit {budget.limit}); it resets at {_iso(budget.reset)}, "
                f"retry after then (waiting up to {self.max_rate_wait_seconds:.0f}s is allowed)",
                budget.reset,
            )
        self.log.warning(f"GitHub {resource} rate limit exhausted; waiting {wait:.1f}s for its reset")
        self.sleep(wait)
        budget.remaining = None

    def _headers_for(self, url: str, cached: CachedResponse | None) -> dict[str, str]:
        headers: dict[str, str] = {}
        if self.token and _origin(url) == self._api_origin:
            headers["Authorization"] = f"Bearer {self.token}"
        if cached is not None:
            headers["If-None-Match"] = cached.etag
        return headers

    def _attempt(
        self, url: str, shown: str, resource: str, cached: CachedResponse | None, attempt: int, budget: float
    ) -> Response:
        try:
            resp, body = self._exchange(url, cached, budget)
        except _PastDeadline:
            self._record(shown, 0, resource, False, attempt)
            raise _Transient(None, f"no complete response within {self._deadline_text(budget)}") from None
        except httpx.TimeoutException:
            self._record(shown, 0, resource, False, attempt)
            raise _Transient(None, "timed out") from None
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            self._record(shown, 0, resource, False, attempt)
            raise _Transient(None, f"connection broke mid-response, body truncated ({type(exc).__name__})") from None
        except httpx.TransportError as exc:
            self._record(shown, 0, resource, False, attempt)
            raise _Transient(None, f"connection failed ({type(exc).__name__})") from None
        status = resp.status_code
        self._note_budget(resource, resp.headers)
        self._record(shown, status, resource, status == 304, attempt)
        if status == 304:
            if cached is None:
                raise GitHubError("GET", shown, 304, "304 Not Modified without a cached body to reuse")
            self.not_modified_count += 1
            return Response(url, 304, cached.data, resp.headers, cached.next_url, cached.etag, True, resource)
        if status in (403, 429):
            self._raise_limited(shown, status, resp, body)
        if status >= 500:
            raise _Transient(status, f"{status} {resp.reason_phrase}")
        if status == 422 and _is_pagination_limit(body):
            raise PaginationLimitedError("GET", shown, status, _explain(status, resp.reason_phrase, body))
        if status >= 400:
            raise GitHubError("GET", shown, status, _explain(status, resp.reason_phrase, body))
        if status in (301, 302, 307, 308):
            raise MovedError("GET", shown, status, _moved(status, resp.headers.get("location")))
        if status != 200:
            raise GitHubError("GET", shown, status, f"unexpected status {status} {resp.reason_phrase}")
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            # the whole body came (one shorter than its Content-Length or a cut chunked body is httpx's
            # RemoteProtocolError above, retried) and is not JSON: a proxy's or a login page, an error page
            # served as 200; the same request gets the same page, so it is not retried
            raise GitHubError(
                "GET", shown, status,
                f"response is not JSON (Content-Type {_clip(resp.headers.get('content-type'), 80)}, "
                f"{len(body)} bytes, starting {_first_bytes(body)})",
                transient=False,
            ) from None
        etag = resp.headers.get("etag")
        next_url = parse_link(resp.headers.get("link")).get("next")
        return Response(url, status, data, resp.headers, next_url, etag, False, resource)

    def _exchange(self, url: str, cached: CachedResponse | None, budget: float) -> tuple[httpx.Response, bytes]:
        """The response and its whole body, or ``_PastDeadline`` once ``budget`` seconds are gone.

        No httpx timeout bounds a whole exchange: each applies to one network operation and
        starts again on every byte received. So the exchange runs in a worker thread that this
        one waits for until the deadline. A worker left behind stops at its next chunk, or at
        the httpx timeout (cut to the budget), and closes its connection on the way out.
        """
        deadline = time.monotonic() + budget
        headers = self._headers_for(url, cached)
        timeout = httpx.Timeout(max(0.001, min(self.timeout_seconds, budget)))
        outcome: dict[str, object] = {}
        done = threading.Event()

        def work() -> None:
            try:
                chunks: list[bytes] = []
                with self._http.stream("GET", url, headers=headers, timeout=timeout) as resp:
                    for chunk in resp.iter_bytes():
                        if time.monotonic() > deadline:
                            raise _PastDeadline()
                        chunks.append(chunk)
                outcome["response"] = (resp, b"".join(chunks))
            except BaseException as exc:  # handed to the waiting thread, which raises it
                outcome["error"] = exc
            finally:
                done.set()

        threading.Thread(target=work, name="github-request", daemon=True).start()
        if not done.wait(max(0.0, deadline - time.monotonic())):
            raise _PastDeadline()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["response"]

    def _deadline_text(self, budget: float) -> str:
        if budget < self.request_deadline_seconds:
            return f"{budget:.1f}s, what was left of the {self.max_retry_seconds:g}s retry window"
        return f"the {budget:g}s request deadline (github_request_deadline)"

    def _raise_limited(self, shown: str, status: int, resp: httpx.Response, body: bytes) -> None:
        retry_after = resp.headers.get("retry-after")
        if retry_after is not None:
            try:
                wait = float(retry_after)
            except ValueError:
                wait = 60.0
            raise _Transient(status, f"{status} secondary rate limit (Retry-After {retry_after}s)", wait=wait)
        if resp.headers.get("x-ratelimit-remaining") == "0" and resp.headers.get("x-ratelimit-reset"):
            reset = float(resp.headers["x-ratelimit-reset"])
            raise _Transient(status, f"{status} primary rate limit exhausted", wait=max(0.0, reset - time.time() + 1.0))
        text = body[:500].decode("utf-8", "replace").lower()
        if "secondary rate limit" in text or status == 429:
            # GitHub asks for at least a minute when it names no time
            raise _Transient(status, f"{status} secondary rate limit", wait=60.0)
        raise GitHubError("GET", shown, status, _explain(status, resp.reason_phrase, body))

    def _note_budget(self, resource: str, headers: Mapping[str, str]) -> None:
        name = headers.get("x-ratelimit-resource") or resource
        if headers.get("x-ratelimit-remaining") is None:
            return
        budget = self.budgets.setdefault(name, Budget())
        try:
            budget.remaining = int(headers["x-ratelimit-remaining"])
            budget.limit = int(headers.get("x-ratelimit-limit") or 0) or budget.limit
            budget.reset = float(headers.get("x-ratelimit-reset") or 0) or budget.reset
        except ValueError:
            pass

    def _record(self, shown: str, status: int, resource: str, not_modified: bool, attempt: int) -> None:
        self.request_count += 1
        self.records.append(RequestRecord("GET", shown, status, resource, not_modified, attempt))
        _module_log.debug("GitHub GET %s -> %s", shown, status)

    # ------------------------------------------------------------ pagination
    def trail(self, first_url: str, max_pages: int | None = None) -> "PageTrail":
        """A guard for one paging loop that starts at ``first_url`` (see ``PageTrail``)."""
        first_url = self.url(first_url)
        return PageTrail(self._display_path(first_url), first_url, max_pages or self.max_pages, self._display_path)

    def pages(self, path: str, params: Mapping[str, object] | None = None) -> Iterator[Response]:
        """Each page in turn, following only the Link header's ``next``; the caller stops when it has enough.

        A ``next`` already fetched, or more than ``max_pages`` pages, raises a PagingError."""
        response = self.get(path, params)
        trail = self.trail(response.url)
        while True:
            yield response
            if not response.next_url:
                return
            response = self.get(trail.follow(response.next_url))


class PageTrail:
    """The pages one paging loop has fetched, so a Link header that loops or never ends stops it.

    ``follow(next_url)`` returns the URL to fetch next, or raises a PagingError naming the
    endpoint, the URL and the cap when that page was fetched already or the cap is reached."""

    def __init__(self, endpoint: str, first_url: str, cap: int, shown: Callable[[str], str] = str):
        self.endpoint, self.cap, self._shown = endpoint, cap, shown
        self.seen = {first_url}
        self.count = 1

    def follow(self, next_url: str) -> str:
        if next_url in self.seen:
            raise PagingError(self.endpoint, (
                f"paging loop: after page {self.count}, the Link header's next page "
                f"{self._shown(next_url)} is one already fetched; stopped (pages are capped at {self.cap})"
            ))
        if self.count >= self.cap:
            raise PagingError(self.endpoint, (
                f"more than {self.cap} pages (the page cap); the next would be {self._shown(next_url)}"
            ))
        self.seen.add(next_url)
        self.count += 1
        return next_url


def _explain(status: int, phrase: str, body: bytes) -> str:
    try:
        message = json.loads(body).get("message")
    except (ValueError, AttributeError, UnicodeDecodeError):
        message = None
    hint = {
        401: "the token is missing, invalid or expired (check GITHUB_TOKEN)",
        403: "the token lacks permission for this resource",
        404: "not found: the repository does not exist or the token cannot see it",
        422: "GitHub rejected the query",
    }.get(status)
    parts = [f"{status} {phrase}".strip()]
    if message:
        parts.append(str(message))
    if hint:
        parts.append(hint)
    return ": ".join(parts)


def _first_bytes(body: bytes, limit: int = 120) -> str:
    """The start of a body in a message: at most ``limit`` bytes, decoded leniently, every control or
    non-ASCII character escaped, so an HTML page is quoted on one line and never rendered."""
    text = ascii(body[:limit].decode("utf-8", "replace"))
    return text + ("..." if len(body) > limit else "")


def _is_pagination_limit(body: bytes) -> bool:
    """GitHub's 422 for a page deeper than a resource serves says "pagination is limited"."""
    return b"pagination is limited" in body[:2000].lower()


def _clip(text: str | None, limit: int = 200) -> str:
    """A header value shown in a message: quoted, control characters escaped, at most ``limit`` characters."""
    if text is None:
        return "(none)"
    text = text if len(text) <= limit else text[:limit] + "..."
    return ascii(text)


_REPOSITORY_ID = re.compile(r"/repositories/(\d+)(?:/|$)")


def _moved(status: int, location: str | None) -> str:
    """What a redirect means here: the repository moved. It is not followed: the token would go
    with it, and the day would land under the old name; the user changes ``repos`` instead."""
    how = "permanently" if status in (301, 308) else "temporarily"
    found = _REPOSITORY_ID.search(urlsplit(location).path) if location else None
    where = (f" (repository id {found.group(1)}: GET /repositories/{found.group(1)} names its new owner/name)"
             if found else "")
    return (f"the repository moved {how} (renamed or transferred); GitHub redirects to "
            f"{_clip(location)}{where}. Redirects are not followed: set `repos` (VLLM_DIGEST_REPOS) "
            f"to the repository's new owner/name")


def _iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))
