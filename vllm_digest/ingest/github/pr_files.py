"""The files a PR changes (``GET /pulls/{n}/files``), asked for a day's few candidates and kept across runs.

Where a change lands in the code (the scheduler, ROCm kernels, models) is read from its files' paths by
the taxonomy's ``[[area]]`` rules. A PR's files change only when the PR does, so each PR's list is kept
with its ETag and the PR's ``updated_at`` in one JSON file per repository beside its landed days
(``<raw>/<owner>/<name>/pr_files.json``): an unchanged PR costs no request, a changed one a conditional
request (a 304 costs no rate limit).
"""

from __future__ import annotations

import re

from vllm_digest.ingest.github.client import CachedResponse
from vllm_digest.ingest.github.json_cache import JsonCache


FILES_FILE = "pr_files.json"
# the fields of a changed file kept: enough to place it and weigh it
FILE_FIELDS = ("filename", "status", "additions", "deletions")
_TAG = re.compile(r"\[([^\]]+)\]")


def file_rows(number: int, files: list[dict]) -> list[dict]:
    return [{"number": number, **{k: f.get(k) for k in FILE_FIELDS}} for f in files if isinstance(f, dict)]


def title_tags(title: str | None) -> set[str]:
    """A title's bracketed tags, lower case, whole and split on '/': "[ROCm][CI/Build]" -> rocm, ci/build, ci, build."""
    out: set[str] = set()
    for tag in _TAG.findall(title or ""):
        tag = tag.strip().lower()
        out |= {tag, *(p.strip() for p in tag.split("/") if p.strip())}
    return out


class FilesCache(JsonCache):
    """PR number (as text) -> {"etag", "updated_at" (the PR's, when its files were read), "files"}."""

    WHAT = "PR files cache"
    KEYS = "PRs"

    def entry(self, number: int) -> dict | None:
        return self.entries.get(str(number))

    def cached_response(self, number: int) -> CachedResponse | None:
        found = self.entry(number)
        if not found or not found.get("etag"):
            return None
        return CachedResponse(found["etag"], found["files"])

    def store(self, number: int, files: list[dict], etag: str | None, updated_at: str | None) -> None:
        self.entries[str(number)] = {"etag": etag, "updated_at": updated_at,
                                     "files": [{k: f.get(k) for k in FILE_FIELDS} for f in files]}
        self.changed = True

