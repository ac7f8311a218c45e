"""The optional enrichment of a landed day (steps 5 and 6 of ``plan.py``): the profiles of the day's item
authors and the changed files of its key-change and focus candidates, each read from its cache
(``people.py``, ``pr_files.py``) and asked of GitHub only when new or changed, within a daily budget.

Both run after the day's own requests and read only the issue objects those landed; each returns its rows
and how many requests it made (``None`` when it had nothing to look at, so the manifest says nothing).
The client's 304 fallback (``CachedPages``) answers a profile or a file list from these caches and any
other page from the replay of the day as landed before.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from typing import Iterable
from urllib.parse import unquote, urlsplit

from vllm_digest.core.calendar import DayWindow
from vllm_digest.core.config.settings import RepoRef
from vllm_digest.ingest.github.client import CachedResponse, GitHubClient, GitHubError
from vllm_digest.ingest.github.endpoints import fetch_pull_files, fetch_user
from vllm_digest.ingest.github.people import PeopleCache, profile_of
from vllm_digest.ingest.github.pr_files import FilesCache, file_rows, title_tags
from vllm_digest.ingest.github.replay import ReplayCache
from vllm_digest.ingest.github.rest import parse_time

_USER_PATH = re.compile(r"/users/([^/]+)$")
_FILES_PATH = re.compile(r"/pulls/(\d+)/files$")


class CachedPages:
    """The client's 304 fallback: a profile's from the people cache, a PR's files from the files cache, any
    other page's from the replay."""

    def __init__(self, replay: ReplayCache, people: PeopleCache | None, files: FilesCache | None = None):
        self.replay, self.people, self.files = replay, people, files

    def get(self, url: str) -> CachedResponse | None:
        path = urlsplit(url).path
        user = _USER_PATH.search(path)
        if user is not None:
            return self.people.cached_response(unquote(user.group(1))) if self.people is not None else None
        files = _FILES_PATH.search(path)
        if files is not None:
            return self.files.cached_response(int(files.group(1))) if self.files is not None else None
        return self.replay.get(url)


def author_profiles(
    client: GitHubClient,
    items: Iterable[dict],
    people: PeopleCache | None,
    server_now: float | None,
    max_requests: int,
) -> tuple[list[dict], int | None]:
    """The profiles of the day's (non-bot) item authors: from the people cache, asking GitHub for
    those never seen or due for their monthly refresh, at most ``max_requests`` a day."""
    logins = sorted({
        user["login"] for item in items
        if isinstance(user := item.get("user"), dict) and isinstance(user.get("login"), str)
        and user.get("type") != "Bot" and not user["login"].endswith("[bot]")
    })
    if people is None or not logins:
        return [], None
    now = dt.datetime.fromtimestamp(server_now or time.time(), dt.timezone.utc)
    asked = 0
    out = []
    for login in logins:
        if people.is_due(login, now) and asked < max_requests:
            asked += 1
            try:
                page = fetch_user(client, login)
                people.store(login, profile_of(page.data), page.response.etag, now)
            except GitHubError as exc:
                if exc.status != 404:
                    raise
                people.store(login, None, None, now)  # a deleted account: asked again next month
        found = people.entry(login)
        if found and found.get("profile"):
            out.append({**found["profile"], "fetched_at": found["fetched_at"]})
    return out, asked


def file_candidates(items: dict[int, dict], window: DayWindow, merged: list[int],
                    focus_words: tuple[str, ...]) -> list[int]:
    """The PRs whose files are worth asking: focus candidates (a title tag or label the focus areas
    name), then the PRs merged in the window (the key-change candidates), then those opened in it."""
    prs = {n: i for n, i in items.items() if "pull_request" in i}
    words = set(focus_words)

    def is_focus(item: dict) -> bool:
        labels = {str((lb or {}).get("name", "")).lower() for lb in item.get("labels") or [] if isinstance(lb, dict)}
        return bool((title_tags(item.get("title")) | labels) & words)

    opened = [n for n, i in prs.items()
              if (moment := parse_time(i.get("created_at"))) is not None and window.contains(moment)]
    ordered = [n for n in sorted(prs, reverse=True) if is_focus(prs[n])]
    ordered += [n for n in sorted(merged, reverse=True) if n in prs]
    ordered += sorted(opened, reverse=True)
    return list(dict.fromkeys(ordered))


def pr_files(
    client: GitHubClient,
    repo: RepoRef,
    window: DayWindow,
    items: dict[int, dict],
    merged: list[int],
    cache: FilesCache | None,
    max_requests: int,
    focus_words: tuple[str, ...],
    per_page: int,
) -> tuple[list[dict], int | None]:
    """The changed files of the day's candidates (``file_candidates``), at most ``max_requests`` PRs:
    from the files cache when the PR has not changed since, else asked (conditionally)."""
    if cache is None or max_requests <= 0:
        return [], None
    out: list[dict] = []
    asked = 0
    for number in file_candidates(items, window, merged, focus_words)[:max_requests]:
        updated = items[number].get("updated_at")
        found = cache.entry(number)
        if not (found and found.get("updated_at") == updated):
            asked += 1
            page = fetch_pull_files(client, repo, number, per_page)
            cache.store(number, page.rows, page.response.etag, updated)
            found = cache.entry(number)
        out.extend(file_rows(number, found["files"]))
    return out, asked
