"""Render a day's context with Jinja2 and write the report files."""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

from vllm_digest.files import atomic_write_text
from vllm_digest.report.context import summary_json
from vllm_digest.settings import RepoRef, Settings


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


def report_dir(settings: Settings, repo: RepoRef) -> Path:
    return settings.reports_dir / repo.owner / repo.name


def write_report(settings: Settings, repo: RepoRef, context: dict) -> dict[str, Path]:
    """Write ``<day>.<lang>.md`` per language and ``<day>.json``; returns name -> path."""
    folder = report_dir(settings, repo)
    day = context["day"]
    written: dict[str, Path] = {}
    for lang in settings.languages:
        written[f"{lang}.md"] = atomic_write_text(folder / f"{day}.{lang}.md", render_markdown(context, lang))
    written["json"] = atomic_write_text(folder / f"{day}.json", summary_json(context))
    return written
