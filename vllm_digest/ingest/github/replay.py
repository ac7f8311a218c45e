"""Conditional requests across runs, without a second copy of the data.

For every URL a day's fetch read, the manifest keeps its ETag, its ``next``
link and a compact reference to the body: the ids of the objects it held
(plus the few fields the request plan branches on). On a re-fetch, a 304 is
answered by rebuilding the body from the day's already-landed payload, so an
unchanged day costs no rate limit and no extra storage.
"""

from __future__ import annotations

from vllm_digest.core.vocabulary import DayPayload
from vllm_digest.ingest.github.client import CachedResponse, Response
# kind -> (key field, the fields a stub keeps so paging decisions replay the same)
_STUB_FIELDS = {
    "events": ("id", ("id", "event", "created_at")),
    "comments": ("id", ("id", "created_at", "updated_at", "issue_url")),
    "review_comments": ("id", ("id", "created_at", "updated_at", "pull_request_url")),
    "reviews": ("id", ("id", "submitted_at", "pull_request_url")),
    "issues": ("number", ("number", "created_at", "updated_at", "closed_at")),
    "pulls": ("number", ("number",)),
}


def _stub(kind: str, obj: dict) -> dict:
    _, fields = _STUB_FIELDS[kind]
    stub = {f: obj.get(f) for f in fields}
    if kind == "events" and isinstance(obj.get("issue"), dict):
        stub["issue"] = {"number": obj["issue"].get("number")}
    return stub


def compact(response: Response, kind: str, shape: str) -> dict:
    """The manifest's record of one response (never headers, so never the token)."""
    record: dict = {"etag": response.etag, "next": response.next_url, "kind": kind, "shape": shape}
    data = response.data
    if shape == "search":
        record["total_count"] = data.get("total_count")
        record["incomplete_results"] = data.get("incomplete_results")
        record["refs"] = [_stub(kind, o) for o in data.get("items", [])]
    elif shape == "object":
        record["refs"] = [_stub(kind, data)]
    else:
        record["refs"] = [_stub(kind, o) for o in data]
    return record


class ReplayCache:
    """Serves the previous landing's bodies to the client for 304 answers."""

    def __init__(self, previous: DayPayload | None):
        details = previous.manifest.details if previous is not None else {}
        self._records: dict = details.get("replay") or {}
        self._index: dict[str, dict] = {kind: {} for kind in _STUB_FIELDS}
        if previous is None:
            return
        for kind in _STUB_FIELDS:
            key, _ = _STUB_FIELDS[kind]
            for obj in getattr(previous, kind):
                self._index[kind][obj.get(key)] = obj
        # events embed the issue they belong to, so they also vouch for issues
        for event in previous.events:
            issue = event.get("issue")
            if isinstance(issue, dict) and "title" in issue:
                self._index["issues"].setdefault(issue.get("number"), issue)

    def get(self, url: str) -> CachedResponse | None:
        record = self._records.get(url)
        if not record or not record.get("etag"):
            return None
        kind = record["kind"]
        key, _ = _STUB_FIELDS[kind]
        objects = [self._index[kind].get(ref.get(key), ref) for ref in record["refs"]]
        if record["shape"] == "search":
            data: object = {
                "total_count": record["total_count"],
                "incomplete_results": record["incomplete_results"],
                "items": objects,
            }
        elif record["shape"] == "object":
            data = objects[0]
        else:
            data = objects
        return CachedResponse(etag=record["etag"], data=data, next_url=record.get("next"))
