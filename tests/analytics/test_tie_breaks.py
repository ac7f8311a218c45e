"""Ties in the SQL models are broken by a total order, so the same rows give the same table whatever the order
they arrive in: each test feeds the same rows in two orders and asserts the one documented winner."""

from __future__ import annotations

import datetime as dt
import json

import duckdb

from tests.analytics.test_analytics import REPO
from vllm_digest.core.sqlmodel.files import bind, read_sql, schema_statements
from vllm_digest.core.sqlmodel.run_days import load_run_days
from vllm_digest.core.sqlmodel.writes import replace_partitions


DAY = dt.date(2026, 5, 1)
WINDOW_END = dt.datetime(2026, 5, 1, 12, 0, tzinfo=dt.timezone.utc)


def warehouse(path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(path))
    con.execute("SET TimeZone = 'UTC'")
    for ddl in schema_statements():
        con.execute(ddl)
    return con


def insert(con, table: str, row: dict) -> None:
    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM (SELECT unnest([$row], recursive := true))",
                {"row": {"repo": REPO.full_name, "day": DAY, **row}})


def test_a_file_listed_twice_keeps_the_row_with_the_most_changed_lines(tmp_path):
    small = {"number": 7, "filename": "vllm/a.py", "status": "modified", "additions": 1, "deletions": 0}
    large = {**small, "additions": 30, "deletions": 5}
    kept = []
    for i, rows in enumerate(([small, large], [large, small])):
        con = warehouse(tmp_path / f"w{i}.duckdb")
        path = tmp_path / f"files{i}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        replace_partitions(con, ["stg_pull_files"], [{"repo": REPO.full_name, "day": DAY, "files_path": str(path)}])
        kept.append(con.execute("SELECT number, filename, additions, deletions FROM stg_pull_files").fetchall())
    assert kept == [[(7, "vllm/a.py", 30, 5)]] * 2


def test_two_areas_with_the_same_longest_prefix_place_a_file_in_the_first_by_id(tmp_path):
    areas = [("scheduler", "vllm/v1/core/", "调度", "Scheduler"), ("kv_cache", "vllm/v1/core/", "KV 缓存", "KV cache"),
             ("v1", "vllm/v1/", "V1", "V1")]
    placed = []
    for i, order in enumerate((areas, areas[::-1])):
        con = warehouse(tmp_path / f"w{i}.duckdb")
        insert(con, "stg_pull_files", {"number": 7, "filename": "vllm/v1/core/sched.py", "status": "modified",
                                       "additions": 3, "deletions": 1})
        sql = read_sql("int_item_areas")
        load_run_days(con, [{"repo": REPO.full_name, "day": DAY}])
        params = {"repo": REPO.full_name, "area_ids": [a[0] for a in order],
                  "area_prefixes": [a[1] for a in order], "area_zh": [a[2] for a in order],
                  "area_en": [a[3] for a in order]}
        placed.append(con.execute(sql, bind(sql, params)).fetchall())
    assert [[(r[2], r[3], r[5], r[6]) for r in rows] for rows in placed] == [[(7, "kv_cache", "KV cache", 1)]] * 2


def test_two_closes_at_the_same_instant_name_one_closer_whatever_their_order(tmp_path):
    """Closed by its author and by a maintainer at the same second: the greater login is the closer, so the
    PR (closed 3 minutes after it opened) is junk or not the same way in every build."""
    opened = WINDOW_END - dt.timedelta(hours=1)
    closed = opened + dt.timedelta(minutes=3)
    results = []
    for i, actors in enumerate((("alice", "bob"), ("bob", "alice"))):
        con = warehouse(tmp_path / f"w{i}.duckdb")
        insert(con, "core_items", {"number": 1, "kind": "pr", "title": "[Kernel] Tune the fused MoE configs",
                                   "author_login": "bob", "created_at": opened, "closed_at": closed})
        for j, actor in enumerate(actors):
            insert(con, "core_events", {"event_key": f"e{j}", "number": 1, "kind": "pr", "event_type": "closed",
                                        "origin": "issue_event", "occurred_at": closed, "actor_login": actor})
        sql = read_sql("int_item_junk")
        load_run_days(con, [{"repo": REPO.full_name, "day": DAY, "window_end": WINDOW_END}])
        rows = con.execute(sql, bind(sql, {"repo": REPO.full_name}))
        results.append([(r[2], r[3], r[4]) for r in rows.fetchall()])
    assert results == [[(1, "quick_close", "closed unmerged after 3.0 min by bob")]] * 2
