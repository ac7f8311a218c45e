"""The ingest stage's assets: land each day's raw payloads on disk."""


import dagster as dg

from vllm_digest.core.calendar import (
    PER_DAY_METADATA_MAX_DAYS,
    SINGLE_RUN,
    DayWindow,
    context_windows,
    log_progress,
    daily_partitions,
    day_span,
    not_retried,
)
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.keys import RAW_ASSET
from vllm_digest.core.vocabulary import DayPayload
from vllm_digest.ingest.github.client import GitHubError
from vllm_digest.ingest.github.people import PEOPLE_FILE, PeopleCache
from vllm_digest.ingest.github.pr_files import FILES_FILE, FilesCache
from vllm_digest.ingest.raw_store import DamagedLandingError, RowLines, day_dir, read_landing, repo_dir, write_day
from vllm_digest.ingest.resources import ActivitySourceResource, activity_source


# The outer layer over the HTTP client's own retries (which last up to two
# minutes per request): it outlasts a GitHub outage of a few minutes. Waits
# before attempts 2, 3, 4: 30 s, 90 s, 210 s, each +-30 s of jitter so runs
# that failed together do not retry in lockstep. Only transient errors are
# retried (see fetch_or_fail); any other error of the step, landing included,
# fails it at once (is_transient, not_retried).
FETCH_RETRY_POLICY = dg.RetryPolicy(
    max_retries=3, delay=30, backoff=dg.Backoff.EXPONENTIAL, jitter=dg.Jitter.PLUS_MINUS
)


def is_transient(exc: BaseException) -> bool:
    """What FETCH_RETRY_POLICY may retry: a GitHub exchange that may succeed a little later."""
    return isinstance(exc, GitHubError) and exc.transient


def fetch_or_fail(source: ActivitySourceResource, repo: RepoRef, window: DayWindow, previous, log=None,
                  people: PeopleCache | None = None, files: FilesCache | None = None):
    """The day's payload; an error a retry cannot fix fails the step at once.

    Transient (retried by FETCH_RETRY_POLICY): GitHub gave no response or a
    5xx after the client's retries, or a body cut off in transit. Everything
    else (401/403/404/422, a rate limit resetting later than the retries
    reach, a malformed payload, a missing sample folder, a full disk) would
    fail the same way again, so retrying only delays the error.
    """
    with not_retried(f"fetching {repo.full_name} {window.key}", is_transient):
        return source.fetch_day(repo, window, previous, log, people, files)


def build_raw_asset(repo: RepoRef, settings: Settings, partitions_def) -> dg.AssetsDefinition:
    @dg.asset(
        key=[*repo.key_prefix, RAW_ASSET],
        partitions_def=partitions_def,
        backfill_policy=SINGLE_RUN,
        group_name="ingest",
        kinds={"github", "json"},
        retry_policy=FETCH_RETRY_POLICY,
        description=(
            f"The day's raw GitHub activity of {repo.full_name}: issues and PRs touched in the "
            "window, their closing/merge events, comments and reviews, landed exactly as received "
            f"under `raw/{repo.owner}/{repo.name}/<day>/` with a manifest of how they were fetched. "
            "Each day is written whole or not at all; a failed fetch leaves the previous landing."
        ),
    )
    def raw_activity(
        context: dg.AssetExecutionContext, activity_source: ActivitySourceResource
    ) -> dg.MaterializeResult:
        windows = context_windows(context, settings)
        # landing, the caches and anything else in the step: only a transient GitHub error is retried
        with not_retried(f"landing {repo.full_name} {day_span(windows)}", is_transient):
            landed = land_days(context, activity_source, repo, settings, windows)
        totals = {name: sum(day[name] for day in landed.values()) for name in LANDED_COUNTS}
        context.log.info(f"landed {repo.full_name} {day_span(windows)}: {totals}")
        return dg.MaterializeResult(
            metadata={"days": day_span(windows), **raw_metadata(settings, repo, landed)}
        )

    return raw_activity


def land_days(context, activity_source: ActivitySourceResource, repo: RepoRef, settings: Settings,
              windows: list[DayWindow]) -> dict[str, dict]:
    """Fetch and land each day of the run, oldest first; each day's counts (``landed_counts``) by day."""
    landed: dict[str, dict] = {}
    # the profiles and PR files asked of GitHub, kept across days and runs (ingest/github/people.py, pr_files.py)
    github = activity_source.kind == "github"
    people = PeopleCache.load(repo_dir(settings.raw_dir, repo) / PEOPLE_FILE) if github else None
    files = FilesCache.load(repo_dir(settings.raw_dir, repo) / FILES_FILE) if github else None
    # the sample serves an item's same row on each day it is touched: serialize it once for the run
    lines = None if github else RowLines()
    # one session for the run's days: the github source pages the events feed once for all of them
    with activity_source.session(repo, context.log) as source:
        for done, window in enumerate(windows, 1):
            # only the github source replays the previous landing (for its 304 answers); the sample reads none
            previous = previous_landing(settings, repo, window.key, context.log) if github else None
            payload = fetch_or_fail(source, repo, window, previous, context.log, people, files)
            write_day(settings.raw_dir, repo, window.key, payload, lines)
            if github:
                people.save()
                files.save()
            landed[window.key] = landed_counts(payload)
            log_progress(context.log, f"raw {repo.full_name}: landed", done, len(windows))
    return landed


def previous_landing(settings: Settings, repo: RepoRef, day: str, log) -> DayPayload | None:
    """The day as landed before, for the github source's conditional requests: None when it was never
    landed, or when it is damaged (the warning names the file and why; the day is then fetched as if it
    had never been landed, and the new landing replaces the damaged one)."""
    try:
        previous, verified = read_landing(settings.raw_dir, repo, day)
    except DamagedLandingError as exc:
        log.warning(f"landed file {str(exc.path)!r} is damaged: {exc.detail}; fetching {repo.full_name} {day} "
                    "as if it had never been landed, and landing it anew")
        return None
    if previous is not None and not verified:
        log.info(f"the previous landing of {repo.full_name} {day} was written without row counts or hashes "
                 "(older code): its pages are answered from it only where it holds every object they held")
    return previous


LANDED_COUNTS = ("issues_and_prs", "events", "comments", "request_count")


def landed_counts(payload: DayPayload) -> dict:
    return {
        "issues_and_prs": len(payload.issues),
        "events": len(payload.events),
        "comments": len(payload.comments) + len(payload.review_comments),
        "request_count": int(payload.manifest.request_count),
        "complete": bool(payload.manifest.complete),
    }


def raw_metadata(settings: Settings, repo: RepoRef, landed: dict[str, dict]) -> dict:
    """What the UI shows for the landing. Dagster copies a range run's metadata onto every day's
    materialization, so a range run says only what is true of each of its days: the folder that
    holds them all, which days are incomplete, and each day's counts by day (never one day's
    folder or the run's sums as if they were a day's)."""
    incomplete = [day for day, counts in landed.items() if not counts["complete"]]
    status = {"complete": not incomplete, "incomplete_days": ", ".join(incomplete) or "none"}
    if len(landed) == 1:
        [(day, counts)] = landed.items()
        return {
            "path": dg.MetadataValue.path(str(day_dir(settings.raw_dir, repo, day))),
            **{name: counts[name] for name in LANDED_COUNTS},
            **status,
        }
    metadata: dict = {"raw_dir": dg.MetadataValue.path(str(repo_dir(settings.raw_dir, repo))), **status}
    if len(landed) <= PER_DAY_METADATA_MAX_DAYS:
        metadata["landed_by_day"] = dg.MetadataValue.json(
            {day: {name: counts[name] for name in LANDED_COUNTS} for day, counts in landed.items()}
        )
    else:
        metadata["landed_total"] = dg.MetadataValue.json(
            {name: sum(counts[name] for counts in landed.values()) for name in LANDED_COUNTS}
        )
    return metadata


def defs(settings: Settings) -> dg.Definitions:
    """Each repository's ``raw_activity`` and the ``activity_source`` resource it fetches with."""
    partitions_def = daily_partitions(settings)
    return dg.Definitions(
        assets=[build_raw_asset(repo, settings, partitions_def) for repo in settings.repos],
        resources={"activity_source": activity_source(settings)},
    )
