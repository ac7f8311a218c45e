"""Rebuild ``site/index.html`` and ``site/feed.xml`` from the reports on disk."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from vllm_digest.core.config.settings import Settings
from vllm_digest.core.files import atomic_write_text
from vllm_digest.site.catalog import catalog, repo_weeks
from vllm_digest.site.feed import atom_feed
from vllm_digest.site.index import index_html


@dataclasses.dataclass(frozen=True)
class SiteBuild:
    index: Path
    feed: Path
    days: int
    repos: int
    weeks: int
    newest_day: str | None


def build_site(settings: Settings) -> SiteBuild:
    """Both files are rendered before either is written, so a bad input changes nothing."""
    found = catalog(settings)
    weekly = {repo: repo_weeks(settings, repo) for repo in settings.repos}
    days = [d for repo_days in found.values() for d in repo_days]
    weeks = [w for repo_weeks_ in weekly.values() for w in repo_weeks_]
    index, feed = index_html(settings, found, weekly), atom_feed(settings, days, weeks)
    site = settings.site_dir
    return SiteBuild(
        index=atomic_write_text(site / "index.html", index),
        feed=atomic_write_text(site / "feed.xml", feed),
        days=len(days),
        weeks=len(weeks),
        repos=len(found),
        newest_day=max((d.day for d in days), default=None),
    )
