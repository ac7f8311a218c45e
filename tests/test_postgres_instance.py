"""The PostgreSQL instance example (dagster.postgres.yaml) against a real PostgreSQL:
a local server in a temp dir, one sample day materialized, its run read back.

Needs the `dagster_postgres` package (not a project dependency) and PostgreSQL's
server binaries; skipped with the reason otherwise. Nothing is installed here."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("dagster_postgres", reason="dagster-postgres is not installed (pip install dagster-postgres)")

import dagster as dg  # noqa: E402

from conftest import materialize  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name) or sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))[-1:]
    return found if isinstance(found, str) else (found[0] if found else None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def postgres(tmp_path):
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found")
    data = tmp_path / "pgdata"
    data.mkdir()
    # the server refuses to run as root: run it as an unprivileged user when we are root
    prefix: list[str] = []
    if os.geteuid() == 0:
        if not shutil.which("runuser"):
            pytest.skip("running as root without runuser to drop privileges for PostgreSQL")
        shutil.chown(tmp_path, "nobody")
        shutil.chown(data, "nobody")
        prefix = ["runuser", "-u", "nobody", "--"]
    port = _free_port()
    subprocess.run([*prefix, initdb, "-D", str(data), "-U", "dagster", "--auth=trust"], check=True,
                   capture_output=True)
    subprocess.run([*prefix, pg_ctl, "-D", str(data), "-w", "-o",
                    f"-p {port} -k {tmp_path} -c listen_addresses=127.0.0.1", "-l", str(tmp_path / "pg.log"),
                    "start"], check=True, capture_output=True)
    try:
        yield port
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "fast", "stop"], capture_output=True)


def test_run_history_lands_in_postgres(postgres, tmp_path, make_settings, monkeypatch):
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(ROOT / "dagster.postgres.yaml", home / "dagster.yaml")
    for key, value in {"DAGSTER_PG_HOST": "127.0.0.1", "DAGSTER_PG_USER": "dagster",
                       "DAGSTER_PG_PASSWORD": "", "DAGSTER_PG_DB": "postgres"}.items():
        monkeypatch.setenv(key, value)
    # the example reads the port literally; point it at this test's server
    text = (home / "dagster.yaml").read_text().replace("port: 5432", f"port: {postgres}")
    (home / "dagster.yaml").write_text(text)
    with dg.DagsterInstance.from_config(str(home)) as instance:
        settings = make_settings()
        result = materialize(settings, "2026-03-21", instance=instance)
        assert instance.get_run_by_id(result.run_id).is_success
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
