"""The activity source as a Dagster resource: the embedded sample or GitHub."""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg

from vllm_digest.ingest.sample import fetch_sample_day
from vllm_digest.model import DayPayload
from vllm_digest.partitions import DayWindow
from vllm_digest.settings import RepoRef, Settings


class ActivitySourceResource(dg.ConfigurableResource):
    """Where raw activity comes from. ``kind`` is ``sample`` or ``github``."""

    kind: str = "sample"
    sample_dir: str | None = None
    github_api_url: str = "https://api.github.com"
    github_token: str | None = None
    max_rate_wait_seconds: float = 900.0

    def fetch_day(self, repo: RepoRef, window: DayWindow, previous: DayPayload | None) -> DayPayload:
        if self.kind == "sample":
            root = Path(self.sample_dir) if self.sample_dir else None
            return fetch_sample_day(repo, window, root)
        if self.kind == "github":
            from vllm_digest.ingest.github.plan import fetch_day

            return fetch_day(
                repo,
                window,
                api_url=self.github_api_url,
                token=self.github_token,
                previous=previous,
                max_rate_wait_seconds=self.max_rate_wait_seconds,
            )
        raise ValueError(f"activity source kind {self.kind!r} is not one of ['sample', 'github']")


def activity_source(settings: Settings) -> ActivitySourceResource:
    return ActivitySourceResource(
        kind=settings.source,
        sample_dir=str(settings.sample_dir) if settings.sample_dir else None,
        github_api_url=settings.github_api_url,
        github_token=_github_token(settings),
    )


def _github_token(settings: Settings):
    """The token as an EnvVar: Dagster then stores only the variable's name in run storage
    (job snapshots keep resource config). A token handed in another way than the process
    environment (a settings mapping in a script) can only be passed as its value."""
    if not settings.github_token:
        return None
    if os.environ.get("GITHUB_TOKEN") == settings.github_token:
        return dg.EnvVar("GITHUB_TOKEN")
    return settings.github_token
