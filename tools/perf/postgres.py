"""Figure (1) on a PostgreSQL instance: Dagster's floor and the whole graph over the 365 days, with
run and event storage in a local PostgreSQL server (vllm_digest/testing/postgres_server.py), plus the database's
size per day. Needs PostgreSQL's server binaries; ``measure()`` says why it cannot run otherwise.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _database_bytes(port: int) -> int:
    import psycopg2

    from vllm_digest.testing.postgres_server import DB, USER

    with psycopg2.connect(host="127.0.0.1", port=port, user=USER, dbname=DB) as con, con.cursor() as cur:
        cur.execute("SELECT pg_database_size(current_database())")
        return int(cur.fetchone()[0])


def measure(work: Path, sample_root: Path, first: str, last: str, days: int) -> dict:
    """{floor_s, year_s, peak_rss_mib, db_bytes_per_day (what the run added)} or {unavailable: reason}."""
    sys.path.insert(0, str(ROOT))
    from tools.perf.figures import floor_child, run_child
    from vllm_digest.testing.postgres_server import PostgresUnavailable, instance_home, local_postgres

    out: dict = {}
    try:
        for name in ("floor", "year"):  # a fresh server each, so each database holds one run
            with local_postgres() as port:
                home = work / f"pg-dagster-home-{name}"
                env = instance_home(home, port, ROOT / "dagster.postgres.yaml")
                if name == "floor":
                    out["floor_s"] = floor_child(days, "--dagster-home", str(home), env=env)
                else:
                    empty = _database_bytes(port)  # the catalog of a fresh database, ~7.5 MiB
                    data_home = work / "home-year-pg"
                    shutil.rmtree(data_home, ignore_errors=True)
                    got = run_child("--home", str(data_home), "--sample-dir", str(sample_root), "--first", first,
                                    "--last", last, "--dagster-home", str(home), env=env)
                    out["year_s"], out["peak_rss_mib"] = got["wall_s"], got["peak_rss_mib"]
                    out["db_bytes_per_day"] = (_database_bytes(port) - empty) / days
                shutil.rmtree(home, ignore_errors=True)
    except PostgresUnavailable as exc:
        return {"unavailable": str(exc)}
    return out
