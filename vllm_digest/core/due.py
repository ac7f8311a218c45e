"""When a day is due: the daily tick's cron (the cutoff plus the schedule's lag), the days a tick
refreshes, and how late the report may be before the UI flags it. The schedule, the report's freshness
policy and delivery all read these, so they live below every stage."""

from __future__ import annotations

import datetime as dt

import dagster as dg

from vllm_digest.core.calendar import window_for_day
from vllm_digest.core.config.settings import Settings

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
