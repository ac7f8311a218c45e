"""The daily and weekly schedules: when each tick fires and which days or week it asks for.

The daily schedule asks for whole-graph runs over ranges of days.

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

from vllm_digest.core.calendar import WEEK_DAYS, first_week, last_day, last_week, window_for_day
from vllm_digest.core.config.settings import Settings
from vllm_digest.core.due import DAY_MINUTES, REPORT_GRACE_MINUTES, days_to_refresh, schedule_cron
from vllm_digest.core.keys import DAILY_SCHEDULE, RANGE_END_TAG, RANGE_START_TAG, WEEKLY_SCHEDULE


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
