"""The Atom 1.0 feed (RFC 4287): one entry per repository and day.

Ids are ``urn:uuid:`` name-based UUIDs (RFC 4122 version 5) of the repository's
GitHub page and the day, so an entry keeps its id across rebuilds and machines.
``updated`` is the end of the day's window: a rebuild of the same inputs gives
the same bytes, and no wall-clock time enters the feed.
"""

from __future__ import annotations

import re
import uuid
import xml.etree.ElementTree as ET

from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.report.build import item_url
from vllm_digest.report.render import relative_href
from vllm_digest.site.catalog import ReportDay, ReportWeek
from vllm_digest.site.pages import render_page

ATOM = "http://www.w3.org/2005/Atom"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
# characters XML 1.0 cannot carry at all, not even escaped
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    return _NOT_XML.sub("", text)


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    node = ET.SubElement(parent, tag, attrs)
    if text is not None:
        node.text = xml_text(text)
    return node


def feed_id(settings: Settings) -> str:
    names = "+".join(r.full_name for r in settings.repos)
    return uuid.uuid5(uuid.NAMESPACE_URL, f"{settings.github_web_url}/{names}#vllm-digest").urn


def entry_id(settings: Settings, repo: RepoRef, day: str) -> str:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"{settings.github_web_url}/{repo.full_name}#vllm-digest/{day}").urn


def rfc3339(day: ReportDay) -> str:
    return day.end.isoformat(timespec="seconds")


def entry_title(settings: Settings, day: ReportDay) -> str:
    t = settings.catalog(settings.feed_language)
    title = t("feed.entry", name=settings.display_name(day.repo), day=day.day, **day.counts)
    title += "" if day.complete else t("feed.incomplete")
    title += t("feed.stale") if day.stale else ""
    # the day's top story, in the feed's language: what a reader skimming titles wants
    headline = day.headline.get(settings.feed_language) or next(iter(day.headline.values()), "")
    return t("feed.entry_headline", title=title, headline=headline) if headline else title


def entry_content(settings: Settings, day: ReportDay) -> str:
    """The entry body as HTML (Atom ``type="html"``): the summaries and the hottest items."""
    hot = [
        {"url": item_url(settings, day.repo, h.kind, h.number), "ref": f"#{h.number}", "title": h.title}
        for h in day.hot
    ]
    summaries = [{"lang": lang, "text": day.summary[lang]} for lang in settings.languages if lang in day.summary]
    return render_page("feed_entry.html.j2", summaries=summaries, hot=hot)


def week_entry_id(settings: Settings, repo: RepoRef, week: str) -> str:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"{settings.github_web_url}/{repo.full_name}#vllm-digest/week/{week}").urn


def _week_entry(settings: Settings, root: ET.Element, week: ReportWeek) -> None:
    t = settings.catalog(settings.feed_language)
    title = t("feed.week_entry", name=settings.display_name(week.repo), week=week.week, last_day=week.last_day,
              **week.counts) + ("" if week.complete else t("feed.incomplete"))
    updated = week.end.isoformat(timespec="seconds")
    entry = _sub(root, "entry")
    _sub(entry, "id", week_entry_id(settings, week.repo, week.week))
    _sub(entry, "title", title)
    _sub(entry, "updated", updated)
    _sub(entry, "published", updated)
    for lang, page in week.pages.items():
        _sub(entry, "link", rel="alternate", type="text/html", hreflang=lang, href=relative_href(page, settings.site_dir))
    _sub(entry, "summary", t("feed.week_summary", featured=week.featured, moved=week.moved), type="text")


def atom_feed(settings: Settings, days: list[ReportDay], weeks: list[ReportWeek] = ()) -> str:
    """The feed over ``days`` and ``weeks`` (any order; written newest first, a week after the day that
    closes it)."""
    days = sorted(days, key=lambda d: (d.end, d.repo.full_name), reverse=True)
    weeks = sorted(weeks, key=lambda w: (w.end, w.repo.full_name), reverse=True)
    t = settings.catalog(settings.feed_language)
    names = ", ".join(settings.display_name(r) for r in settings.repos)
    root = ET.Element("feed", {"xmlns": ATOM, XML_LANG: settings.feed_language})
    if settings.site_url:
        # RFC 4287 resolves the relative links below against xml:base: absolute once published
        root.set(XML_BASE, settings.site_url)
    _sub(root, "id", feed_id(settings))
    _sub(root, "title", t("feed.title", names=names))
    _sub(root, "subtitle", t("feed.subtitle"))
    # an empty feed still needs a stable updated: the first day the settings cover
    newest = max([d.end for d in days] + [w.end for w in weeks], default=None)
    _sub(root, "updated", newest.isoformat(timespec="seconds") if newest else f"{settings.start_date.isoformat()}T00:00:00Z")
    _sub(root, "link", rel="self", type="application/atom+xml", href="feed.xml")
    _sub(root, "link", rel="alternate", type="text/html", href="index.html")
    author = _sub(root, "author")
    _sub(author, "name", "vllm-digest")
    _sub(root, "generator", "vllm-digest")
    # newest first: a week's entry stands just above the day that closes it
    pending = list(weeks)
    for day in days:
        while pending and pending[0].end >= day.end:
            _week_entry(settings, root, pending.pop(0))
        entry = _sub(root, "entry")
        _sub(entry, "id", entry_id(settings, day.repo, day.day))
        _sub(entry, "title", entry_title(settings, day))
        _sub(entry, "updated", rfc3339(day))
        _sub(entry, "published", rfc3339(day))
        for lang, page in day.pages.items():
            _sub(entry, "link", rel="alternate", type="text/html", hreflang=lang,
                 href=relative_href(page, settings.site_dir))
        summary = day.summary.get(settings.feed_language) or next(iter(day.summary.values()), entry_title(settings, day))
        _sub(entry, "summary", summary, type="text")
        _sub(entry, "content", entry_content(settings, day), type="html")
    for week in pending:
        _week_entry(settings, root, week)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
