"""What a day's message says, read from the report stage's outputs only.

The report stage writes ``reports/<owner>/<name>/<day>.json`` (window, counts, lists, summary,
topics, key changes) beside ``<day>.<lang>.md`` and ``.html``. A message is built from those
files, never from the warehouse, so what is sent is what was rendered. Every value read is
checked; a file that is not what the report stage writes is an error naming its path.

Titles and topic names are untrusted text: the channels put them into plain-text fields of
their payloads (never into markup), and links are built from our configuration, not the file.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os
import re
from pathlib import Path
from urllib.parse import urljoin

from vllm_digest.core import day_file
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.i18n import Catalog
from vllm_digest.core.text.limits import HEADLINE_CHARS
from vllm_digest.core.vocabulary import SET_NAMES

# how much of the day one message shows; the page holds the rest
TOP_TOPICS = 3
TOP_CHANGES = 5
TITLE_CHARS = 200

class DigestInputError(ValueError):
    """A report file is missing or not what the report stage writes; the message names it."""


@dataclasses.dataclass(frozen=True)
class Topic:
    name: dict[str, str]  # language -> display name
    count: int

    def label(self, lang: str) -> str:
        """The name in ``lang``; a day rendered before ``lang`` was configured has only the others."""
        return self.name.get(lang) or next((n for n in self.name.values() if n), "?")


@dataclasses.dataclass(frozen=True)
class Change:
    number: int
    kind: str  # issue or pr
    title: str
    url: str


@dataclasses.dataclass(frozen=True)
class DayDigest:
    """One repository's day as its messages show it."""

    repo: str
    display_name: str
    day: str
    start: dt.datetime
    end: dt.datetime
    timezone: str
    complete: bool
    counts: dict[str, int]
    topics: tuple[Topic, ...]
    changes: tuple[Change, ...]
    # language -> the day's published page, when VLLM_DIGEST_SITE_URL says where the site lives
    page_urls: dict[str, str]
    # language -> the rendered files
    html_paths: dict[str, Path]
    md_paths: dict[str, Path]

    # language -> its message catalog ([delivery]): every word of ours a message prints
    catalogs: dict[str, Catalog] = dataclasses.field(repr=False, compare=False)
    # the warehouse checks the day failed when its report was rendered: such a day is held, not sent
    failed_checks: tuple[str, ...] = ()
    # language -> the day's top story in one line, cleaned (report text from titles: untrusted)
    headline: dict[str, str] = dataclasses.field(default_factory=dict)

    def header(self, lang: str, updated: bool = False) -> str:
        t = self.catalogs[lang]
        return t("delivery.header", name=self.display_name, day=self.day) + (t("delivery.updated") if updated else "")

    def day_headline(self, lang: str) -> str:
        """The top story in ``lang``, or in any language the file has; "" when the day told none."""
        return self.headline.get(lang) or next((h for h in self.headline.values() if h), "")

    def title(self, lang: str, updated: bool = False) -> str:
        """The header and the day's top story: the e-mail subject and the chat message's title."""
        header, headline = self.header(lang, updated), self.day_headline(lang)
        return self.catalogs[lang]("delivery.header_headline", header=header, headline=headline) if headline else header

    def window_line(self, lang: str) -> str:
        offset = self.start.utcoffset() or dt.timedelta(0)
        hours, rest = divmod(int(offset.total_seconds()) // 60, 60)
        label = f"UTC{'+' if offset >= dt.timedelta(0) else '-'}{abs(hours)}" + (f":{rest:02d}" if rest else "")
        return self.catalogs[lang]("delivery.window", start=f"{self.start:%Y-%m-%d %H:%M}",
                                   end=f"{self.end:%Y-%m-%d %H:%M}", offset=label)

    def count_label(self, lang: str, name: str) -> str:
        return self.catalogs[lang](f"delivery.counts.{name}")

    def counts_line(self, lang: str) -> str:
        return " | ".join(f"{self.count_label(lang, k)} {self.counts[k]}" for k in SET_NAMES)

    def topic_labels(self, lang: str) -> list[str]:
        return [self.catalogs[lang]("delivery.topic", name=t.label(lang), count=t.count) for t in self.topics]

    def content(self) -> dict:
        """Everything a message is made of, as plain data: what a channel's content hash covers."""
        return {
            "repo": self.repo, "display_name": self.display_name, "day": self.day,
            "window": {"start": self.start.isoformat(), "end": self.end.isoformat(), "timezone": self.timezone},
            "complete": self.complete, "counts": self.counts, "headline": self.headline,
            "topics": [{"name": t.name, "count": t.count} for t in self.topics],
            "key_changes": [dataclasses.asdict(c) for c in self.changes],
            "urls": self.page_urls,
        }


def content_hash(*parts: object) -> str:
    """sha256 over canonical JSON: the same content always gives the same hash."""
    text = json.dumps(parts, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def report_folder(settings: Settings, repo: RepoRef) -> Path:
    # the report stage's layout: reports/<owner>/<name>/
    return settings.reports_dir / repo.owner / repo.name


def page_url(settings: Settings, page: Path) -> str | None:
    """The page's address on the published site: ``site_url`` is the folder of ``site/index.html``,
    and the reports sit beside ``site/`` there as they do in the data home."""
    if not settings.site_url:
        return None
    return urljoin(settings.site_url, Path(os.path.relpath(page, settings.site_dir)).as_posix())


def _fail(path: Path, what: str, value) -> DigestInputError:
    return day_file.fail(DigestInputError, path, what, value)


# removed from untrusted text before it goes into a message or a header, whatever the report stage did:
# C0 and C1 controls (a newline in a subject adds a header), bidi controls (an unterminated U+202E
# mirrors the rest of a chat line) and invisible characters
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")


def clean_line(value) -> str:
    """One line of plain text: every run of whitespace (line breaks too) one space, controls gone."""
    return _CONTROLS.sub("", " ".join(str(value or "").split()))


def _text(value, limit: int = TITLE_CHARS) -> str:
    # one line of at most `limit` characters: a title can hold newlines and control characters
    text = clean_line(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _topics(path: Path, doc: dict) -> tuple[Topic, ...]:
    found = doc.get("topics", [])
    if not isinstance(found, list):
        raise _fail(path, "topics is not a list", found)
    out = []
    for entry in found[:TOP_TOPICS]:
        name, count = (entry.get("name"), entry.get("count")) if isinstance(entry, dict) else (None, None)
        if not isinstance(name, dict) or isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise _fail(path, "topics holds an entry without a name table and a count", entry)
        out.append(Topic({str(k): _text(v, 80) for k, v in name.items()}, count))
    return tuple(out)


def _changes(path: Path, doc: dict, settings: Settings, repo: RepoRef) -> tuple[Change, ...]:
    found = doc.get("key_changes", [])
    if not isinstance(found, list):
        raise _fail(path, "key_changes is not a list", found)
    out = []
    for entry in found[:TOP_CHANGES]:
        number = entry.get("number") if isinstance(entry, dict) else None
        if isinstance(number, bool) or not isinstance(number, int) or number <= 0 or entry.get("kind") not in ("issue", "pr"):
            raise _fail(path, "key_changes holds an entry without a number and kind", entry)
        # the link comes from our configuration and the number, never from the file
        url = f"{settings.github_web_url}/{repo.full_name}/{'pull' if entry['kind'] == 'pr' else 'issues'}/{number}"
        out.append(Change(number, entry["kind"], _text(entry.get("title")), url))
    return tuple(out)


def read_digest(settings: Settings, repo: RepoRef, day: str) -> DayDigest:
    """The day's digest from ``<day>.json`` and the pages beside it."""
    folder = report_folder(settings, repo)
    path = folder / f"{day}.json"
    try:
        doc = day_file.load(path, day, repo, DigestInputError)
    except FileNotFoundError:
        raise DigestInputError(f"{path}: no report for {repo.full_name} {day}: materialize its daily_report first") from None
    html = {lang: folder / f"{day}.{lang}.html" for lang in settings.languages}
    md = {lang: folder / f"{day}.{lang}.md" for lang in settings.languages}
    for page in (*html.values(), *md.values()):
        if not page.is_file():
            raise DigestInputError(f"{page}: missing beside {path.name}: the report stage writes every configured language")
    urls = {lang: url for lang, page in html.items() if (url := page_url(settings, page))}
    return DayDigest(
        repo=repo.full_name,
        # refused with a control character at load; cleaned here too, as it becomes the e-mail subject
        display_name=clean_line(settings.display_name(repo)),
        day=day,
        start=day_file.window_moment(path, doc, "start", DigestInputError),
        end=day_file.window_moment(path, doc, "end", DigestInputError),
        timezone=clean_line((doc.get("window") or {}).get("timezone") or settings.timezone),
        complete=day_file.complete(doc),
        counts=day_file.counts(path, doc, DigestInputError),
        topics=_topics(path, doc),
        changes=_changes(path, doc, settings, repo),
        page_urls=urls,
        html_paths=html,
        md_paths=md,
        catalogs={lang: settings.catalog(lang) for lang in settings.languages},
        failed_checks=day_file.failed_checks(doc),
        headline={lang: _text(text, HEADLINE_CHARS)
                  for lang, text in day_file.headlines(path, doc, DigestInputError).items() if clean_line(text)},
    )
