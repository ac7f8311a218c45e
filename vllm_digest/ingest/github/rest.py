"""Reading GitHub REST objects, as both sources serve them (the live API and the embedded sample)."""

from __future__ import annotations

import datetime as dt


def parse_time(text: str | None) -> dt.datetime | None:
    """A REST timestamp (``2026-03-22T03:39:00Z``) as an aware datetime; None when absent."""
    if not text:
        return None
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def number_from_url(url: str | None) -> int | None:
    """The item number an API URL ends with (a comment's ``issue_url``, a review's ``pull_request_url``)."""
    tail = (url or "").rstrip("/").rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else None
