"""Day windows: exact local-time bounds, half-open, daylight saving included."""

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from vllm_digest.partitions import daily_partitions, utc_offset_label, window_for_day


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
