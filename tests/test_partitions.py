"""Day windows: exact local-time bounds, half-open, daylight saving included."""

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from vllm_digest.partitions import (
    DayBeforeStartError, daily_partitions, utc_offset_label, window_for_day, windows_for_keys,
)


def test_cutoff_window_matches_dagster(make_settings):
    s = make_settings()
    w = window_for_day("2026-03-22", s)
    tz = ZoneInfo("Asia/Shanghai")
    assert w.start == dt.datetime(2026, 3, 22, 11, 39, tzinfo=tz)
    assert w.end == dt.datetime(2026, 3, 23, 11, 39, tzinfo=tz)
    tw = daily_partitions(s).time_window_for_partition_key("2026-03-22")
    assert (tw.start, tw.end) == (w.start, w.end)
    assert w.contains(w.start) and not w.contains(w.end)
    assert w.contains(w.end - dt.timedelta(seconds=1))


def test_dst_days_are_23_and_25_hours(make_settings):
    s = make_settings(VLLM_DIGEST_TIMEZONE="Europe/Berlin", VLLM_DIGEST_CUTOFF="00:00")
    spring = window_for_day("2026-03-29", s)
    autumn = window_for_day("2026-10-25", s)
    assert spring.end - spring.start == dt.timedelta(hours=23)
    assert autumn.end - autumn.start == dt.timedelta(hours=25)
    assert window_for_day("2026-03-30", s).start == spring.end


def test_bad_partition_key_is_named(make_settings):
    with pytest.raises(ValueError, match="'2026-13-40'"):
        window_for_day("2026-13-40", make_settings())


def test_offset_labels():
    assert utc_offset_label(dt.datetime(2026, 1, 1, tzinfo=ZoneInfo("Asia/Shanghai"))) == "UTC+8"
    assert utc_offset_label(dt.datetime(2026, 1, 1, tzinfo=ZoneInfo("Asia/Kolkata"))) == "UTC+5:30"
    assert utc_offset_label(dt.datetime(2026, 1, 1, tzinfo=ZoneInfo("America/New_York"))) == "UTC-5"


def test_unknown_partition_key_stops_before_running(make_settings):
    import dagster as dg

    from conftest import materialize

    settings = make_settings()
    with pytest.raises(dg.DagsterUnknownPartitionError, match="2026-02-30"):
        materialize(settings, "2026-02-30")
    assert not settings.warehouse_path.exists()


@pytest.mark.parametrize("timezone", ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe"])
@pytest.mark.parametrize("cutoff", ["00:00", "01:30", "02:00", "02:20", "02:59", "03:00"])
def test_windows_agree_with_dagster_partitions_through_dst(make_settings, timezone, cutoff):
    """A cutoff skipped by spring-forward or doubled by fall-back still gives the
    window Dagster's partition shows (and its cron ticks use): the transition
    instant for a skipped time, the second occurrence for a doubled one."""
    s = make_settings(VLLM_DIGEST_TIMEZONE=timezone, VLLM_DIGEST_CUTOFF=cutoff, VLLM_DIGEST_START_DATE="2026-01-01")
    partitions = daily_partitions(s)
    keys = partitions.get_partition_keys(current_time=dt.datetime(2026, 12, 31, tzinfo=dt.timezone.utc))
    assert {"2026-03-08", "2026-03-29", "2026-10-04", "2026-10-25", "2026-11-01"} <= set(keys)
    for key in keys:
        ours, dagster = window_for_day(key, s), partitions.time_window_for_partition_key(key)
        # timestamps: PEP 495 makes an instant in the fold unequal to every other zone's
        assert (ours.start.timestamp(), ours.end.timestamp()) == (dagster.start.timestamp(), dagster.end.timestamp()), key


def test_skipped_cutoff_is_the_instant_the_clock_jumps(make_settings):
    s = make_settings(VLLM_DIGEST_TIMEZONE="Europe/Berlin", VLLM_DIGEST_CUTOFF="02:20")
    berlin = ZoneInfo("Europe/Berlin")
    before = window_for_day("2026-03-28", s)  # ends on the spring-forward night
    assert before.end == dt.datetime(2026, 3, 29, 1, 0, tzinfo=dt.timezone.utc)
    assert before.end.astimezone(berlin).strftime("%H:%M %Z") == "03:00 CEST"
    # the hour the clock skips comes out of the two days around it: 23:40 and 23:20
    assert before.end - before.start == dt.timedelta(hours=23, minutes=40)
    after = window_for_day("2026-03-29", s)
    assert after.start == before.end and after.end - after.start == dt.timedelta(hours=23, minutes=20)
    doubled = window_for_day("2026-10-25", s)  # 02:20 happens twice: the second is the boundary
    assert doubled.start == dt.datetime(2026, 10, 25, 1, 20, tzinfo=dt.timezone.utc)
    assert window_for_day("2026-10-24", s).end == doubled.start


def test_a_day_before_start_date_is_named_with_the_start_date(make_settings):
    settings = make_settings(VLLM_DIGEST_START_DATE="2026-03-01")
    with pytest.raises(DayBeforeStartError) as caught:
        windows_for_keys(["2026-03-01", "2026-02-28"], settings)
    assert str(caught.value).startswith("day 2026-02-28 is before start_date 2026-03-01 (")
    assert [w.key for w in windows_for_keys(["2026-03-01"], settings)] == ["2026-03-01"]
    # the schedule's closed-day test still reads windows of any day
    assert window_for_day("2026-02-28", settings).key == "2026-02-28"


def test_a_range_starting_before_start_date_fails_once_and_says_why(make_settings):
    """Range tags reach the assets (Dagster checks only a single partition key up front): the
    first step says which day and which start_date, and is not retried. Before, Dagster's bare
    invariant error was retried by the raw asset's RetryPolicy for five minutes."""
    import dagster as dg

    from vllm_digest.definitions import build_definitions

    settings = make_settings(VLLM_DIGEST_START_DATE="2026-03-01")
    defs = build_definitions(settings)
    result = dg.materialize(
        list(defs.assets), resources=defs.resources, instance=dg.DagsterInstance.ephemeral(), raise_on_error=False,
        tags={"dagster/asset_partition_range_start": "2026-02-27", "dagster/asset_partition_range_end": "2026-03-01"},
    )
    assert not result.success
    types = [e.event_type_value for e in result.all_events]
    assert types.count("STEP_FAILURE") == 1 and "STEP_UP_FOR_RETRY" not in types
    [failure] = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert "day 2026-02-27 is before start_date 2026-03-01" in failure.step_failure_data.error.message
    assert not settings.raw_dir.exists()
