"""Rebuild ``site/index.html`` and ``site/feed.xml`` from the reports on disk."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from vllm_digest.files import atomic_write_text
from vllm_digest.settings import Settings
from vllm_digest.site.catalog import catalog
from vllm_digest.site.feed import atom_feed
from vllm_digest.site.index import index_html


@dataclasses.dataclass(frozen=True)
class SiteBuild:
    index: Path
    feed: Path
    days: int
    repos: int
    newest_day: str | None


def build_site(settings: Settings) -> SiteBuild:
    """Both files are rendered before either is written, so a bad input changes nothing."""
    found = catalog(settings)
    days = [d for repo_days in found.values() for d in repo_days]
    index, feed = index_html(settings, found), atom_feed(settings, days)
    site = settings.site_dir
    return SiteBuild(
        index=atomic_write_text(site / "index.html", index),
        feed=atomic_write_text(site / "feed.xml", feed),
        days=len(days),
        repos=len(found),
        newest_day=max((d.day for d in days), default=None),
    )
