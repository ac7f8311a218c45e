"""The baseline sensor: building a day re-renders the later days whose topic trends and follow-ups it feeds.

A day's topic trend compares it with the ``N`` days before it (the taxonomy's
``trend.baseline_days``, 7 by default), read from the warehouse as they are when the
day is built. A day built before some of those days therefore says "baseline
incomplete: k of N days" and stays so, even once they are built, until it is built
again. The rule that makes a report independent of the order days were built in:

    after a run succeeds for days first..last, the days last+1 .. last+N that are
    already built are re-rendered, in one follow-up run per repository and block of
    consecutive days.

The follow-ups section reads the same way: a day's follow-ups are the items the reports of
the taxonomy's ``follow_ups.follow_up_days`` (14) days before it featured (``mart_section_picks``) that moved that
day, so a re-run of a day can change the follow-ups of the 14 days after it and of no day
before it. N is therefore the longer of the two look-backs: max(trend baseline, 14).

The follow-up run selects only the analytics marts, the report and the site: their
inputs (the raw landing and the warehouse layers of those days) are already there, so
it fetches nothing and costs no API request. It is tagged, and a tagged run triggers
nothing further: re-rendering a day changes no day's baseline, only its own trend.

The weekly digests read the same daily marts: a run that built days of a week whose digest is
already rendered (a late re-run of the week's last days, a backfill, a follow-up run) asks for
that week again, in one run of the weekly job per repository, which fetches nothing either.
The digests of the weeks after (whose days' trends and follow-ups read the rebuilt days, up to the
same N days on) are asked for by the follow-up runs of those days, once they have re-rendered
them: asking for them here would render them before their days were (and again after). So the
weeks that depend on a rebuilt day are re-rendered, each after its days, through the same rule
(tests/orchestration/test_follow_ups.py drains the sensor's runs and compares with one run over both weeks).

Nothing is rendered twice for one backfill: a day or week is left out of the follow-ups when it needs
none (``needs_follow_up``): its latest materialization comes from a run that started after this run
ended, so it read this run's days, or the backfill the run belongs to (a UI backfill runs its days, its weeks and the site as
separate runs) has it still to do, after this run. A Lineage "Materialize all" over three days
otherwise rendered the week holding them three times: the backfill's own weekly run, and a re-render
after each of the day run and its follow-up run.

Why a sensor and not the schedule: the schedule's late re-runs already keep the days
of normal operation complete (each day is built after the days before it), but a
backfill of older days or a day rebuilt after an outage would leave its followers
stale until someone rebuilt them; the sensor reacts to any successful run, from the
UI, the CLI or a tick, within a minute.
"""

from __future__ import annotations

import datetime as dt

import dagster as dg
# a backfill's status: not exported by dagster's top-level API (pinned to 1.13.x in pyproject.toml)
from dagster._core.execution.backfill import BulkActionStatus

from vllm_digest.analytics.build import ANALYTICS_MODELS
from vllm_digest.core.calendar import WEEK_DAYS
from vllm_digest.core.config.settings import Settings
from vllm_digest.core.keys import BASELINE_SENSOR, DAILY_JOB, RANGE_END_TAG, RANGE_START_TAG, REPORT_ASSET, SITE_KEY, WEEKLY_ASSET, WEEKLY_JOB


# on a follow-up run: the id of the run whose days it re-renders the followers of
RERENDER_TAG = "vllm_digest/rerenders_after"
PARTITION_TAG = "dagster/partition"
BACKFILL_TAG = "dagster/backfill"
TOPIC_MART = "mart_topic_daily"


def run_days(tags: dict[str, str]) -> tuple[dt.date, dt.date] | None:
    """The first and last day a run built: its range tags, or its one partition."""
    try:
        if RANGE_START_TAG in tags and RANGE_END_TAG in tags:
            return dt.date.fromisoformat(tags[RANGE_START_TAG]), dt.date.fromisoformat(tags[RANGE_END_TAG])
        if PARTITION_TAG in tags:
            day = dt.date.fromisoformat(tags[PARTITION_TAG])
            return day, day
    except ValueError:  # another code location's partitions: not days
        return None
    return None


def follower_blocks(last: dt.date, built: set[str], window: int) -> list[list[str]]:
    """The already-built days among the ``window`` days after ``last``, as runs of consecutive days."""
    blocks: list[list[str]] = []
    previous = None
    for offset in range(1, window + 1):
        day = last + dt.timedelta(days=offset)
        if day.isoformat() not in built:
            continue
        if previous is not None and (day - previous).days == 1:
            blocks[-1].append(day.isoformat())
        else:
            blocks.append([day.isoformat()])
        previous = day
    return blocks


def rerender_keys(prefix: list[str]) -> list[dg.AssetKey]:
    """What a follow-up run materializes for one repository: the analytics marts (one multi-asset,
    so all of them), the report, and the site that lists it."""
    return [*(dg.AssetKey([*prefix, m]) for m in ANALYTICS_MODELS), dg.AssetKey([*prefix, REPORT_ASSET]),
            dg.AssetKey(SITE_KEY)]


def rendered_weeks(first: dt.date, last: dt.date, rendered: set[str]) -> list[str]:
    """The Mondays of the weeks holding a day of ``first`` ... ``last`` whose digest is ``rendered``."""
    monday = first - dt.timedelta(days=first.weekday())
    out = []
    while monday <= last:
        if monday.isoformat() in rendered:
            out.append(monday.isoformat())
        monday += dt.timedelta(days=WEEK_DAYS)
    return out


def weekly_requests(settings: Settings, run: dg.DagsterRun, instance: dg.DagsterInstance) -> list[dg.RunRequest]:
    """The weekly digests to render again after ``run`` rebuilt the analytics of some of their days: the
    already-rendered weeks holding those days, one run of the weekly job per repository. Later weeks are
    not asked for here: their days are re-rendered by this run's follow-up runs (``rerender_requests``,
    the same look-ahead), each of which then asks for its own days' weeks, after it rebuilt them."""
    span = run_days(dict(run.tags))
    if span is None:
        return []
    requests = []
    backfill = _backfill_of(instance, run)
    for repo in settings.repos:
        built_at = _built_by(instance, dg.AssetKey([*repo.key_prefix, TOPIC_MART]), span[1].isoformat(), run)
        if built_at is None:
            continue
        weekly_key = dg.AssetKey([*repo.key_prefix, WEEKLY_ASSET])
        weeks = [w for w in rendered_weeks(*span, instance.get_materialized_partitions(weekly_key))
                 if needs_follow_up(instance, weekly_key, w, _ended_at(instance, run, built_at), backfill)]
        if weeks:
            requests.append(dg.RunRequest(
                run_key=f"{run.run_id}:{repo.slug}:weeks:{weeks[0]}",
                job_name=WEEKLY_JOB,
                # the weeks between the first and the last are re-rendered too: a range run, like any backfill
                tags={RANGE_START_TAG: weeks[0], RANGE_END_TAG: weeks[-1], RERENDER_TAG: run.run_id},
            ))
    return requests


def _latest(instance: dg.DagsterInstance, key: dg.AssetKey, partition: str):
    """The latest materialization record of ``key`` for ``partition``, or None."""
    found = instance.fetch_materializations(dg.AssetRecordsFilter(key, asset_partitions=[partition]), limit=1)
    return found.records[0] if found.records else None


def _started_at(instance: dg.DagsterInstance, run_id: str) -> float | None:
    record = instance.get_run_record_by_id(run_id)
    return record.start_time if record is not None else None


def _ended_at(instance: dg.DagsterInstance, run: dg.DagsterRun, built_at: float) -> float:
    """When ``run`` ended (the sensor sees it succeed, so it has), else when it built its days."""
    record = instance.get_run_record_by_id(run.run_id)
    return record.end_time if record is not None and record.end_time is not None else built_at


def _built_by(instance: dg.DagsterInstance, key: dg.AssetKey, day: str, run: dg.DagsterRun) -> float | None:
    """When ``run`` materialized ``key`` for ``day``, if it is the latest materialization; else None."""
    latest = _latest(instance, key, day)
    return latest.timestamp if latest is not None and latest.run_id == run.run_id else None


def _backfill_of(instance: dg.DagsterInstance, run: dg.DagsterRun):
    """The backfill still in progress that ``run`` (or, for a follow-up run, the run it follows) belongs to."""
    tags = dict(run.tags)
    if RERENDER_TAG in tags:
        followed = instance.get_run_by_id(tags[RERENDER_TAG])
        tags = dict(followed.tags) if followed is not None else {}
    backfill = instance.get_backfill(tags[BACKFILL_TAG]) if BACKFILL_TAG in tags else None
    if backfill is None or backfill.status != BulkActionStatus.REQUESTED or backfill.asset_backfill_data is None:
        return None
    return backfill


def needs_follow_up(instance: dg.DagsterInstance, key: dg.AssetKey, partition: str, ended_at: float, backfill) -> bool:
    """Whether ``key``'s ``partition`` must be rendered again after a run that built days and ended at
    ``ended_at``. Not when its latest materialization comes from a run that started after that (so it
    read those days: a materialization's own time is no proof, as a run writes its events after it let
    the warehouse go), nor when ``backfill`` targets it and none of the backfill's runs has materialized
    it yet (that run comes after this one: it is downstream of it, or waits for the warehouse it holds)."""
    latest = _latest(instance, key, partition)
    if latest is not None and (started := _started_at(instance, latest.run_id)) is not None and started > ended_at:
        return False
    if backfill is None:
        return True
    targeted = backfill.asset_backfill_data.target_subset.partitions_subsets_by_asset_key.get(key)
    if targeted is None or partition not in set(targeted.get_partition_keys()):
        return True
    if latest is None:
        return False
    done_by = instance.get_run_by_id(latest.run_id)
    return done_by is not None and done_by.tags.get(BACKFILL_TAG) == backfill.backfill_id


def rerender_requests(settings: Settings, run: dg.DagsterRun, instance: dg.DagsterInstance,
                      window: int) -> list[dg.RunRequest]:
    """The follow-up runs that a successful ``run`` calls for (none for a follow-up run itself)."""
    if RERENDER_TAG in run.tags:
        return []
    span = run_days(dict(run.tags))
    if span is None:
        return []
    last = span[1].isoformat()
    requests = []
    backfill = _backfill_of(instance, run)
    for repo in settings.repos:
        topic_key = dg.AssetKey([*repo.key_prefix, TOPIC_MART])
        # only a run that built the trends of its last day changes its followers' baselines (a report-only
        # or fetch-only run does not); a later run that rebuilt that day again triggers this sensor itself
        built_at = _built_by(instance, topic_key, last, run)
        if built_at is None:
            continue
        materialized = instance.get_materialized_partitions(topic_key)
        # asked only of the days in the window: one look-up each
        built = {d for d in (f for block in follower_blocks(span[1], materialized, window) for f in block)
                 if needs_follow_up(instance, topic_key, d, _ended_at(instance, run, built_at), backfill)}
        for block in follower_blocks(span[1], built, window):
            requests.append(dg.RunRequest(
                run_key=f"{run.run_id}:{repo.slug}:{block[0]}",
                job_name=DAILY_JOB,
                asset_selection=rerender_keys(repo.key_prefix),
                tags={RANGE_START_TAG: block[0], RANGE_END_TAG: block[-1], RERENDER_TAG: run.run_id},
            ))
    return requests


def followers_window(taxonomy_params: dict) -> int:
    """How many days after a run's last day read what it built: the trend baseline's, the follow-ups' and the
    🔥 stories' usual volume and vocabulary (the taxonomy's [trend] baseline_days, [follow_ups] follow_up_days
    and [stories] story_history_days, as ``Taxonomy.params()`` binds them)."""
    return max(taxonomy_params["trend_baseline_days"], taxonomy_params["follow_up_days"],
               taxonomy_params["story_history_days"])


def build_baseline_sensor(settings: Settings, job, window: int, weekly_job=None) -> dg.RunStatusSensorDefinition:
    """``window``: ``followers_window`` of the taxonomy in use."""
    jobs = [job] if weekly_job is None else [job, weekly_job]

    @dg.run_status_sensor(
        name=BASELINE_SENSOR,
        run_status=dg.DagsterRunStatus.SUCCESS,
        request_jobs=jobs,
        # UI backfills, scheduled ticks and `dagster asset materialize -m …` (another location name) alike
        monitor_all_code_locations=True,
        # RUNNING: it only follows runs someone launched and never fetches, so it spends no API request
        default_status=dg.DefaultSensorStatus.RUNNING,
        description=(
            f"After a run succeeds for days first..last, re-renders the already-built days among the "
            f"{window} after last (analytics, report, site; no fetch), whose topic trends compare "
            f"with the days that run built and whose follow-ups read the items those days featured. "
            f"It also re-renders the weekly digests already rendered for the weeks whose days a run built. "
            f"Follow-up runs carry the tag {RERENDER_TAG} and trigger no further daily runs."
        ),
    )
    def baseline_rerender_sensor(context: dg.RunStatusSensorContext):
        run = context.dagster_run
        # a daily follow-up run re-renders its days' weeks, and nothing more; a weekly run changes no day
        weekly = weekly_requests(settings, run, context.instance) if weekly_job is not None else []
        # A run that needs nothing answers None, its reason in the tick's log: Dagster ends a tick at the first
        # answer that is not None, so a SkipReason would leave the other ended runs (up to 5 a tick) for later
        # ticks, 30 s each, and delay the follow-ups of a backfill's runs by that much.
        if RERENDER_TAG in run.tags:
            if weekly:
                return weekly
            context.log.info(f"run {run.run_id} re-rendered days itself; it triggers no other day")
            return None
        requests = rerender_requests(settings, run, context.instance, window) + weekly
        if not requests:
            context.log.info(f"run {run.run_id}: no built day within {window} days after the days it built")
            return None
        return requests

    return baseline_rerender_sensor
