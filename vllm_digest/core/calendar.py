"""Daily partitions: one key per local day, each the half-open window
[cutoff, cutoff + 1 day) in the configured timezone; and what every partitioned
asset of every stage shares: its backfill policy and the days of its run."""

from __future__ import annotations

import datetime as dt
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator

import dagster as dg

from vllm_digest.core.config.settings import Settings
from vllm_digest.core.config.values import SettingsError
from vllm_digest.core.sample_coverage import coverage_end


DAY_FORMAT = "%Y-%m-%d"
# every partitioned asset runs a range of days (a backfill, a scheduled tick) as one run
SINGLE_RUN = dg.BackfillPolicy.single_run()
# a range run copies its metadata onto every day's event, so a {day: value} dict costs days² entries;
# up to a month it is worth reading in the UI, beyond that the warehouse and the files answer per day
PER_DAY_METADATA_MAX_DAYS = 31


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
    return _daily(settings, end_date=_partitions_end(last, settings) if last else None)


def _daily(settings: Settings, end_date: dt.datetime | None = None) -> dg.DailyPartitionsDefinition:
    """The day partitions from ``start_date``; without ``end_date`` they run to the last closed day.
    A day's window does not depend on where the partitions end, so window_for_day reads it here
    (and last_day, which finds that end from the windows, can ask for them)."""
    return dg.DailyPartitionsDefinition(
        start_date=settings.start_date.strftime(DAY_FORMAT),
        end_date=end_date,
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


def window_for_day(key: str, settings: Settings) -> DayWindow:
    """The window of the day ``key``, exactly as Dagster's partition shows it (and its cron ticks
    use), so the fetch window, the UI's partition window and the schedule's tick never disagree:
    a daylight-saving day lasts 23 or 25 hours, a cutoff skipped by a spring-forward gap is the
    instant the clock jumps, and one that occurs twice in an autumn overlap is its second
    occurrence. Keys before the start date have windows too (the schedule asks about them)."""
    day = parse_day(key)
    window = _daily(settings).time_window_for_partition_key(key)
    utc = dt.timezone.utc
    return DayWindow(day=day, start=window.start.astimezone(utc), end=window.end.astimezone(utc))


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


def context_windows(context: dg.AssetExecutionContext, settings: Settings) -> list[DayWindow]:
    """The days this run covers: one for a normal run, many for a single-run backfill.

    A range that starts before ``start_date`` (range tags, as a script or ``make demo`` with a
    later start_date set them) reaches the assets: its start is checked before Dagster lists
    the range's keys, which fails with a bare invariant error, and the step fails without
    retries (the raw asset's RetryPolicy would otherwise retry it for minutes)."""
    try:
        check_not_before_start(context.partition_key_range.start, settings)
        return windows_for_keys(list(context.partition_keys), settings)
    except DayBeforeStartError as exc:
        raise dg.Failure(description=str(exc), allow_retries=False) from None


def _never(exc: BaseException) -> bool:
    return False


@contextmanager
def not_retried(what: str, transient: Callable[[BaseException], bool] = _never) -> Iterator[None]:
    """Fail the step at once, without retries, on any error ``transient`` does not call worth
    another attempt: a step with a RetryPolicy (the raw asset's) would otherwise retry a bad
    payload, a full disk or a bug for minutes and fail the same way each time. A ``dg.Failure``
    raised inside keeps its own choice. The message says what failed and that it was not retried."""
    try:
        yield
    except (dg.Failure, dg.RetryRequested):
        raise
    except Exception as exc:
        if transient(exc):
            raise
        raise dg.Failure(description=f"{what} failed, not retried: {exc}", allow_retries=False) from exc


def day_span(windows: list[DayWindow]) -> str:
    """How a run's days read in its log and metadata: ``2026-03-22`` or ``A...B (N days)``."""
    if len(windows) == 1:
        return windows[0].key
    return f"{windows[0].key}...{windows[-1].key} ({len(windows)} days)"


# at most this many progress lines (plus the last) per loop over a run's days: the run page moves during a
# long step, and a year's backfill does not write a line per day
PROGRESS_LINES = 10


def log_progress(log, what: str, done: int, total: int) -> None:
    """``what done/total days`` into the run log, when ``done`` is a tenth of the way further (and at the
    end); a one-day run says nothing (its step's own lines suffice)."""
    every = max(1, -(-total // PROGRESS_LINES))
    if total > 1 and (done % every == 0 or done == total):
        log.info(f"{what} {done}/{total} days")


def utc_offset_label(moment: dt.datetime) -> str:
    """``UTC+8``, ``UTC-5``, ``UTC+5:30``: the label the seed report prints."""
    offset = moment.utcoffset() or dt.timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    hours, mins = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{mins:02d}" if mins else "")


# ---- weeks: Monday to Sunday, each the union of its seven day windows ----

WEEK_DAYS = 7


def week_days(key: str) -> list[str]:
    """The seven day keys of the week ``key`` (its Monday), Monday first."""
    monday = parse_day(key)
    if monday.weekday() != 0:
        raise ValueError(f"week key {key!r} is not a Monday")
    return [(monday + dt.timedelta(days=i)).isoformat() for i in range(WEEK_DAYS)]


def first_week(settings: Settings) -> dt.date:
    """The first whole week's Monday: the start date's, or the next one (a week starting before the
    first day would be counted short)."""
    start = settings.start_date
    return start + dt.timedelta(days=(7 - start.weekday()) % 7)


def last_week(settings: Settings) -> dt.date | None:
    """The last whole week's Monday when the days end (``last_day``), else None (weeks run on)."""
    last = last_day(settings)
    if last is None:
        return None
    return last - dt.timedelta(days=last.weekday()) - dt.timedelta(days=0 if last.weekday() == 6 else WEEK_DAYS)


def weekly_partitions(settings: Settings) -> dg.WeeklyPartitionsDefinition:
    """One key per whole week (its Monday, ``YYYY-MM-DD``), Monday to Sunday in the configured
    timezone: the window runs from the Monday's cutoff to the next Monday's, exactly the union of
    its seven day windows, so a week holds the days the daily partitions hold and no other moment."""
    last = last_week(settings)
    end_date = None
    if last is not None and last < first_week(settings):
        # the days hold no whole week: an end before the first week (Dagster keeps a week that starts at
        # its end_date), so there are none
        end_date = dt.datetime.combine(first_week(settings) - dt.timedelta(days=1), dt.time(0))
    elif last is not None:
        # keep ``last`` as the last week: inside the next week's window, as _partitions_end does for days
        sunday = last + dt.timedelta(days=WEEK_DAYS - 1)
        end_date = _partitions_end(sunday, settings)
    return dg.WeeklyPartitionsDefinition(
        start_date=first_week(settings).strftime(DAY_FORMAT),
        end_date=end_date,
        timezone=settings.timezone,
        day_offset=1,  # Monday
        hour_offset=settings.cutoff.hour,
        minute_offset=settings.cutoff.minute,
        end_offset=0,
        fmt=DAY_FORMAT,
    )


def context_weeks(context: dg.AssetExecutionContext) -> list[str]:
    """The weeks (Mondays) this run covers: one, or many for a single-run backfill."""
    return sorted(context.partition_keys)
