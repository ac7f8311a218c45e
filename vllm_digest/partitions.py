"""Daily partitions: one key per local day, each the half-open window
[cutoff, cutoff + 1 day) in the configured timezone; and what every partitioned
asset of every stage shares: its backfill policy and the days of its run."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import dagster as dg

from vllm_digest.settings import Settings

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


def daily_partitions(settings: Settings) -> dg.DailyPartitionsDefinition:
    return dg.DailyPartitionsDefinition(
        start_date=settings.start_date.strftime(DAY_FORMAT),
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
    window = daily_partitions(settings).time_window_for_partition_key(key)
    utc = dt.timezone.utc
    return DayWindow(day=day, start=window.start.astimezone(utc), end=window.end.astimezone(utc))


def windows_for_keys(keys: list[str], settings: Settings) -> list[DayWindow]:
    return [window_for_day(k, settings) for k in keys]


def context_windows(context: dg.AssetExecutionContext, settings: Settings) -> list[DayWindow]:
    """The days this run covers: one for a normal run, many for a single-run backfill."""
    return windows_for_keys(list(context.partition_keys), settings)


def day_span(windows: list[DayWindow]) -> str:
    """How a run's days read in its log and metadata: ``2026-03-22`` or ``A...B (N days)``."""
    if len(windows) == 1:
        return windows[0].key
    return f"{windows[0].key}...{windows[-1].key} ({len(windows)} days)"


def utc_offset_label(moment: dt.datetime) -> str:
    """``UTC+8``, ``UTC-5``, ``UTC+5:30``: the label the seed report prints."""
    offset = moment.utcoffset() or dt.timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    hours, mins = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{mins:02d}" if mins else "")
