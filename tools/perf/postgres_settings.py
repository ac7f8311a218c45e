"""Which settings matter on a PostgreSQL instance: `python -m tools.perf.postgres_settings [--days 30]`.

Dagster's floor for our graph's shape (tools/perf/floor.py: the same assets, checks and single-run daily
partitions, steps that do nothing) over ``--days`` days, on a fresh local PostgreSQL server per variant
(vllm_digest/testing/postgres_server.py, dagster.postgres.yaml), with Dagster's environment switches that change how many
statements and connections the event log costs:

- ``default``: one event per asset and day, each written on a connection of its own (dagster-postgres
  holds no connection pool outside the webserver: ``NullPool``), a second one for an asset event's index;
- ``DAGSTER_EVENT_BATCH_SIZE``: a step's materializations of many days written in batches (one connection);
- ``DAGSTER_EMIT_PARTITION_SUBSET_IN_PLANNED_EVENTS``: one planned event per asset instead of per day
  (our setting ``planned_events_per_run``, README "Planned events");
- both.

It also measures what one connection costs on this server (open, one statement, close) against a
statement on a held connection, over TCP on 127.0.0.1 and the Unix socket. Prints one JSON object.
A measurement, not a test; the variants run in the order given, each once.
"""

from __future__ import annotations

import argparse
import glob
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BATCH = {"DAGSTER_EVENT_BATCH_SIZE": "1000"}
PLANNED = {"DAGSTER_EMIT_PARTITION_SUBSET_IN_PLANNED_EVENTS": "true"}
VARIANTS = {"default": {}, "event_batch": BATCH, "planned_per_run": PLANNED, "both": {**BATCH, **PLANNED}}
STATEMENTS = 300


def connection_cost(port: int) -> dict:
    """Milliseconds per statement: a new connection each (open, SELECT 1, close) vs one held connection."""
    import psycopg2

    from vllm_digest.testing.postgres_server import DB, USER

    sockets = glob.glob(f"/tmp/vllm-digest-pg-*/.s.PGSQL.{port}")
    hosts = {"tcp": "127.0.0.1", **({"unix_socket": str(Path(sockets[0]).parent)} if sockets else {})}
    out = {}
    for name, host in hosts.items():
        started = time.perf_counter()
        for _ in range(STATEMENTS):
            con = psycopg2.connect(host=host, port=port, user=USER, dbname=DB)
            with con.cursor() as cur:
                cur.execute("SELECT 1")
                cur.fetchone()
            con.close()
        fresh = (time.perf_counter() - started) / STATEMENTS * 1000
        con = psycopg2.connect(host=host, port=port, user=USER, dbname=DB)
        with con.cursor() as cur:
            started = time.perf_counter()
            for _ in range(STATEMENTS):
                cur.execute("SELECT 1")
                cur.fetchone()
            held = (time.perf_counter() - started) / STATEMENTS * 1000
        con.close()
        out[name] = {"new_connection_ms": round(fresh, 2), "held_connection_ms": round(held, 3)}
    return out


def database_bytes(port: int) -> int:
    import psycopg2

    from vllm_digest.testing.postgres_server import DB, USER

    with psycopg2.connect(host="127.0.0.1", port=port, user=USER, dbname=DB) as con, con.cursor() as cur:
        cur.execute("SELECT pg_database_size(current_database())")
        return int(cur.fetchone()[0])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.perf.postgres_settings", description=__doc__.split("\n\n")[0])
    p.add_argument("--days", type=int, default=30)
    p.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, of {', '.join(VARIANTS)}")
    args = p.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tools.perf.figures import floor_child
    from vllm_digest.testing.postgres_server import PostgresUnavailable, instance_home, local_postgres

    work = Path(tempfile.mkdtemp(prefix="pg-settings-"))
    result: dict = {"days": args.days, "floor_s": {}, "db_kib_per_day": {}}
    try:
        for name in args.variants.split(","):
            with local_postgres() as port:
                home = work / name
                env = {**instance_home(home, port, ROOT / "dagster.postgres.yaml"), **VARIANTS[name]}
                empty = database_bytes(port)
                result["floor_s"][name] = round(floor_child(args.days, "--dagster-home", str(home), env=env), 1)
                result["db_kib_per_day"][name] = round((database_bytes(port) - empty) / args.days / 1024)
                if "connection" not in result:
                    result["connection"] = connection_cost(port)
    except PostgresUnavailable as exc:
        result["unavailable"] = str(exc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
