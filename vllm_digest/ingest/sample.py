"""The embedded sample: real vLLM activity shipped inside the package.

A sample folder holds ``issues.jsonl``, ``events.jsonl`` and optionally
``pulls.jsonl``, ``comments.jsonl``, ``review_comments.jsonl`` and
``reviews.jsonl`` (plain or ``.gz``), in GitHub REST shapes, plus
``expected.json`` or ``coverage.json`` saying which period it covers. A day is
served the way the live API would answer it: the items created in the window or
touched by its events and comments, and the events and comments of the window.
"""

from __future__ import annotations

import bisect
import datetime as dt
import functools
import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from vllm_digest.core import gc_pause
from vllm_digest.core.calendar import DayWindow
from vllm_digest.core.config.settings import RepoRef
from vllm_digest.core.sample_coverage import coverage_end, embedded_sample_root, sample_coverage
from vllm_digest.core.vocabulary import DayPayload, Manifest
from vllm_digest.ingest.github.rest import number_from_url, parse_time


__all__ = ["coverage_end", "embedded_sample_root", "fetch_sample_day", "load_sample", "SampleFileError"]


class SampleFileError(ValueError):
    """A sample file holds a line that is not a JSON object; the message names file and line."""


def _read_jsonl(folder: Path, stem: str) -> list[dict]:
    for name, opener in ((f"{stem}.jsonl.gz", gzip.open), (f"{stem}.jsonl", open)):
        path = folder / name
        if path.is_file():
            with opener(path, "rt", encoding="utf-8") as fh:
                return [_parse_line(path, number, line) for number, line in enumerate(fh, 1) if line.strip()]
    return []


def _parse_line(path: Path, number: int, line: str) -> dict:
    """One JSONL row; json's own message ("Expecting value: line 2 column 1") names neither
    the file nor the file's line, so a bad row is reported with both and with the text where
    parsing stopped."""
    text = line.rstrip("\r\n")
    try:
        row = json.loads(text)
    except json.JSONDecodeError as exc:
        found = repr(text[exc.pos:exc.pos + 40]) if exc.pos < len(text) else "the end of the line (cut off?)"
        raise SampleFileError(
            f"{path} line {number}: not valid JSON ({exc.msg}; column {exc.colno} reads {found}); "
            f"the line starts {text[:60]!r}"
        ) from None
    if not isinstance(row, dict):
        raise SampleFileError(f"{path} line {number}: expected a JSON object, got {type(row).__name__} {text[:60]!r}")
    return row


class _Timeline:
    """Rows sorted by their ``created_at``, for window slicing by bisection."""

    def __init__(self, rows: list[dict]):
        keyed = sorted(
            ((parse_time(r["created_at"]), i, r) for i, r in enumerate(rows) if r.get("created_at")),
            key=lambda t: (t[0], t[1]),
        )
        self.times = [t for t, _, _ in keyed]
        self.rows = [r for _, _, r in keyed]

    def between(self, start: dt.datetime, end: dt.datetime) -> list[dict]:
        lo = bisect.bisect_left(self.times, start)
        hi = bisect.bisect_left(self.times, end)
        return self.rows[lo:hi]


@dataclass
class SampleData:
    folder: Path
    items: dict[int, dict]
    created: _Timeline
    events: _Timeline
    comments: _Timeline
    review_comments: _Timeline
    reviews: _Timeline
    pulls: dict[int, dict]
    coverage: tuple[dt.datetime, dt.datetime] | None

    def covers(self, window: DayWindow) -> bool:
        return self.coverage is not None and (
            self.coverage[0] <= window.start and window.end <= self.coverage[1]
        )


@functools.lru_cache(maxsize=8)
def load_sample(folder: Path) -> SampleData:
    if not (folder.is_dir() and (any(folder.glob("issues.jsonl*")))):
        raise FileNotFoundError(f"no sample data (issues.jsonl) in {str(folder)!r}")
    # JSON rows (dicts, lists, strings) hold no reference cycles: the collector's passes over a year's
    # 254,000 rows as they are built found nothing and were half the load (3.7 -> 1.9 s CPU)
    with gc_pause.paused():
        return _load_sample(folder)


def _load_sample(folder: Path) -> SampleData:
    items = {row["number"]: row for row in _read_jsonl(folder, "issues")}
    reviews = _read_jsonl(folder, "reviews")
    for r in reviews:  # reviews carry submitted_at, not created_at
        r.setdefault("created_at", r.get("submitted_at"))
    return SampleData(
        folder=folder,
        items=items,
        created=_Timeline(list(items.values())),
        events=_Timeline(_read_jsonl(folder, "events")),
        comments=_Timeline(_read_jsonl(folder, "comments")),
        review_comments=_Timeline(_read_jsonl(folder, "review_comments")),
        reviews=_Timeline(reviews),
        pulls={row["number"]: row for row in _read_jsonl(folder, "pulls")},
        coverage=sample_coverage(folder),
    )


def sample_folder(repo: RepoRef, root: Path | None = None) -> Path:
    base = root if root is not None else embedded_sample_root()
    folder = base / f"{repo.owner}__{repo.name}"
    if not folder.is_dir():
        raise FileNotFoundError(
            f"the sample source has no data for repo {repo.full_name!r} "
            f"(looked in {str(folder)!r}); use VLLM_DIGEST_SOURCE=github for other repos"
        )
    return folder


def fetch_sample_day(repo: RepoRef, window: DayWindow, root: Path | None = None) -> DayPayload:
    data = load_sample(sample_folder(repo, root))
    events = data.events.between(window.start, window.end)
    comments = data.comments.between(window.start, window.end)
    review_comments = data.review_comments.between(window.start, window.end)
    reviews = data.reviews.between(window.start, window.end)
    numbers = {row["number"] for row in data.created.between(window.start, window.end)}
    numbers |= {e["issue"]["number"] for e in events}
    numbers |= {n for c in comments if (n := number_from_url(c.get("issue_url"))) is not None}
    numbers |= {n for c in review_comments if (n := number_from_url(c.get("pull_request_url"))) is not None}
    numbers |= {n for r in reviews if (n := number_from_url(r.get("pull_request_url"))) is not None}
    issues = [data.items[n] for n in sorted(numbers) if n in data.items]
    pulls = [data.pulls[n] for n in sorted(numbers) if n in data.pulls]
    covered = data.covers(window)
    manifest = Manifest(
        source="sample",
        repo=repo.full_name,
        day=window.key,
        window_start=window.start.isoformat(),
        window_end=window.end.isoformat(),
        semantics="events",
        complete=covered,
        incomplete_reasons=[] if covered else ["the window is outside the sample's coverage"],
        # said, not left blank: the sample's lists are the recorded events themselves, with nothing to search
        cross_check={"applied": False, "why": "the sample source has no search to check its lists against"},
    )
    return DayPayload(
        issues=issues,
        events=sorted(events, key=lambda e: (e["created_at"], e["id"])),
        comments=comments,
        review_comments=review_comments,
        reviews=reviews,
        pulls=pulls,
        manifest=manifest,
    )
