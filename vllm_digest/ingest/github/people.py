"""Account profiles (``GET /users/{login}``) fetched once per login and refreshed monthly.

Whether an author works for a focus area's vendor is read from their profile's company and bio
(the warehouse matches the taxonomy's patterns), never guessed from the login. A profile rarely
changes, so each login is asked once and then again only when its copy is older than
``REFRESH_DAYS``, with its ETag: an unchanged profile answers 304 and costs no rate limit.

The copies live in one JSON file per repository beside its landed days
(``<raw>/<owner>/<name>/people.json``), written atomically after each landing; each day's
``users.jsonl`` holds the profiles of that day's authors as they were then, which the warehouse
lands as ``stg_users`` and joins into ``core_people``.
"""

from __future__ import annotations

import datetime as dt

from vllm_digest.ingest.github.client import CachedResponse
from vllm_digest.ingest.github.json_cache import JsonCache


REFRESH_DAYS = 30
# the profile fields kept: enough to tell an affiliation, nothing more
PROFILE_FIELDS = ("login", "name", "company", "bio", "type")
PEOPLE_FILE = "people.json"


def profile_of(user: dict) -> dict:
    return {k: user.get(k) for k in PROFILE_FIELDS}


class PeopleCache(JsonCache):
    """login (lower case) -> {"etag", "fetched_at" (ISO), "profile" (None: no such account)}."""

    WHAT = "people cache"
    KEYS = "logins"

    def entry(self, login: str) -> dict | None:
        return self.entries.get(login.lower())

    def is_due(self, login: str, now: dt.datetime) -> bool:
        """Never fetched, or fetched more than ``REFRESH_DAYS`` ago."""
        found = self.entry(login)
        if not found or not found.get("fetched_at"):
            return True
        fetched = dt.datetime.fromisoformat(found["fetched_at"])
        return now - fetched > dt.timedelta(days=REFRESH_DAYS)

    def cached_response(self, login: str) -> CachedResponse | None:
        """What a 304 for this login's profile reuses."""
        found = self.entry(login)
        if not found or not found.get("etag") or found.get("profile") is None:
            return None
        return CachedResponse(found["etag"], found["profile"])

    def store(self, login: str, profile: dict | None, etag: str | None, now: dt.datetime) -> None:
        self.entries[login.lower()] = {"etag": etag, "fetched_at": now.isoformat(timespec="seconds"),
                                      "profile": profile}
        self.changed = True

