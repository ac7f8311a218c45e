"""One function per GitHub REST endpoint the day plan reads, in github-to-sqlite's ``fetch_*`` shape.

Each names its path and parameters, checks the shape of every answer and the fields of every object in it
(``payload_fields.py``), and says which payload kind
its objects are and how the body is shaped, which the replay records (``ingest/github/replay.py``). Paging
is lazy: the plan stops as soon as it has what it needs. The HTTP itself (retries, rate limits,
Link paging, conditional requests) is the client's, the only code that talks to GitHub.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator
from urllib.parse import quote, urlsplit

from vllm_digest.core.config.settings import RepoRef
from vllm_digest.ingest.github.client import GitHubClient, GitHubError, Response
from vllm_digest.ingest.github.payload_fields import check_object, check_objects


@dataclass(frozen=True)
class Page:
    """One answer of an endpoint: the response, its checked body, and what the replay records it as."""

    response: Response
    data: object  # list[dict] ("list"), dict with total_count and items ("search"), dict ("object")
    kind: str  # the payload kind of its objects
    shape: str  # "list" | "search" | "object"

    @property
    def rows(self) -> list[dict]:
        return self.data  # type: ignore[return-value]

    @property
    def items(self) -> list[dict]:
        return self.data["items"]  # type: ignore[index]


def _base(repo: RepoRef) -> str:
    return f"repos/{repo.owner}/{repo.name}"


def _list_pages(client: GitHubClient, path: str, params: dict, kind: str) -> Iterator[Page]:
    for response in client.pages(path, params):
        yield Page(response, expect_list(response, kind), kind, "list")


def fetch_issue_events_page(
    client: GitHubClient, repo: RepoRef, per_page: int, url: str | None = None, *, conditional: bool = True
) -> Page:
    """``GET /repos/{o}/{r}/issues/events``, the repository's issue events, newest first: the first page,
    or the one at ``url`` (a ``next`` link, or the same page again, unconditionally, when its 304 cannot
    be true). The events feed pages itself with this (``plan.EventFeed``), to check each page against
    the ones before it."""
    if url:
        response = client.get(url, conditional=conditional)
    else:
        response = client.get(f"{_base(repo)}/issues/events", {"per_page": per_page}, conditional=conditional)
    return Page(response, expect_list(response, "events"), "events", "list")


def fetch_issues(client: GitHubClient, repo: RepoRef, state: str, since: str, per_page: int) -> Iterator[Page]:
    """``GET /repos/{o}/{r}/issues``: issues and PRs in ``state`` updated since ``since``, oldest update first."""
    params = {"state": state, "since": since, "sort": "updated", "direction": "asc", "per_page": per_page}
    return _list_pages(client, f"{_base(repo)}/issues", params, "issues")


def fetch_issue_comments(client: GitHubClient, repo: RepoRef, since: str, per_page: int) -> Iterator[Page]:
    """``GET /repos/{o}/{r}/issues/comments``: conversation comments updated since ``since``, oldest first."""
    params = {"since": since, "sort": "created", "direction": "asc", "per_page": per_page}
    return _list_pages(client, f"{_base(repo)}/issues/comments", params, "comments")


def fetch_review_comments(client: GitHubClient, repo: RepoRef, since: str, per_page: int) -> Iterator[Page]:
    """``GET /repos/{o}/{r}/pulls/comments``: PR diff comments updated since ``since``, oldest first."""
    params = {"since": since, "sort": "created", "direction": "asc", "per_page": per_page}
    return _list_pages(client, f"{_base(repo)}/pulls/comments", params, "review_comments")


def fetch_pull_reviews(client: GitHubClient, repo: RepoRef, number: int, per_page: int) -> Iterator[Page]:
    """``GET /repos/{o}/{r}/pulls/{n}/reviews``: every review of one PR."""
    return _list_pages(client, f"{_base(repo)}/pulls/{number}/reviews", {"per_page": per_page}, "reviews")


def fetch_pull(client: GitHubClient, repo: RepoRef, number: int) -> Page:
    """``GET /repos/{o}/{r}/pulls/{n}``: one PR object (its size, draft state and merge time)."""
    response = client.get(f"{_base(repo)}/pulls/{number}")
    return Page(response, expect_object(response, "pulls"), "pulls", "object")


def fetch_pull_files(client: GitHubClient, repo: RepoRef, number: int, per_page: int) -> Page:
    """``GET /repos/{o}/{r}/pulls/{n}/files``: the first page of the files a PR changes (up to ``per_page``,
    enough to tell where it lands); conditional on the ETag the files cache holds (``ingest/github/pr_files.py``)."""
    response = client.get(f"{_base(repo)}/pulls/{number}/files", {"per_page": per_page})
    return Page(response, expect_list(response, "files"), "files", "list")


def fetch_user(client: GitHubClient, login: str) -> Page:
    """``GET /users/{login}``: one account's public profile (name, company, bio); conditional on the
    ETag the people cache holds for it (``ingest/github/people.py``)."""
    response = client.get(f"users/{quote(login, safe='')}")
    return Page(response, expect_object(response, "users"), "users", "object")


def fetch_search_issues(
    client: GitHubClient, params: dict | None = None, url: str | None = None, *, conditional: bool = True
) -> Page:
    """``GET /search/issues``: the first page for ``params``, or the page at ``url`` (a ``next`` link,
    or the same page again, unconditionally, when GitHub said its results were incomplete)."""
    response = client.get(url, conditional=conditional) if url else client.get("search/issues", params)
    return Page(response, expect_search(response), "issues", "search")


def _malformed(response: Response, reason: str) -> GitHubError:
    """A body of the wrong shape: the same request gets the same body, so not transient."""
    parts = urlsplit(response.url)
    shown = parts.path + (f"?{parts.query}" if parts.query else "")
    return GitHubError("GET", shown, response.status, f"malformed payload: {reason}", transient=False)


def expect_list(response: Response, kind: str) -> list[dict]:
    if not isinstance(response.data, list):
        raise _malformed(response, f"expected a JSON list of {kind}, got {type(response.data).__name__}")
    if (problem := check_objects(kind, response.data)) is not None:
        raise _malformed(response, problem)
    return response.data


def expect_search(response: Response) -> dict:
    data = response.data
    if not (isinstance(data, dict) and isinstance(data.get("items"), list)
            and isinstance(data.get("total_count"), int) and not isinstance(data.get("total_count"), bool)):
        raise _malformed(response, "expected a search result object with total_count and items")
    if (problem := check_objects("issues", data["items"], "items: ")) is not None:
        raise _malformed(response, problem)
    return data


def expect_object(response: Response, kind: str) -> dict:
    if not isinstance(response.data, dict):
        raise _malformed(response, f"expected a JSON object, got {type(response.data).__name__}")
    if (problem := check_object(kind, response.data)) is not None:
        raise _malformed(response, problem)
    return response.data
