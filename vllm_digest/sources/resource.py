"""The activity source as a Dagster resource: the embedded sample or GitHub."""

from __future__ import annotations

import logging
from pathlib import Path

import dagster as dg

from vllm_digest.partitions import DayWindow
from vllm_digest.raw_store import DayPayload
from vllm_digest.settings import RepoRef
from vllm_digest.sources.sample import fetch_sample_day


class ActivitySourceResource(dg.ConfigurableResource):
    """Where raw activity comes from. ``kind`` is ``sample`` or ``github``."""

    kind: str = "sample"
    sample_dir: str | None = None
    github_api_url: str = "https://api.github.com"
    github_token: str | None = None
    max_rate_wait_seconds: float = 900.0
    # the whole of one request, body included (settings: github_request_deadline)
    request_deadline_seconds: float = 30.0

    def fetch_day(
        self, repo: RepoRef, window: DayWindow, previous: DayPayload | None, log: logging.Logger | None = None
    ) -> DayPayload:
        """The day's payload. ``log`` receives the HTTP client's retries and waits (the step's context.log)."""
        if self.kind == "sample":
            root = Path(self.sample_dir) if self.sample_dir else None
            return fetch_sample_day(repo, window, root)
        if self.kind == "github":
            from vllm_digest.sources.github import fetch_day

            return fetch_day(
                repo,
                window,
                api_url=self.github_api_url,
                token=self.github_token,
                previous=previous,
                max_rate_wait_seconds=self.max_rate_wait_seconds,
                request_deadline_seconds=self.request_deadline_seconds,
                **({"log": log} if log is not None else {}),
            )
        raise ValueError(f"activity source kind {self.kind!r} is not one of ['sample', 'github']")
