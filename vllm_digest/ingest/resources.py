"""The activity source as a Dagster resource: the embedded sample or GitHub."""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import dagster as dg
from pydantic import Field

from vllm_digest.core.calendar import DayWindow
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.taxonomy.loader import taxonomy_from_settings
from vllm_digest.core.vocabulary import DayPayload
from vllm_digest.ingest.github.people import PeopleCache
from vllm_digest.ingest.github.plan import fetch_day, github_days
from vllm_digest.ingest.github.pr_files import FilesCache
from vllm_digest.ingest.sample import fetch_sample_day


class ActivitySourceResource(dg.ConfigurableResource):
    # Dagster shows the docstring verbatim as the resource's description: plain text, one line
    """Where each day's raw activity comes from: the embedded sample (or a sample folder) or the GitHub REST API."""

    kind: str = Field(default="sample", description="sample or github (the source setting)")
    sample_dir: str | None = Field(
        default=None, description="a folder of sample data to serve instead of the embedded sample (kind sample)"
    )
    github_api_url: str = Field(
        default="https://api.github.com", description="the GitHub REST API root, or a GitHub Enterprise .../api/v3"
    )
    github_token: str | None = Field(
        default=None, repr=False, description="read from the GITHUB_TOKEN environment variable when a run starts"
    )
    max_rate_wait_seconds: float = Field(
        default=900.0, description="longest wait for a spent rate limit to reset before the fetch fails"
    )
    request_deadline_seconds: float = Field(
        default=30.0, description="the whole of one request, body included (the github_request_deadline setting)"
    )
    people_requests: int = Field(
        default=0, description="account profiles (GET /users/{login}) asked a day, new or due monthly (github_people_requests)"
    )
    file_requests: int = Field(
        default=0, description="PRs whose changed files (GET /pulls/{n}/files) are asked a day (github_file_requests)"
    )
    focus_words: list[str] = Field(
        default_factory=list, description="title tags and labels of the taxonomy's focus areas: whose files are asked first"
    )

    def fetch_day(
        self, repo: RepoRef, window: DayWindow, previous: DayPayload | None, log: logging.Logger | None = None,
        people: PeopleCache | None = None,
        files: FilesCache | None = None,
    ) -> DayPayload:
        """The day's payload. ``log`` receives the HTTP client's retries and waits (the step's context.log);
        ``people`` is the repository's profile cache (github only), updated in place."""
        if self.kind == "sample":
            root = Path(self.sample_dir) if self.sample_dir else None
            return fetch_sample_day(repo, window, root)
        if self.kind == "github":

            return fetch_day(
                repo,
                window,
                api_url=self.github_api_url,
                token=self.github_token,
                previous=previous,
                people=people,
                files=files,
                max_user_requests=self.people_requests,
                max_file_requests=self.file_requests,
                focus_words=tuple(self.focus_words),
                max_rate_wait_seconds=self.max_rate_wait_seconds,
                request_deadline_seconds=self.request_deadline_seconds,
                **({"log": log} if log is not None else {}),
            )
        raise ValueError(f"activity source kind {self.kind!r} is not one of ['sample', 'github']")

    @contextmanager
    def session(self, repo: RepoRef, log: logging.Logger | None = None) -> Iterator["ActivitySourceResource | _GitHubDays"]:
        """The source for one run's days, with ``fetch_day`` like the resource's. For github, the days
        share one HTTP client and one events feed, which is then paged once for the whole run (back to
        its oldest day) instead of once per day."""
        if self.kind != "github":
            yield self
            return

        with github_days(
            repo,
            api_url=self.github_api_url,
            token=self.github_token,
            max_rate_wait_seconds=self.max_rate_wait_seconds,
            request_deadline_seconds=self.request_deadline_seconds,
            max_user_requests=self.people_requests,
            max_file_requests=self.file_requests,
            focus_words=tuple(self.focus_words),
            **({"log": log} if log is not None else {}),
        ) as fetch:
            yield _GitHubDays(repo, fetch)


class _GitHubDays:
    """One run's GitHub days (``ActivitySourceResource.session``)."""

    def __init__(self, repo: RepoRef, fetch):
        self.repo, self._fetch = repo, fetch

    def fetch_day(self, repo: RepoRef, window: DayWindow, previous: DayPayload | None,
                  log: logging.Logger | None = None, people: PeopleCache | None = None,
                  files: FilesCache | None = None) -> DayPayload:
        if repo != self.repo:
            raise ValueError(f"this session fetches {self.repo.full_name}, not {repo.full_name}")
        return self._fetch(window, previous, people, files)


def activity_source(settings: Settings) -> ActivitySourceResource:
    return ActivitySourceResource(
        kind=settings.source,
        sample_dir=str(settings.sample_dir) if settings.sample_dir else None,
        github_api_url=settings.github_api_url,
        github_token=_github_token(settings),
        request_deadline_seconds=float(settings.github_request_deadline),
        people_requests=settings.github_people_requests,
        file_requests=settings.github_file_requests,
        focus_words=_focus_words(settings) if settings.github_file_requests else [],
    )


def _focus_words(settings: Settings) -> list[str]:
    """The focus areas' tags and labels, lower case: a PR carrying one is a focus candidate."""
    taxonomy = taxonomy_from_settings(settings)
    return sorted({w.lower() for f in taxonomy.focus_areas for w in (*f.rules.tags, *f.rules.labels)})


def _github_token(settings: Settings):
    """The token as an EnvVar: Dagster then stores only the variable's name in run storage
    (job snapshots keep resource config). A token handed in another way than the process
    environment (a settings mapping in a script) can only be passed as its value."""
    if not settings.github_token:
        return None
    if os.environ.get("GITHUB_TOKEN") == settings.github_token:
        return dg.EnvVar("GITHUB_TOKEN")
    return settings.github_token
