"""Daily partitions: one key per local day, each the half-open window
[cutoff, cutoff + 1 day) in the configured timezone."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import dagster as dg

from vllm_digest.settings import Settings, SettingsError
from vllm_digest.sources.sample import coverage_end

DAY_FORMAT = "%Y-%m-%d"


@dataclass(frozen=True)
class DayWindow:
    """A report day: partition key plus its exact bounds, held in UTC because
    Python compares and subtracts two datetimes of one zone as wall-clock times."""

    day: dt.date
    start: dt.datetime
    end: dt.datetime

    @property
    def key(self) -> str:
        return self.day.isoformat()

    def contains(self, moment: dt.datetime) -> bool:
        return self.start <= moment < self.end


def last_day(settings: Settings) -> dt.date | None:
    """The last partition's day; None: the partitions run to the last closed day.

    - ``end_date`` when it is set;
    - the sample source: the last day whose whole window the sample covers (the period its
      ``expected.json`` or ``coverage.json`` states), so the UI offers the sample's days and
      no empty "missing" ones after them; a sample that states no coverage runs to today;
    - the github source: None, a new day every day.
    """
    if settings.end_date is not None:
        return settings.end_date
    if settings.source != "sample":
        return None
    ends = [end for repo in settings.repos if (end := coverage_end(repo, settings.sample_dir)) is not None]
    if not ends:
        return None
    end = max(ends)  # one partitions definition for every repo: a day beyond one repo's data is incomplete
    day = end.astimezone(settings.tz).date()
    while window_for_day(day.isoformat(), settings).end > end:
        day -= dt.timedelta(days=1)
    if day < settings.start_date:
        raise SettingsError(
            f"the sample's coverage ends at {end.isoformat()}, so its last whole day is {day}, before the "
            f"start date {settings.start_date}; set an earlier start_date or an end_date"
        )
    return day


def _partitions_end(last: dt.date, settings: Settings) -> dt.datetime:
    """An ``end_date`` for Dagster that keeps ``last`` as the last partition. Dagster keeps the
    partitions whose window ends by end_date, and reads end_date as a local wall time (first
    occurrence), so the cutoff itself would drop ``last`` when it falls in an autumn overlap:
    half a day after ``last`` ends lies well inside the next window (23 hours or more)."""
    inside_next = window_for_day(last.isoformat(), settings).end + dt.timedelta(hours=12)
    return inside_next.astimezone(settings.tz).replace(tzinfo=None)


def daily_partitions(settings: Settings) -> dg.DailyPartitionsDefinition:
    last = last_day(settings)
    return dg.DailyPartitionsDefinition(
        start_date=settings.start_date.strftime(DAY_FORMAT),
        end_date=_partitions_end(last, settings) if last else None,
        timezone=settings.timezone,
        hour_offset=settings.cutoff.hour,
        minute_offset=settings.cutoff.minute,
        end_offset=0,
        fmt=DAY_FORMAT,
    )


def parse_day(key: str) -> dt.date:
    try:
        return dt.datetime.strptime(key, DAY_FORMAT).date()
    except (TypeError, ValueError):
        raise ValueError(f"partition key {key!r} is not a day YYYY-MM-DD") from None


def local_instant(day: dt.date, wall: dt.time, tz: ZoneInfo) -> dt.datetime:
    """The UTC instant of the local wall time ``wall`` on ``day``, read the way
    Dagster reads partition bounds and cron ticks, so the fetch window, the
    UI's partition window and the schedule's tick never disagree:

    - a wall time skipped by a spring-forward gap is the instant the clock
      jumps (02:20 on a 02:00 -> 03:00 day is 03:00 after the jump);
    - a wall time that occurs twice in an autumn overlap is its second
      occurrence (after the clock has gone back).

    Python alone would read a skipped time with the offset before the jump,
    an hour after the jump on a one-hour gap, where Dagster's cron tick for
    that day has long fired.
    """
    first = dt.datetime.combine(day, wall, tzinfo=tz)
    second = first.replace(fold=1)
    early, late = first.astimezone(dt.timezone.utc), second.astimezone(dt.timezone.utc)
    if early == late:
        return early
    if late > early:  # the wall time occurs twice: take the later one
        return late
    # skipped: fold=1 reads it with the offset after the jump, landing before
    # the transition; fold=0 with the offset before it, landing after. The
    # transition lies between; zoneinfo does not expose it, so bisect (whole
    # seconds: tz transitions fall on them).
    before, after = int(late.timestamp()), int(early.timestamp())
    offset_after = early.astimezone(tz).utcoffset()
    while after - before > 1:
        mid = (before + after) // 2
        if dt.datetime.fromtimestamp(mid, tz).utcoffset() == offset_after:
            after = mid
        else:
            before = mid
    return dt.datetime.fromtimestamp(after, dt.timezone.utc)


def window_for_day(key: str, settings: Settings) -> DayWindow:
    """The window of the day ``key``; daylight-saving days last 23 or 25 hours."""
    day = parse_day(key)
    tz = settings.tz
    start = local_instant(day, settings.cutoff, tz)
    end = local_instant(day + dt.timedelta(days=1), settings.cutoff, tz)
    return DayWindow(day=day, start=start, end=end)


class DayBeforeStartError(ValueError):
    """A day before ``start_date``: no partition exists for it."""


def check_not_before_start(key: str, settings: Settings) -> None:
    """Refuse a day before ``start_date`` with a message that says so and names both.

    Dagster itself only says it "could not find a partition"; the days of a run are
    checked here, the first place our code sees them."""
    if parse_day(key) < settings.start_date:
        start = settings.start_date.isoformat()
        raise DayBeforeStartError(
            f"day {key} is before start_date {start} (start_date in the config file, or "
            f"VLLM_DIGEST_START_DATE), so it has no partition: pick a day from {start} on, "
            f"or set an earlier start_date"
        )


def windows_for_keys(keys: list[str], settings: Settings) -> list[DayWindow]:
    """The windows of the days of a run; a day before ``start_date`` is refused."""
    for key in keys:
        check_not_before_start(key, settings)
    return [window_for_day(k, settings) for k in keys]


def utc_offset_label(moment: dt.datetime) -> str:
    """``UTC+8``, ``UTC-5``, ``UTC+5:30``: the label the seed report prints."""
    offset = moment.utcoffset() or dt.timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    hours, mins = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{mins:02d}" if mins else "")
