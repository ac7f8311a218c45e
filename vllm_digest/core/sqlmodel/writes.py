"""Partition writes: each (repo, day) of a table is replaced by delete-then-insert
inside one transaction, so re-runs and backfills are idempotent and a failure
leaves the previous rows in place.

The days of a run are written set-based: the run's days go into the temporary
``run_days`` table (``run_days.py``: the one way a run's days reach SQL) that every
model reads, so a layer costs one DELETE, one INSERT and one count per model whatever
the number of days. Per-day statements
cost a fixed few milliseconds each (planning, ``read_json`` setup, a scan for
the delete and the count), which dominated a year-long backfill.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import duckdb

from vllm_digest.core.sqlmodel.files import bind, read_sql
from vllm_digest.core.sqlmodel.run_days import load_run_days
from vllm_digest.core.sqlmodel.transaction import transaction

# a model whose insert is not one ``INSERT INTO <model> BY NAME <its SQL>``: (connection, model, params)
Insert = Callable[[duckdb.DuckDBPyConnection, str, dict], None]


def replace_partitions(
    con: duckdb.DuckDBPyConnection,
    models: Sequence[str],
    days: Sequence[dict],
    before_insert: Callable[[str], None] | None = None,
    params: Mapping[str, object] | None = None,
    inserts: Mapping[str, Insert] | None = None,
    tables: Mapping[str, str] | None = None,
) -> dict[str, dict[str, int]]:
    """Rebuild the (repo, day) partitions of each model for every day in ``days``, in
    order, in one transaction. Each day is a dict with the ``RUN_DAYS_COLUMNS`` (the paths
    may be left out).

    Returns day -> model -> rows written. ``before_insert`` runs between a
    model's delete and its insert (tests use it to inject failures). ``params`` are
    statement parameters beyond the payload path lists (the analytics' taxonomy and weights);
    ``inserts`` replaces the plain insert of the models it names; ``tables`` names the table a model's
    partitions are stored in when that is not the model's own name (the model itself being a view over it).
    """
    if len({(d["repo"], str(d["day"])) for d in days}) != len(days):
        raise ValueError("a run lists the same (repo, day) twice")
    params = {**load_run_days(con, days), **(params or {})}
    counts: dict[str, dict[str, int]] = {str(d["day"]): {} for d in days}
    with transaction(con):
        for model in models:
            sql = read_sql(model)
            table = (tables or {}).get(model, model)
            con.execute(f"DELETE FROM {table} AS t USING run_days AS d WHERE t.repo = d.repo AND t.day = d.day")
            if before_insert is not None:
                before_insert(model)
            if inserts and model in inserts:
                inserts[model](con, model, params)
            else:
                con.execute(f"INSERT INTO {model} BY NAME {sql}", bind(sql, params))
            rows = con.execute(
                f"SELECT strftime(d.day, '%Y-%m-%d'), count(t.day) FROM run_days AS d "
                f"LEFT JOIN {table} AS t ON t.repo = d.repo AND t.day = d.day GROUP BY d.day"
            ).fetchall()
            for day, n in rows:
                counts[day][model] = n
    return counts
