"""The PostgreSQL instance example (dagster.postgres.yaml) against a real PostgreSQL server:
the test starts its own (initdb + pg_ctl in a temp dir, a free port on 127.0.0.1), runs one
sample day of the whole graph with run, event-log and schedule storage there, reads the run
and its materializations back with SQL, and stops the server.

Skipped, with the reason, only where PostgreSQL's server binaries are missing (Debian's
`postgresql` package; `.ci/run` installs it). The server refuses to run as root, so as root
it runs as the unprivileged `postgres` system user (or `nobody`) in a temp dir that user owns.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import psycopg2
import pytest

from vllm_digest.testing.pipeline import materialize
from vllm_digest.testing.postgres_server import DB, USER, PostgresUnavailable, instance_home, local_postgres

ROOT = Path(__file__).resolve().parents[2]
DAY = "2026-03-21"


@pytest.fixture
def postgres():
    try:
        with local_postgres() as port:
            yield port
    except PostgresUnavailable as exc:  # raised before the server starts, never by the test
        pytest.skip(str(exc))


def _sql(port: int, query: str, *args) -> list[tuple]:
    with psycopg2.connect(host="127.0.0.1", port=port, user=USER, dbname=DB) as con:
        with con.cursor() as cur:
            cur.execute(query, args)
            return cur.fetchall()


def test_one_day_runs_with_dagster_storage_in_postgres(postgres, tmp_path, make_settings, monkeypatch):
    home = tmp_path / "dagster_home"
    for key, value in instance_home(home, postgres, ROOT / "dagster.postgres.yaml").items():
        monkeypatch.setenv(key, value)

    with dg.DagsterInstance.from_config(str(home)) as instance:
        assert {type(s).__name__ for s in (instance.run_storage, instance.event_log_storage,
                                           instance.schedule_storage)} == {
            "PostgresRunStorage", "PostgresEventLogStorage", "PostgresScheduleStorage"}
        settings = make_settings()
        run_id = materialize(settings, DAY, instance=instance).run_id
        assets = len(instance.get_asset_keys())

    # read back from PostgreSQL itself, not through Dagster
    assert _sql(postgres, "SELECT status FROM runs WHERE run_id = %s", run_id) == [("SUCCESS",)]
    counts = dict(_sql(postgres, "SELECT dagster_event_type, count(*) FROM event_logs WHERE run_id = %s "
                                 "AND dagster_event_type IS NOT NULL GROUP BY 1", run_id))
    # every daily asset of the graph: 35 for the one day, and the unpartitioned site (weeks are their own runs)
    assert counts["ASSET_MATERIALIZATION"] == assets == 38
    assert counts["ASSET_CHECK_EVALUATION"] == 10  # with the search cross-check and the counting warning
    partitions = _sql(postgres, "SELECT DISTINCT partition FROM event_logs WHERE run_id = %s "
                                "AND dagster_event_type = 'ASSET_MATERIALIZATION'", run_id)
    assert sorted(partitions, key=str) == [(DAY,), (None,)]
    report_key = '["vllm_project", "vllm", "daily_report"]'
    assert _sql(postgres, "SELECT count(*) FROM asset_keys WHERE asset_key = %s", report_key) == [(1,)]
