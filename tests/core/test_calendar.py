"""Day windows: exact local-time bounds, half-open, daylight saving included."""

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from vllm_digest.core.calendar import (
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

    from vllm_digest.testing.pipeline import materialize

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
    # the github source: its partitions run on past the sample's days, through both transitions
    s = make_settings(
        VLLM_DIGEST_TIMEZONE=timezone, VLLM_DIGEST_CUTOFF=cutoff, VLLM_DIGEST_START_DATE="2026-01-01",
        VLLM_DIGEST_SOURCE="github",
    )
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


def _days(first: str, last: str) -> list[str]:
    start, end = dt.date.fromisoformat(first), dt.date.fromisoformat(last)
    return [(start + dt.timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]


def test_sample_partitions_end_with_the_last_day_the_sample_covers(make_settings):
    # the embedded sample's windows (expected.json) end 2026-03-23 11:39 UTC+8: its last whole day
    # is the 22nd, at the Makefile's cutoff and at the default midnight alike
    assert daily_partitions(make_settings()).get_partition_keys() == _days("2026-03-01", "2026-03-22")
    midnight = make_settings(VLLM_DIGEST_CUTOFF="00:00")
    assert daily_partitions(midnight).get_partition_keys()[-1] == "2026-03-22"


def _sample_dir(root, end: str):
    folder = root / "vllm-project__vllm"
    folder.mkdir(parents=True)
    (folder / "issues.jsonl").write_text("")
    (folder / "coverage.json").write_text(f'{{"start": "2026-01-01T00:00:00Z", "end": "{end}"}}')
    return root


def test_a_sample_dir_ends_its_partitions_with_its_own_coverage(make_settings, tmp_path):
    def keys(root, end):
        settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(_sample_dir(root, end)), VLLM_DIGEST_START_DATE="2026-01-01")
        return daily_partitions(settings).get_partition_keys()

    # cutoff 11:39 UTC+8: the window of 01-09 ends 2026-01-10T03:39Z
    assert keys(tmp_path / "a", "2026-01-10T03:39:00Z") == _days("2026-01-01", "2026-01-09")
    assert keys(tmp_path / "b", "2026-01-10T03:38:00Z")[-1] == "2026-01-08"  # 01-09 lacks its last minute


def test_end_date_overrides_where_the_partitions_end(make_settings):
    sample = make_settings(VLLM_DIGEST_END_DATE="2026-03-10")
    assert daily_partitions(sample).get_partition_keys() == _days("2026-03-01", "2026-03-10")
    # past the sample: those days land as incomplete, as the check fetch_complete reports
    beyond = make_settings(VLLM_DIGEST_END_DATE="2026-04-30")
    assert daily_partitions(beyond).get_partition_keys()[-1] == "2026-04-30"
    github = make_settings(VLLM_DIGEST_SOURCE="github", VLLM_DIGEST_END_DATE="2026-05-31")
    assert daily_partitions(github).get_partition_keys()[-1] == "2026-05-31"


def test_github_partitions_run_to_the_last_closed_day(make_settings):
    partitions = daily_partitions(make_settings(VLLM_DIGEST_SOURCE="github"))
    # at 2026-06-01 12:00 UTC+8 the window of 05-31 closed 21 minutes ago, 06-01's is open
    keys = partitions.get_partition_keys(current_time=dt.datetime(2026, 6, 1, 12, 0, tzinfo=ZoneInfo("Asia/Shanghai")))
    assert keys == _days("2026-03-01", "2026-05-31")
    assert partitions.get_partition_keys()[-1] >= "2026-05-31"  # and on, day by day, to today


def test_a_sample_that_ends_before_the_start_date_is_named(make_settings):
    from vllm_digest.core.config.values import SettingsError
    with pytest.raises(SettingsError, match="last whole day is 2026-03-22, before the start date 2026-04-01"):
        daily_partitions(make_settings(VLLM_DIGEST_START_DATE="2026-04-01"))


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
    from vllm_digest.orchestration.jobs import daily_selection
    settings = make_settings(VLLM_DIGEST_START_DATE="2026-03-01")
    defs = build_definitions(settings)
    result = dg.materialize(
        list(defs.assets), selection=daily_selection(), resources=defs.resources,
        instance=dg.DagsterInstance.ephemeral(), raise_on_error=False,
        tags={"dagster/asset_partition_range_start": "2026-02-27", "dagster/asset_partition_range_end": "2026-03-01"},
    )
    assert not result.success
    types = [e.event_type_value for e in result.all_events]
    assert "STEP_UP_FOR_RETRY" not in types
    # the graph's two roots (raw_activity, ref_taxonomy_rules) each fail, and say why
    failures = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert len(failures) == 2
    for failure in failures:
        assert "day 2026-02-27 is before start_date 2026-03-01" in failure.step_failure_data.error.message
    assert not settings.raw_dir.exists()
