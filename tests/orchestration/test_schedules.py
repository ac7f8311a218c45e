"""The daily schedule: which days each tick asks for, in the configured timezone."""

from __future__ import annotations

import datetime as dt
import json
from zoneinfo import ZoneInfo

import dagster as dg
import pytest
# The daemon walks a schedule's ticks with this iterator; using it (not our own
# arithmetic) means the DST test sees the tick times the daemon would fire at.
from dagster._utils.schedules import cron_string_iterator

from vllm_digest.core.calendar import window_for_day
from vllm_digest.core.due import REPORT_GRACE_MINUTES, schedule_cron
from vllm_digest.core.keys import DAILY_JOB, DAILY_SCHEDULE, RANGE_END_TAG, RANGE_START_TAG
from vllm_digest.definitions import build_definitions
from vllm_digest.testing.pipeline import report_path

SHANGHAI = ZoneInfo("Asia/Shanghai")


def schedule_of(settings) -> dg.ScheduleDefinition:
    return next(s for s in build_definitions(settings).schedules if s.name == DAILY_SCHEDULE)


def requests_at(schedule: dg.ScheduleDefinition, tick: dt.datetime) -> list[dg.RunRequest]:
    data = schedule.evaluate_tick(dg.build_schedule_context(scheduled_execution_time=tick))
    return list(data.run_requests or [])


def test_cron_and_timezone_follow_settings(make_settings):
    schedule = schedule_of(make_settings())
    assert schedule.cron_schedule == "49 11 * * *"
    assert schedule.execution_timezone == "Asia/Shanghai"
    assert schedule.job_name == DAILY_JOB
    assert schedule.default_status == dg.DefaultScheduleStatus.STOPPED
    # a lag that carries the tick past midnight wraps to the next day's clock
    late = make_settings(VLLM_DIGEST_CUTOFF="23:55", VLLM_DIGEST_SCHEDULE_LAG="30")
    assert schedule_cron(late) == "25 0 * * *"


def test_tick_after_shanghai_cutoff_requests_closed_day_and_late_days(make_settings):
    schedule = schedule_of(make_settings())
    # 2026-03-23 11:49 +08: the window of 2026-03-22 closed 10 minutes ago
    [request] = requests_at(schedule, dt.datetime(2026, 3, 23, 11, 49, tzinfo=SHANGHAI))
    assert request.partition_key is None
    assert request.tags[RANGE_START_TAG] == "2026-03-20"
    assert request.tags[RANGE_END_TAG] == "2026-03-22"
    assert request.run_key == "2026-03-22"


def test_tick_before_cutoff_does_not_ask_for_the_open_day(make_settings):
    schedule = schedule_of(make_settings())
    # one minute before the cutoff 2026-03-22 is still open, so the latest closed day is the 21st
    [request] = requests_at(schedule, dt.datetime(2026, 3, 23, 11, 38, tzinfo=SHANGHAI))
    assert (request.tags[RANGE_START_TAG], request.tags[RANGE_END_TAG]) == ("2026-03-19", "2026-03-21")


def test_late_days_are_configurable_and_clamped_at_start(make_settings):
    wide = schedule_of(make_settings(VLLM_DIGEST_LATE_DAYS="5"))
    [request] = requests_at(wide, dt.datetime(2026, 3, 23, 11, 49, tzinfo=SHANGHAI))
    assert request.tags[RANGE_START_TAG] == "2026-03-17"
    none = schedule_of(make_settings(VLLM_DIGEST_LATE_DAYS="0"))
    [request] = requests_at(none, dt.datetime(2026, 3, 23, 11, 49, tzinfo=SHANGHAI))
    assert request.tags[RANGE_START_TAG] == request.tags[RANGE_END_TAG] == "2026-03-22"
    # the first day after the start date has no earlier days to revisit
    [request] = requests_at(wide, dt.datetime(2026, 3, 2, 11, 49, tzinfo=SHANGHAI))
    assert (request.tags[RANGE_START_TAG], request.tags[RANGE_END_TAG]) == ("2026-03-01", "2026-03-01")


def test_tick_before_any_closed_day_skips(make_settings):
    schedule = schedule_of(make_settings())
    data = schedule.evaluate_tick(
        dg.build_schedule_context(scheduled_execution_time=dt.datetime(2026, 3, 1, 11, 49, tzinfo=SHANGHAI))
    )
    assert not data.run_requests
    assert data.skip_message


SPRING = (dt.date(2026, 3, 26), dt.date(2026, 4, 1))  # 2026-03-29: 02:00 -> 03:00
AUTUMN = (dt.date(2026, 10, 22), dt.date(2026, 10, 28))  # 2026-10-25: 03:00 -> 02:00


@pytest.mark.parametrize(
    "cutoff, first, last",
    [
        ("00:00", *SPRING),
        ("00:00", *AUTUMN),
        ("11:39", *SPRING),
        ("11:39", *AUTUMN),
        # cutoff in the doubled hour: the boundary is the second 02:20, and the tick fires once, after it
        ("02:20", *AUTUMN),
        # cutoff in the skipped hour: the window and the tick both fall at the jump (03:00 CEST)
        ("02:20", *SPRING),
    ],
)
def test_berlin_dst_one_request_per_day(make_settings, cutoff, first, last):
    # the github source: its partitions (and ticks) go on past the sample's last day
    settings = make_settings(VLLM_DIGEST_TIMEZONE="Europe/Berlin", VLLM_DIGEST_CUTOFF=cutoff, VLLM_DIGEST_SOURCE="github")
    schedule = schedule_of(settings)
    berlin = ZoneInfo("Europe/Berlin")
    start = dt.datetime.combine(first, dt.time(0, 0), tzinfo=berlin)
    end = dt.datetime.combine(last, dt.time(0, 0), tzinfo=berlin)
    ticks = []
    for tick in cron_string_iterator(start.timestamp(), schedule.cron_schedule, schedule.execution_timezone):
        if tick >= end:
            break
        ticks.append(tick)
    # one tick per local day: none skipped in the spring gap, none doubled in autumn
    assert [t.date() for t in ticks] == [first + dt.timedelta(days=i) for i in range((last - first).days)]
    closed = []
    for tick in ticks:
        [request] = requests_at(schedule, tick)
        day = request.tags[RANGE_END_TAG]
        window = window_for_day(day, settings)
        # the requested day has closed at the tick, and it is the latest that has
        assert window.end <= tick < window_for_day(
            (dt.date.fromisoformat(day) + dt.timedelta(days=1)).isoformat(), settings
        ).end
        assert request.tags[RANGE_START_TAG] == (dt.date.fromisoformat(day) - dt.timedelta(days=2)).isoformat()
        closed.append(day)
    # every day exactly once, in order
    expected = [(first - dt.timedelta(days=1) + dt.timedelta(days=i)).isoformat() for i in range(len(ticks))]
    assert closed == expected


def test_scheduled_request_runs_as_one_run_over_the_range(make_settings):
    """The request the tick produces, executed by the job it targets, covers all three days in one run."""
    settings = make_settings()
    defs = build_definitions(settings)
    [request] = requests_at(schedule_of(settings), dt.datetime(2026, 3, 23, 11, 49, tzinfo=SHANGHAI))
    instance = dg.DagsterInstance.ephemeral()
    result = defs.resolve_job_def(DAILY_JOB).execute_in_process(instance=instance, tags=request.tags)
    assert result.success
    assert len(instance.get_runs()) == 1
    report = json.loads(report_path(settings, "2026-03-22", "json").read_text(encoding="utf-8"))
    assert report["counts"]["new_prs"] == 48
    for day in ("2026-03-20", "2026-03-21"):
        assert report_path(settings, day).is_file()
    assert not report_path(settings, "2026-03-19").exists()


def freshness_policies(settings) -> dict[str, object]:
    graph = build_definitions(settings).resolve_asset_graph()
    return {k.to_user_string(): graph.get(k).freshness_policy for k in graph.get_all_asset_keys()}


def test_report_carries_a_daily_freshness_policy_from_cutoff_and_lag(make_settings):
    policies = freshness_policies(make_settings())
    report = policies.pop("vllm_project/vllm/daily_report")
    assert isinstance(report, dg.FreshnessPolicy)
    # deadline: cutoff 11:39 + lag 10 + grace 60 = 12:49 local; looking back 70 min reaches the cutoff
    assert report.deadline_cron == "49 12 * * *"
    assert report.lower_bound_delta == dt.timedelta(minutes=70) == dt.timedelta(minutes=10 + REPORT_GRACE_MINUTES)
    assert report.timezone == "Asia/Shanghai"
    # the intermediate tables are watched through the report, not one by one
    assert set(policies.values()) == {None}


def test_freshness_policy_follows_timezone_lag_and_wraps_past_midnight(make_settings):
    settings = make_settings(VLLM_DIGEST_TIMEZONE="Europe/Berlin", VLLM_DIGEST_CUTOFF="23:30", VLLM_DIGEST_SCHEDULE_LAG="45")
    report = freshness_policies(settings)["vllm_project/vllm/daily_report"]
    assert (report.deadline_cron, report.timezone) == ("15 1 * * *", "Europe/Berlin")
    assert report.lower_bound_delta == dt.timedelta(minutes=105)
    # a lag near a day is capped at the day Dagster allows for a daily deadline
    long_lag = make_settings(VLLM_DIGEST_SCHEDULE_LAG="1430")
    assert freshness_policies(long_lag)["vllm_project/vllm/daily_report"].lower_bound_delta == dt.timedelta(days=1)


def test_freshness_window_opens_at_the_cutoff_of_the_day_the_tick_requests(make_settings):
    """Each deadline looks back to the moment the requested day closed, so only a run
    after that moment (one that can hold the day) counts as fresh."""
    settings = make_settings()
    report = freshness_policies(settings)["vllm_project/vllm/daily_report"]
    start = dt.datetime(2026, 3, 20, tzinfo=SHANGHAI)
    deadlines = cron_string_iterator(start.timestamp(), report.deadline_cron, report.timezone)
    schedule = schedule_of(settings)
    for _ in range(3):
        deadline = next(deadlines)
        opens = deadline - report.lower_bound_delta
        [request] = requests_at(schedule, deadline)
        assert opens == window_for_day(request.tags[RANGE_END_TAG], settings).end


def test_ticks_after_the_sample_ends_skip_and_say_why(make_settings):
    schedule = schedule_of(make_settings())
    # the sample's last day is 2026-03-22: the tick that closes it still asks for it and its late days
    [request] = requests_at(schedule, dt.datetime(2026, 3, 23, 11, 49, tzinfo=SHANGHAI))
    assert (request.tags[RANGE_START_TAG], request.tags[RANGE_END_TAG]) == ("2026-03-20", "2026-03-22")
    # the next closes 03-23, which is no partition: a request for it would fail the run
    data = schedule.evaluate_tick(
        dg.build_schedule_context(scheduled_execution_time=dt.datetime(2026, 3, 24, 11, 49, tzinfo=SHANGHAI))
    )
    assert not data.run_requests
    assert "2026-03-23, is after the last partition 2026-03-22 (the last day the sample covers)" in data.skip_message
    # with an end_date, the github source stops at it too
    ended = schedule_of(make_settings(VLLM_DIGEST_SOURCE="github", VLLM_DIGEST_END_DATE="2026-05-31"))
    data = ended.evaluate_tick(
        dg.build_schedule_context(scheduled_execution_time=dt.datetime(2026, 6, 2, 11, 49, tzinfo=SHANGHAI))
    )
    assert "(the end_date setting)" in data.skip_message
    [request] = requests_at(ended, dt.datetime(2026, 6, 1, 11, 49, tzinfo=SHANGHAI))
    assert request.tags[RANGE_END_TAG] == "2026-05-31"


def test_the_weekly_schedule_asks_for_the_week_whose_sunday_just_closed(make_settings):
    """Mondays at cutoff + lag + grace (the Sunday's daily run has had its grace); the week that just closed,
    never one still open; past the sample's last whole week it skips and says why."""
    from vllm_digest.core.keys import WEEKLY_JOB, WEEKLY_SCHEDULE
    from vllm_digest.orchestration.schedules import weekly_cron

    settings = make_settings()
    weekly = next(s for s in build_definitions(settings).schedules if s.name == WEEKLY_SCHEDULE)
    assert weekly.job_name == WEEKLY_JOB and weekly.default_status == dg.DefaultScheduleStatus.STOPPED
    assert weekly.cron_schedule == f"49 {11 + REPORT_GRACE_MINUTES // 60} * * 1"
    # past midnight: Tuesday
    assert weekly_cron(make_settings(VLLM_DIGEST_CUTOFF="23:30")) == "40 0 * * 2"
    monday = dt.date(2026, 3, 16)
    sunday_closes = window_for_day((monday + dt.timedelta(days=6)).isoformat(), settings).end
    tick = sunday_closes + dt.timedelta(minutes=10 + REPORT_GRACE_MINUTES)
    [request] = requests_at(weekly, tick)
    assert (request.tags[RANGE_START_TAG], request.tags[RANGE_END_TAG]) == ("2026-03-16", "2026-03-16")
    # a minute before that Sunday closes, the week before is the last closed one
    [request] = requests_at(weekly, sunday_closes - dt.timedelta(minutes=1))
    assert request.tags[RANGE_START_TAG] == "2026-03-09"
    # the sample ends with that week: a week later there is nothing to build
    data = weekly.evaluate_tick(dg.build_schedule_context(scheduled_execution_time=tick + dt.timedelta(days=7)))
    assert not data.run_requests and "after the last whole week" in data.skip_message
