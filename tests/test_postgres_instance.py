"""The PostgreSQL instance example (dagster.postgres.yaml) against a real PostgreSQL server:
the test starts its own (initdb + pg_ctl in a temp dir, a free port on 127.0.0.1), runs one
sample day of the whole graph with run, event-log and schedule storage there, reads the run
and its materializations back with SQL, and stops the server.

Skipped, with the reason, only where PostgreSQL's server binaries are missing (Debian's
`postgresql` package; `.ci/run` installs it). The server refuses to run as root, so as root
it runs as the unprivileged `postgres` system user (or `nobody`) in a temp dir that user owns.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import dagster as dg
import psycopg2
import pytest

from conftest import materialize

ROOT = Path(__file__).resolve().parents[1]
DAY = "2026-03-21"


def _pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    return found[-1] if found else shutil.which(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_user() -> str | None:
    """Who runs the server: ourselves, or an unprivileged system user when we are root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    pytest.skip("running as root and no unprivileged user (postgres, nobody) to run PostgreSQL as")


@pytest.fixture
def postgres():
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin "
                    "or on PATH: apt-get install postgresql")
    user = _server_user()
    if user and not shutil.which("runuser"):
        pytest.skip("running as root without runuser to start PostgreSQL as an unprivileged user")
    # under /tmp, not pytest's tmp_path: root's pytest dirs are 0700, closed to the server's user
    base = Path(tempfile.mkdtemp(prefix="vllm-digest-pg-"))
    data = base / "data"
    data.mkdir()
    prefix = ["runuser", "-u", user, "--"] if user else []
    if user:
        for path in (base, data):
            shutil.chown(path, user)
    port = _free_port()
    started = False
    try:
        subprocess.run([*prefix, initdb, "-D", str(data), "-U", "dagster", "--auth=trust", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True, text=True)
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-w", "-t", "60", "-l", str(base / "server.log"),
                        "-o", f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                       check=True, capture_output=True, text=True)
        started = True
        yield port
    except subprocess.CalledProcessError as exc:
        log = (base / "server.log").read_text(errors="replace") if (base / "server.log").exists() else ""
        raise AssertionError(f"{exc.cmd[len(prefix)]} failed: {exc.stderr}\n{log[-2000:]}") from exc
    finally:
        if started:
            subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def _sql(port: int, query: str, *args) -> list[tuple]:
    with psycopg2.connect(host="127.0.0.1", port=port, user="dagster", dbname="postgres") as con:
        with con.cursor() as cur:
            cur.execute(query, args)
            return cur.fetchall()


def test_one_day_runs_with_dagster_storage_in_postgres(postgres, tmp_path, make_settings, monkeypatch):
    home = tmp_path / "dagster_home"
    home.mkdir()
    for key, value in {"DAGSTER_PG_HOST": "127.0.0.1", "DAGSTER_PG_USER": "dagster",
                       "DAGSTER_PG_PASSWORD": "", "DAGSTER_PG_DB": "postgres"}.items():
        monkeypatch.setenv(key, value)
    # the example names the standard port; point it at this test's server
    text = (ROOT / "dagster.postgres.yaml").read_text(encoding="utf-8")
    assert "port: 5432" in text
    (home / "dagster.yaml").write_text(text.replace("port: 5432", f"port: {postgres}"), encoding="utf-8")

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
    assert counts["ASSET_MATERIALIZATION"] == assets == 25  # every asset of the graph, for the one day
    assert counts["ASSET_CHECK_EVALUATION"] == 8
    partitions = _sql(postgres, "SELECT DISTINCT partition FROM event_logs WHERE run_id = %s "
                                "AND dagster_event_type = 'ASSET_MATERIALIZATION'", run_id)
    assert partitions == [(DAY,)]
    report_key = '["vllm_project", "vllm", "daily_report"]'
    assert _sql(postgres, "SELECT count(*) FROM asset_keys WHERE asset_key = %s", report_key) == [(1,)]
    # schedule storage lives there too (the daemon's ticks and the schedule's state)
    assert _sql(postgres, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'job_ticks'") == [(1,)]
