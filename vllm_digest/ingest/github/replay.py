"""Conditional requests across runs, without a second copy of the data.

For every URL a day's fetch read, the manifest keeps its ETag, its ``next``
link and a compact reference to the body: the ids of the objects it held
(plus the few fields the request plan branches on). On a re-fetch, a 304 is
answered by rebuilding the body from the day's already-landed payload, so an
unchanged day costs no rate limit and no extra storage.

An object the day did not land (an event after the window, an item the day does not hold) is rebuilt
as its reference: a stub of the few fields the plan's paging and filtering read, never landed. Each
reference says which it is: ``mark_landed`` flags those the day did not land (``"stub": true``) once
the day's payload is known, and a page with a reference *not* so flagged whose object the previous
landing lacks (a landing cut short, a manifest of older code that flags nothing) is not replayed:
the client asks it again whole, without its ETag, so a stub never stands in for a landed object.
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


def landed_index(payload: DayPayload) -> dict[str, dict]:
    """kind -> key -> the landed object a replayed page can be rebuilt from."""
    index: dict[str, dict] = {kind: {} for kind in _STUB_FIELDS}
    for kind, (key, _) in _STUB_FIELDS.items():
        for obj in getattr(payload, kind):
            index[kind][obj.get(key)] = obj
    # events embed the issue they belong to, so they also vouch for issues
    for event in payload.events:
        issue = event.get("issue")
        if isinstance(issue, dict) and "title" in issue:
            index["issues"].setdefault(issue.get("number"), issue)
    return index


def mark_landed(replay: dict[str, dict], payload: DayPayload, wanted: dict[str, set] | None = None) -> None:
    """Flag each reference of the day's replay records whose object ``payload`` does not hold (``"stub"``).
    ``wanted`` (kind -> keys) are objects the day needed but did not land whole: left unflagged, so the
    next landing asks their pages again whole."""
    index = landed_index(payload)
    for record in replay.values():
        key, _ = _STUB_FIELDS[record["kind"]]
        needed = (wanted or {}).get(record["kind"], ())
        for ref in record["refs"]:
            if ref.get(key) not in index[record["kind"]] and ref.get(key) not in needed:
                ref["stub"] = True
            else:
                ref.pop("stub", None)


class ReplayCache:
    """Serves the previous landing's bodies to the client for 304 answers."""

    def __init__(self, previous: DayPayload | None):
        details = previous.manifest.details if previous is not None else {}
        self._records: dict = details.get("replay") or {}
        self._index = landed_index(previous) if previous is not None else {kind: {} for kind in _STUB_FIELDS}
        # the pages not replayed because the landing lacks an object they held, asked again whole
        self.unreplayable: list[str] = []
        self._served: dict[int, tuple[object, dict]] = {}  # id -> (key, the stub served)

    def get(self, url: str) -> CachedResponse | None:
        record = self._records.get(url)
        if not record or not record.get("etag"):
            return None
        kind = record["kind"]
        key, _ = _STUB_FIELDS[kind]
        index = self._index[kind]
        if any(ref.get(key) not in index and not ref.get("stub") for ref in record["refs"]):
            self.unreplayable.append(url)
            return None
        objects = [index.get(ref.get(key)) or self._stub_of(key, ref) for ref in record["refs"]]
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

    def _stub_of(self, key: str, ref: dict) -> dict:
        stub = {k: v for k, v in ref.items() if k != "stub"}
        self._served[id(stub)] = (ref.get(key), stub)
        return stub

    def _served_key(self, row: dict):
        """The key of ``row`` if it is a stub this cache served, else None."""
        hit = self._served.get(id(row))
        return hit[0] if hit is not None and hit[1] is row else None

    def take_stubs(self, payload: DayPayload) -> dict[str, set]:
        """Take out of ``payload`` the rows that are stubs this cache served (none, unless the plan kept an
        object the previous landing did not hold from a page that answered 304); kind -> their keys."""
        found: dict[str, set] = {}
        for kind in _STUB_FIELDS:
            rows = getattr(payload, kind)
            stubs = [row for row in rows if self._served_key(row) is not None]
            if stubs:
                found[kind] = {self._served_key(row) for row in stubs}
                setattr(payload, kind, [row for row in rows if self._served_key(row) is None])
        return found
