"""Partition writes: each (repo, day) of a table is replaced by delete-then-insert
inside one transaction, so re-runs and backfills are idempotent and a failure
leaves the previous rows in place."""

from __future__ import annotations

from typing import Callable, Sequence

import duckdb

from vllm_digest.warehouse.sql_files import bind, read_sql


def replace_partition(
    con: duckdb.DuckDBPyConnection,
    models: Sequence[str],
    params: dict,
    before_insert: Callable[[str], None] | None = None,
) -> dict[str, int]:
    """Rebuild the (repo, day) partition of each model, in order, in one transaction.

    Returns the row count written per model. ``before_insert`` runs between a
    model's delete and its insert (tests use it to inject failures).
    """
    counts: dict[str, int] = {}
    con.execute("BEGIN TRANSACTION")
    try:
        for model in models:
            sql = read_sql(model)
            con.execute(
                f"DELETE FROM {model} WHERE repo = $repo AND day = CAST($day AS DATE)",
                {"repo": params["repo"], "day": params["day"]},
            )
            if before_insert is not None:
                before_insert(model)
            con.execute(f"INSERT INTO {model} BY NAME {sql}", bind(sql, params))
            counts[model] = con.execute(
                f"SELECT count(*) FROM {model} WHERE repo = $repo AND day = CAST($day AS DATE)",
                {"repo": params["repo"], "day": params["day"]},
            ).fetchone()[0]
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return counts


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    return [
        (name, dtype)
        for name, dtype in con.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_name = $t ORDER BY ordinal_position",
            {"t": table},
        ).fetchall()
    ]
