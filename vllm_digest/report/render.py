"""Render a day's context with Jinja2 and write the report files."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import jinja2

from vllm_digest.files import atomic_write_text
from vllm_digest.report.context import summary_json
from vllm_digest.settings import RepoRef, Settings

LANGUAGE_NAMES = {"zh": "中文", "en": "English"}


@functools.lru_cache(maxsize=2)
def _environment(autoescape: bool) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("vllm_digest.report", "templates"),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_markdown(context: dict, language: str) -> str:
    return _environment(False).get_template(f"report.{language}.md.j2").render(**context)


def render_html_template(name: str, **values) -> str:
    """Any HTML page of ours: autoescaped, so untrusted text prints as text."""
    return _environment(True).get_template(name).render(**values)


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
            {"lang": lang, "label": LANGUAGE_NAMES[lang], "href": f"{day}.{lang}.html", "current": lang == language}
            for lang in settings.languages
        ],
    }


def render_html(context: dict, language: str, links: dict) -> str:
    return render_html_template(f"report.{language}.html.j2", **context, links=links)


def write_report(settings: Settings, repo: RepoRef, context: dict) -> dict[str, Path]:
    """Write ``<day>.<lang>.md`` and ``.html`` per language and ``<day>.json``; returns name -> path."""
    folder = report_dir(settings, repo)
    day = context["day"]
    written: dict[str, Path] = {}
    for lang in settings.languages:
        written[f"{lang}.md"] = atomic_write_text(folder / f"{day}.{lang}.md", render_markdown(context, lang))
        html = render_html(context, lang, page_links(settings, repo, day, lang))
        written[f"{lang}.html"] = atomic_write_text(folder / f"{day}.{lang}.html", html)
    written["json"] = atomic_write_text(folder / f"{day}.json", summary_json(context))
    return written
