"""Render a day's reports with Jinja2 and the language's catalog, and write the report files."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import jinja2

from vllm_digest.core import day_file
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.files import sweep_leftovers, write_together
from vllm_digest.core.text.markdown_safe import md_inline
from vllm_digest.report.day.model import DayReport


@functools.lru_cache(maxsize=2)
def environment(autoescape: bool) -> jinja2.Environment:
    """The reports' templates, one environment per format: ``autoescape`` for HTML pages (untrusted text prints
    as text), without for Markdown (whose untrusted fields pass ``md_inline``). The weekly digest renders with it."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("vllm_digest.report", "templates"),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_markdown(report: DayReport) -> str:
    # the headline holds a name from the titles: made inert Markdown like every untrusted field
    return environment(False).get_template("report.md.j2").render(report=report, t=report.catalog.tree,
                                                                    headline=md_inline(report.headline, 200))


def render_html_template(name: str, **values) -> str:
    """Any HTML page of ours: autoescaped, so untrusted text prints as text."""
    return environment(True).get_template(name).render(**values)


def relative_href(target: Path, start: Path) -> str:
    """A link from a page in ``start`` to ``target`` that works from file:// and any web server."""
    return Path(os.path.relpath(target, start)).as_posix()


def report_dir(settings: Settings, repo: RepoRef) -> Path:
    return settings.reports_dir / repo.owner / repo.name


def page_links(settings: Settings, repo: RepoRef, day: str, language: str) -> dict:
    """Where a day's HTML page links to: the site index and its other languages."""
    return {
        "index": relative_href(settings.site_dir / "index.html", report_dir(settings, repo)),
        "markdown": f"{day}.{language}.md",
        "languages": [
            {"lang": lang, "label": settings.catalog(lang)("language.name"), "href": f"{day}.{lang}.html",
             "current": lang == language}
            for lang in settings.languages
        ],
    }


def render_html(report: DayReport, links: dict) -> str:
    return render_html_template("report.html.j2", report=report, t=report.catalog.tree, links=links)


def summary_json(reports: tuple[DayReport, ...]) -> str:
    """``<day>.json``: the window, the five counts and the five lists' numbers, plus each language's
    summary paragraph and the hottest items that the site's feed shows, and the topics and key
    changes that delivery's messages show."""
    first = reports[0]
    hot = first.section("discussions").groups
    changes = first.section("key_changes").groups
    # the topics as the topics chart holds them: the same rows in every language, named in each
    topic_rows = {r.language: r.section("topics").chart.rows for r in reports}
    doc = {
        "repo": first.repo,
        "day": first.day,
        "window": {"start": first.window.start, "end": first.window.end, "timezone": first.window.timezone},
        "counts": dict(first.counts),
        "lists": {name: [i.number for i in items] for name, items in first.lists.items()},
        "fetch": {
            "source": first.fetch.source,
            "semantics": first.fetch.semantics,
            "complete": first.fetch.complete,
            "incomplete_reasons": list(first.fetch.incomplete_reasons),
            "failed_checks": list(first.fetch.failed_checks),
        },
        "summary": {r.language: r.section("summary").lead for r in reports},
        # the day's top story in one line per language: the site index, the feed, chat and e-mail read it
        "headline": {r.language: r.headline for r in reports},
        "hot": [{"number": e.number, "kind": e.kind, "title": e.title} for g in hot for e in g.items],
        "topics": [
            {"name": {lang: rows[i].label for lang, rows in topic_rows.items()}, "count": int(row.value)}
            for i, row in enumerate(topic_rows[first.language])
        ],
        "key_changes": [{"number": e.number, "kind": e.kind, "title": e.title} for g in changes for e in g.items],
    }
    return day_file.dump(doc)


def write_report(settings: Settings, repo: RepoRef, reports: tuple[DayReport, ...]) -> dict[str, Path]:
    """Write ``<day>.<lang>.md`` and ``.html`` per language and ``<day>.json``; returns name -> path.

    The day's files change together: all are rendered first, then written as one group (core/files.py:
    write_together). A process killed while writing them leaves every old file, or, when it was killed among
    the renames, a day whose ``.<day>.replacing`` marker makes the site flag it and delivery hold it as stale
    until the day is rendered again; ``<day>.json`` is renamed last."""
    folder = report_dir(settings, repo)
    day = reports[0].day
    written: dict[str, Path] = {}
    texts: dict[Path, str] = {}
    for report in reports:
        lang = report.language
        written[f"{lang}.md"] = folder / f"{day}.{lang}.md"
        texts[written[f"{lang}.md"]] = render_markdown(report)
        written[f"{lang}.html"] = folder / f"{day}.{lang}.html"
        texts[written[f"{lang}.html"]] = render_html(report, page_links(settings, repo, day, lang))
    written["json"] = folder / f"{day}.json"
    texts[written["json"]] = summary_json(reports)
    write_together(texts, day)
    return written


def sweep_report_leftovers(settings: Settings, repo: RepoRef, step_start: float) -> list[Path]:
    """Remove the temporaries of day files that killed writers left in the repository's report folder (older
    than ``step_start``, of a day no live writer holds), and the markers of day writes killed before any rename;
    the markers of stale days stay until those days are rendered again."""
    return sweep_leftovers(report_dir(settings, repo), day_file.day_of_file, step_start)


class _Partials(jinja2.BaseLoader):
    """The report's templates whose name starts with ``_`` (the page head, its style, the blocks and the
    narrative body they use); a page of the report itself is no partial and is not found."""

    def __init__(self) -> None:
        self._templates = jinja2.PackageLoader("vllm_digest.report", "templates")

    def get_source(self, environment: jinja2.Environment, template: str):
        if not template.startswith("_"):
            raise jinja2.TemplateNotFound(template)
        return self._templates.get_source(environment, template)


def shared_partials() -> jinja2.BaseLoader:
    """A loader of the report's shared partials, for another stage's pages (the site's) to look like the
    report's: that stage's environment puts it after its own templates."""
    return _Partials()
