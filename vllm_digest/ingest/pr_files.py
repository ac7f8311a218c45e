"""The files a PR changes (``GET /pulls/{n}/files``), asked for a day's few candidates and kept across runs.

Where a change lands in the code (the scheduler, ROCm kernels, models) is read from its files' paths by
the taxonomy's ``[[area]]`` rules. A PR's files change only when the PR does, so each PR's list is kept
with its ETag and the PR's ``updated_at`` in one JSON file per repository beside its landed days
(``<raw>/<owner>/<name>/pr_files.json``): an unchanged PR costs no request, a changed one a conditional
request (a 304 costs no rate limit).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from vllm_digest.files import atomic_write_text
from vllm_digest.ingest.github.client import CachedResponse

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


@dataclass
class FilesCache:
    """PR number (as text) -> {"etag", "updated_at" (the PR's, when its files were read), "files"}."""

    path: Path | None = None
    entries: dict[str, dict] = field(default_factory=dict)
    changed: bool = False

    @classmethod
    def load(cls, path: Path) -> "FilesCache":
        if not path.is_file():
            return cls(path)
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"PR files cache {str(path)!r} is not valid JSON (line {exc.lineno}): {exc.msg}; "
                             "delete it to fetch the files again") from None
        if not isinstance(entries, dict):
            raise ValueError(f"PR files cache {str(path)!r} holds {type(entries).__name__}, not an object of PRs")
        return cls(path, entries)

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

    def save(self) -> None:
        if self.path is not None and self.changed:
            atomic_write_text(self.path, json.dumps(self.entries, ensure_ascii=False, sort_keys=True, indent=0) + "\n")
            self.changed = False
