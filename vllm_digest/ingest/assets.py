"""The ingest stage's assets: land each day's raw payloads on disk."""


import dagster as dg

from vllm_digest.ingest.github.client import GitHubError
from vllm_digest.ingest.raw_store import day_dir, read_day, write_day
from vllm_digest.ingest.resources import ActivitySourceResource, activity_source
from vllm_digest.partitions import SINGLE_RUN, DayWindow, context_windows, daily_partitions, day_span
from vllm_digest.settings import RepoRef, Settings

RAW_ASSET = "raw_activity"

# The outer layer over the HTTP client's own retries (which last up to two
# minutes per request): it outlasts a GitHub outage of a few minutes. Waits
# before attempts 2, 3, 4: 30 s, 90 s, 210 s, each +-30 s of jitter so runs
# that failed together do not retry in lockstep. Only transient errors are
# retried (see fetch_or_fail).
FETCH_RETRY_POLICY = dg.RetryPolicy(
    max_retries=3, delay=30, backoff=dg.Backoff.EXPONENTIAL, jitter=dg.Jitter.PLUS_MINUS
)


def fetch_or_fail(source: ActivitySourceResource, repo: RepoRef, window: DayWindow, previous):
    """The day's payload; an error a retry cannot fix fails the step at once.

    Transient (retried by FETCH_RETRY_POLICY): GitHub gave no response or a
    5xx after the client's retries, or a body cut off in transit. Everything
    else (401/403/404/422, a rate limit resetting later than the retries
    reach, a malformed payload, a missing sample folder, a full disk) would
    fail the same way again, so retrying only delays the error.
    """
    try:
        return source.fetch_day(repo, window, previous)
    except Exception as exc:
        if isinstance(exc, GitHubError) and exc.transient:
            raise
        raise dg.Failure(
            description=f"fetching {repo.full_name} {window.key} failed, not retried: {exc}",
            allow_retries=False,
        ) from exc


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
        totals = {"issues": 0, "events": 0, "comments": 0, "requests": 0}
        incomplete: list[str] = []
        for window in windows:
            previous = read_day(settings.raw_dir, repo, window.key)
            payload = fetch_or_fail(activity_source, repo, window, previous)
            write_day(settings.raw_dir, repo, window.key, payload)
            totals["issues"] += len(payload.issues)
            totals["events"] += len(payload.events)
            totals["comments"] += len(payload.comments) + len(payload.review_comments)
            totals["requests"] += payload.manifest.request_count
            if not payload.manifest.complete:
                incomplete.append(window.key)
        context.log.info(f"landed {repo.full_name} {day_span(windows)}: {totals}")
        return dg.MaterializeResult(
            metadata={
                "days": day_span(windows),
                "path": dg.MetadataValue.path(str(day_dir(settings.raw_dir, repo, windows[-1].key))),
                "issues_and_prs": totals["issues"],
                "events": totals["events"],
                "comments": totals["comments"],
                "request_count": totals["requests"],
                "complete": not incomplete,
                "incomplete_days": ", ".join(incomplete) or "none",
            }
        )

    return raw_activity


def defs(settings: Settings) -> dg.Definitions:
    """Each repository's ``raw_activity`` and the ``activity_source`` resource it fetches with."""
    partitions_def = daily_partitions(settings)
    return dg.Definitions(
        assets=[build_raw_asset(repo, settings, partitions_def) for repo in settings.repos],
        resources={"activity_source": activity_source(settings)},
    )
