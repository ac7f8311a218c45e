"""When a `dagster dev` is quiet after a backfill: the re-render sensor must have read every run's end.

Dagster's run status sensor answers for one ended run per tick (its evaluation returns after the first
run our function answers for), so after a backfill's day run, weekly run and site run it needs three
ticks, 30 s apart. A tick after the last run ended is therefore no sign that the sensor has seen that
run: the wait reads the sensor's cursor, Dagster's own serialized RunStatusSensorCursor."""

from __future__ import annotations

import datetime as dt

# the cursor class the sensor daemon stores: not exported by dagster's top-level API (pinned to 1.13.x)
from dagster._core.definitions.run_status_sensor_definition import RunStatusSensorCursor

from vllm_digest.testing.dagster_dev import sensor_caught_up

T0 = dt.datetime(2026, 3, 6, 4, 0, tzinfo=dt.timezone.utc).timestamp()


def cursor_at(seconds: float) -> str:
    """The cursor as the sensor stores it after reading the run-status event of T0 + seconds."""
    read = dt.datetime.fromtimestamp(T0 + seconds, tz=dt.timezone.utc).isoformat()
    return RunStatusSensorCursor(record_id=1, record_timestamp=read).to_json()


def test_a_tick_after_the_last_run_is_not_enough_the_cursor_must_have_read_it():
    # a backfill's three runs ended at +100, +130 and +160 s; the sensor ticked at +135 (it read the first)
    # and at +170 (it read the second): it has ticked since the last end, yet has still to read it
    ends = [T0 + 100, T0 + 130, T0 + 160]
    assert not sensor_caught_up(cursor_at(130), ends)
    # its next tick reads the last one
    assert sensor_caught_up(cursor_at(160), ends)


def test_the_cursor_read_to_the_microsecond_matches_the_run_records_end():
    # the end as a float from the run record, the cursor as ISO text: equal moments, read as caught up
    end = T0 + 160.123456
    assert sensor_caught_up(cursor_at(160.123456), [end])
    # a run that ended a tenth of a second after the one read is still to be read
    assert not sensor_caught_up(cursor_at(160.123456), [end, end + 0.1])


def test_without_a_cursor_the_sensor_has_read_nothing_and_without_runs_there_is_nothing_to_read():
    assert not sensor_caught_up(None, [T0])
    assert sensor_caught_up(None, [])
