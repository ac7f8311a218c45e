"""Read what the site lists from the reports on disk: each ``<day>.json`` and
the HTML pages beside it.

The site is rebuilt from these files, not from the warehouse, so it lists every
day ever rendered. Each file is checked; a malformed one stops the build with
its path and the bad value, before anything is written.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from pathlib import Path

from vllm_digest.core import day_file
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.text.markdown_safe import plain_inline
from vllm_digest.report.render import report_dir
from vllm_digest.report.weekly import weekly_dir

_DAY_FILE = re.compile(r"^\d{4}-\d{2}-\d{2}\.json$")
KINDS = ("issue", "pr")


class SiteInputError(ValueError):
    """A report file on disk is not what the report asset writes."""


@dataclasses.dataclass(frozen=True)
class HotItem:
    number: int
    kind: str
    title: str


@dataclasses.dataclass(frozen=True)
class ReportDay:
    repo: RepoRef
    day: str
    start: dt.datetime
    end: dt.datetime
    counts: dict[str, int]
    complete: bool
    summary: dict[str, str]
    hot: tuple[HotItem, ...]
    # language -> the HTML page, for the languages whose page exists
    pages: dict[str, Path]
    # language -> the day's top story in one line (plain text; {} for a file written before headlines)
    headline: dict[str, str] = dataclasses.field(default_factory=dict)
    # the last write of the day's files stopped midway: its files may be some new, some old (listed, flagged)
    stale: bool = False


def _fail(path: Path, what: str, value) -> SiteInputError:
    return day_file.fail(SiteInputError, path, what, value)


def _hot(path: Path, doc: dict) -> tuple[HotItem, ...]:
    found = doc.get("hot", [])
    if not isinstance(found, list):
        raise _fail(path, "hot is not a list", found)
    out = []
    for entry in found:
        number = entry.get("number") if isinstance(entry, dict) else None
        if isinstance(number, bool) or not isinstance(number, int) or number <= 0 or entry.get("kind") not in KINDS:
            raise _fail(path, "hot holds an entry without a number and kind", entry)
        out.append(HotItem(number, entry["kind"], plain_inline(str(entry.get("title") or ""), 200)))
    return tuple(out)


def read_day(path: Path, repo: RepoRef, languages: tuple[str, ...]) -> ReportDay:
    """One ``<day>.json``, checked against its name and repo; pages and summaries in ``languages``."""
    day = path.name.removesuffix(".json")
    try:
        doc = day_file.load(path, day, repo, SiteInputError, stale_ok=True)
    except FileNotFoundError as exc:
        raise SiteInputError(f"{path}: not a readable JSON day summary: {exc}") from None
    summary = doc.get("summary") or {}
    if not isinstance(summary, dict):
        raise _fail(path, "summary is not an object", summary)
    pages = {
        lang: page for lang in languages if (page := path.with_name(f"{day}.{lang}.html")).is_file()
    }
    return ReportDay(
        repo=repo,
        day=day,
        start=day_file.window_moment(path, doc, "start", SiteInputError),
        end=day_file.window_moment(path, doc, "end", SiteInputError),
        counts=day_file.counts(path, doc, SiteInputError),
        complete=day_file.complete(doc),
        summary={lang: plain_inline(str(text), 2000) for lang, text in summary.items() if lang in languages},
        hot=_hot(path, doc),
        pages=pages,
        headline={lang: plain_inline(text, 200) for lang, text in day_file.headlines(path, doc, SiteInputError).items()
                  if lang in languages and text},
        stale=day_file.stale(path),
    )


@dataclasses.dataclass(frozen=True)
class ReportWeek:
    """A weekly digest on disk (report/weekly.py): its Monday, Sunday, window, counts and pages."""

    repo: RepoRef
    week: str
    last_day: str
    end: dt.datetime
    counts: dict[str, int]
    complete: bool
    featured: int
    moved: int
    pages: dict[str, Path]


def _count(path: Path, doc: dict, key: str) -> int:
    value = doc.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(path, f"{key} is not a count", value)
    return value


def read_week(path: Path, repo: RepoRef, languages: tuple[str, ...]) -> ReportWeek:
    """One ``weekly/<monday>.json``, checked against its name and repo; pages in ``languages``."""
    week = path.name.removesuffix(".json")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SiteInputError(f"{path}: not a readable JSON week summary: {exc}") from None
    if not isinstance(doc, dict):
        raise _fail(path, "not a JSON object", type(doc).__name__)
    if doc.get("week") != week:
        raise _fail(path, f"week is not {week}", doc.get("week"))
    if doc.get("repo") != repo.full_name:
        raise _fail(path, f"repo is not {repo.full_name}", doc.get("repo"))
    last = doc.get("last_day")
    if not isinstance(last, str) or not _DAY_FILE.match(f"{last}.json"):
        raise _fail(path, "last_day is not a day YYYY-MM-DD", last)
    return ReportWeek(
        repo=repo,
        week=week,
        last_day=last,
        end=day_file.window_moment(path, doc, "end", SiteInputError),
        counts=day_file.counts(path, doc, SiteInputError),
        complete=bool(doc.get("complete", True)),
        featured=_count(path, doc, "featured"),
        moved=_count(path, doc, "moved"),
        pages={lang: page for lang in languages if (page := path.with_name(f"{week}.{lang}.html")).is_file()},
    )


def repo_weeks(settings: Settings, repo: RepoRef) -> list[ReportWeek]:
    """Every rendered weekly digest of one repository, newest first."""
    folder = weekly_dir(settings, repo)
    if not folder.is_dir():
        return []
    files = sorted((p for p in folder.iterdir() if _DAY_FILE.match(p.name)), reverse=True)
    return [read_week(p, repo, settings.languages) for p in files]


def repo_days(settings: Settings, repo: RepoRef) -> list[ReportDay]:
    """Every rendered day of one repository, newest first."""
    folder = report_dir(settings, repo)
    if not folder.is_dir():
        return []
    files = sorted((p for p in folder.iterdir() if _DAY_FILE.match(p.name)), reverse=True)
    return [read_day(p, repo, settings.languages) for p in files]


def catalog(settings: Settings) -> dict[RepoRef, list[ReportDay]]:
    """Every configured repository's rendered days, in configuration order."""
    return {repo: repo_days(settings, repo) for repo in settings.repos}
