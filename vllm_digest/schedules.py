"""How the graph runs: the daily job over every stage, its schedule, and the executor.

They belong to no stage: the job selects every asset of every repository, and the schedule asks
for whole-graph runs over ranges of days.

Each tick asks for ONE run over a partition range: the day that just closed
plus the ``late_days`` before it. Every partitioned asset has
``BackfillPolicy.single_run()`` and rebuilds each (repo, day) by
delete-then-insert, so one run over three days costs about what one day does
(the fixed per-run and per-step overhead is paid once), and the warehouse lock
never has three runs queueing for the one DuckDB writer.
"""

from __future__ import annotations

import datetime as dt

import dagster as dg

from vllm_digest.partitions import WEEK_DAYS, first_week, last_day, last_week, window_for_day
from vllm_digest.settings import Settings
from vllm_digest.taxonomy.loader import taxonomy_from_settings

EXECUTORS = {"in_process": dg.in_process_executor, "multiprocess": dg.multiprocess_executor}
DAILY_JOB = "daily_digest"
DAILY_SCHEDULE = "daily_digest_schedule"
WEEKLY_JOB = "weekly_digest"
WEEKLY_SCHEDULE = "weekly_digest_schedule"
# the weekly digests' asset group: weekly partitions, so a job of their own (a run covers one partitions
# definition); the daily job takes every other asset
WEEKLY_GROUP = "weekly"
SITE_GROUP = "site"
RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"


DAY_MINUTES = 24 * 60
# How long after the tick the day's report may take before the UI flags it:
# the run itself takes seconds to minutes, the raw fetch's retries up to ~6
# minutes more, and a GitHub rate-limit wait up to 15 minutes per request.
REPORT_GRACE_MINUTES = 60


def daily_cron(settings: Settings, minutes_after_cutoff: int) -> str:
    """``MM HH * * *``: the local wall time cutoff + ``minutes_after_cutoff``, wrapped past midnight."""
    minutes = (settings.cutoff.hour * 60 + settings.cutoff.minute + minutes_after_cutoff) % DAY_MINUTES
    return f"{minutes % 60} {minutes // 60} * * *"


def schedule_cron(settings: Settings) -> str:
    """When the daily tick fires: cutoff + lag, local time."""
    return daily_cron(settings, settings.schedule_lag_minutes)


def report_freshness_policy(settings: Settings) -> dg.FreshnessPolicy:
    """Fresh when the report was materialized between the last cutoff and
    REPORT_GRACE_MINUTES after the tick that follows it.

    Each day at cutoff + lag + grace (local time, the settings' timezone)
    Dagster looks back ``lag + grace`` minutes, i.e. to the cutoff: no
    materialization since then means the tick was missed (schedule off,
    daemon down) or its run failed, and the asset shows as failing its
    freshness policy in the UI until a run lands. A materialization before
    the cutoff does not count: it cannot hold the day that just closed.
    """
    look_back = min(settings.schedule_lag_minutes + REPORT_GRACE_MINUTES, DAY_MINUTES)
    return dg.FreshnessPolicy.cron(
        deadline_cron=daily_cron(settings, look_back),
        lower_bound_delta=dt.timedelta(minutes=look_back),
        timezone=settings.timezone,
    )


def days_to_refresh(settings: Settings, tick: dt.datetime) -> list[str]:
    """The day whose window closed last before ``tick``, preceded by up to
    ``late_days`` earlier days (never before the start date).

    "Closed" is judged by ``window_for_day``, the window the assets fetch:
    asking for a day whose fetch window is still open would land an
    incomplete day. It reads a cutoff in a daylight-saving gap or overlap
    the way Dagster's cron ticks do, so a tick never lands before the window
    it follows has closed.
    """
    local = tick.astimezone(settings.tz).date()
    closed = None
    # the window of the tick's local day - 1 closes on the tick's day; a
    # 25-hour day can push it one further back, never more
    for back in range(0, 3):
        day = local - dt.timedelta(days=back)
        if window_for_day(day.isoformat(), settings).end <= tick:
            closed = day
            break
    if closed is None or closed < settings.start_date:
        return []
    first = max(settings.start_date, closed - dt.timedelta(days=settings.late_days))
    return [(first + dt.timedelta(days=i)).isoformat() for i in range((closed - first).days + 1)]


def daily_selection() -> dg.AssetSelection:
    """Every asset of the daily partitions (and the site): all but the weekly digests, whose weeks a run
    over days cannot carry (a run covers one partitions definition)."""
    return dg.AssetSelection.all() - dg.AssetSelection.groups(WEEKLY_GROUP)


def weekly_selection() -> dg.AssetSelection:
    """The weekly digests and the site that lists them."""
    return dg.AssetSelection.groups(WEEKLY_GROUP, SITE_GROUP)


def build_daily_job(settings: Settings) -> dg.UnresolvedAssetJobDefinition:
    # partitioning is inferred from the assets (passing it is deprecated);
    # no executor here: the job takes the Definitions' executor, so
    # VLLM_DIGEST_EXECUTOR switches scheduled runs and UI launches alike
    return dg.define_asset_job(
        DAILY_JOB,
        selection=daily_selection(),
        description=(
            "Every repository's whole graph, ingest (raw) -> warehouse (stg -> core -> mart) -> analytics "
            "-> report, then the site over every report, for a range of days in one run."
        ),
    )


def build_daily_schedule(settings: Settings, job) -> dg.ScheduleDefinition:
    # partitions that end (end_date, or the sample's last day) have no day for later ticks to ask for
    last = last_day(settings)
    ends_with = "the end_date setting" if settings.end_date else "the last day the sample covers"

    def evaluate(context: dg.ScheduleEvaluationContext):
        tick = context.scheduled_execution_time
        keys = days_to_refresh(settings, tick)
        if not keys:
            return dg.SkipReason(f"no day before {settings.start_date} has closed yet at {tick.isoformat()}")
        if last is not None and dt.date.fromisoformat(keys[-1]) > last:
            return dg.SkipReason(
                f"the day that closed at {tick.isoformat()}, {keys[-1]}, is after the last partition "
                f"{last} ({ends_with})"
            )
        # The run key is the closed day: a re-evaluated tick (daemon restart)
        # does not launch a second run for the same day.
        return dg.RunRequest(
            run_key=keys[-1],
            tags={RANGE_START_TAG: keys[0], RANGE_END_TAG: keys[-1]},
        )

    return dg.ScheduleDefinition(
        name=DAILY_SCHEDULE,
        job=job,
        cron_schedule=schedule_cron(settings),
        execution_timezone=settings.timezone,
        execution_fn=evaluate,
        # STOPPED: a fresh checkout (and `make dev` on the sample) must not
        # start fetching on its own; turning it on is one click or one CLI call.
        default_status=dg.DefaultScheduleStatus.STOPPED,
        description=(
            f"Ticks daily at cutoff {settings.cutoff:%H:%M} + {settings.schedule_lag_minutes} min "
            f"({settings.timezone}); one run over the day that closed and the "
            f"{settings.late_days} day(s) before it, so late comments and merges converge."
        ),
    )


def build_weekly_job(settings: Settings) -> dg.UnresolvedAssetJobDefinition:
    return dg.define_asset_job(
        WEEKLY_JOB,
        selection=weekly_selection(),
        description=(
            "Every repository's weekly digest (Monday to Sunday, from the daily marts, no fetch), then the site "
            "that lists it, for a range of weeks in one run."
        ),
    )


def weekly_cron(settings: Settings) -> str:
    """``MM HH * * D``: the Monday's cutoff + lag + REPORT_GRACE_MINUTES, local time, so the daily run of the
    week's Sunday (ticking at cutoff + lag) has had its grace to land first; past midnight it is Tuesday."""
    total = settings.cutoff.hour * 60 + settings.cutoff.minute + settings.schedule_lag_minutes + REPORT_GRACE_MINUTES
    days, minutes = divmod(total, DAY_MINUTES)
    return f"{minutes % 60} {minutes // 60} * * {(1 + days) % 7}"


def week_to_build(settings: Settings, tick: dt.datetime) -> dt.date | None:
    """The Monday of the latest week whose last day's window closed by ``tick`` (judged by
    ``window_for_day``, like the daily tick), or None before the first whole week."""
    local = tick.astimezone(settings.tz).date()
    monday = local - dt.timedelta(days=local.weekday())
    for back in range(3):
        week = monday - dt.timedelta(days=WEEK_DAYS * back)
        sunday = week + dt.timedelta(days=WEEK_DAYS - 1)
        if window_for_day(sunday.isoformat(), settings).end <= tick:
            return week if week >= first_week(settings) else None
    return None


def build_weekly_schedule(settings: Settings, job) -> dg.ScheduleDefinition:
    last = last_week(settings)

    def evaluate(context: dg.ScheduleEvaluationContext):
        tick = context.scheduled_execution_time
        week = week_to_build(settings, tick)
        if week is None:
            return dg.SkipReason(f"no whole week from {first_week(settings)} on has closed at {tick.isoformat()}")
        if last is not None and week > last:
            return dg.SkipReason(f"the week of {week} is after the last whole week {last}")
        key = week.isoformat()
        return dg.RunRequest(run_key=key, tags={RANGE_START_TAG: key, RANGE_END_TAG: key})

    return dg.ScheduleDefinition(
        name=WEEKLY_SCHEDULE,
        job=job,
        cron_schedule=weekly_cron(settings),
        execution_timezone=settings.timezone,
        execution_fn=evaluate,
        default_status=dg.DefaultScheduleStatus.STOPPED,  # like the daily schedule: turned on by hand
        description=(
            f"Ticks after each week's Sunday has closed (cutoff {settings.cutoff:%H:%M} + "
            f"{settings.schedule_lag_minutes} + {REPORT_GRACE_MINUTES} min, {settings.timezone}, the daily "
            "run of that Sunday having had its grace); one run of the weekly digests of that week and the site."
        ),
    )


def defs(settings: Settings) -> dg.Definitions:
    """The daily job and its schedule, the weekly job and its schedule, the sensor that re-renders the days
    whose trend baseline and follow-ups a run fed, and the executor every run takes (scheduled, launched
    from the UI, backfills)."""
    from vllm_digest.rerender import build_baseline_sensor  # it builds on this module's job and tags

    job = build_daily_job(settings)
    weekly = build_weekly_job(settings)
    window = taxonomy_from_settings(settings).params()["trend_baseline_days"]
    return dg.Definitions(
        jobs=[job, weekly],
        schedules=[build_daily_schedule(settings, job), build_weekly_schedule(settings, weekly)],
        sensors=[build_baseline_sensor(settings, job, window, weekly)],
        executor=EXECUTORS[settings.executor],
    )
