"""A day's manifest as the github source writes it: how the day was landed (semantics, completeness,
totals, the cross-check) and what landing it cost, counted from the client's records.

A run lands several days over one client, so the counts start at a ``RequestMark`` taken before the
day's first request: each manifest counts its own day's requests only.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from vllm_digest.core.calendar import DayWindow
from vllm_digest.core.config.settings import RepoRef
from vllm_digest.core.vocabulary import Manifest
from vllm_digest.ingest.github.client import GitHubClient


@dataclass(frozen=True)
class RequestMark:
    """The client's counters when a day's requests began."""

    requests: int
    not_modified: int
    records: int

    @classmethod
    def of(cls, client: GitHubClient) -> "RequestMark":
        return cls(client.request_count, client.not_modified_count, len(client.records))


def day_manifest(
    client: GitHubClient,
    since: RequestMark,
    *,
    repo: RepoRef,
    window: DayWindow,
    semantics: str,
    reasons: list[str],
    totals: dict[str, dict],
    cross_check: dict,
    replay: dict[str, dict],
    options,
    notes: dict[str, object],
) -> Manifest:
    """How the day was landed: the requests made ``since`` the mark, the totals, the replay records
    (``replay``: url -> the compact page a later landing replays on a 304), the fetch ``options`` (a
    dataclass, recorded field by field) and the plan's ``notes``."""
    records = client.records[since.records:]
    counted: dict[str, int] = {}
    for r in records:
        if not r.not_modified:
            counted[r.resource] = counted.get(r.resource, 0) + 1
    search_budget = client.budgets.get("search")
    return Manifest(
        source="github",
        repo=repo.full_name,
        day=window.key,
        window_start=window.start.isoformat(),
        window_end=window.end.isoformat(),
        semantics=semantics,
        complete=not reasons,
        incomplete_reasons=list(reasons),
        request_count=client.request_count - since.requests,
        not_modified_count=client.not_modified_count - since.not_modified,
        totals=totals,
        cross_check=cross_check,
        details={
            "api_url": client.api_url,
            "rate_limited_requests": counted,
            "rate_limit_remaining": client.rate_limit_remaining,
            "search_rate_limit_remaining": search_budget.remaining if search_budget is not None else None,
            "fetched_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "etags": {url: rec["etag"] for url, rec in replay.items()},
            "replay": replay,
            "requests": [
                {"path": r.path, "status": r.status, "not_modified": r.not_modified, "attempt": r.attempts}
                for r in records
            ],
            "options": {k: getattr(options, k) for k in options.__dataclass_fields__},
            **notes,
        },
    )
