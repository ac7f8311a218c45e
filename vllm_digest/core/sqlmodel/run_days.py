"""The one way a run's days reach SQL: the connection-local temporary table ``run_days``.

Every statement that works on "the days of this run" reads them from ``run_days`` (``JOIN run_days``,
``day IN (SELECT day FROM run_days)``, ``SELECT day, window_end FROM run_days``, ``min(day)``/``max(day)``
for a span), never from a bound list. One table rather than a ``$days`` parameter because:

- a table carries several columns per day side by side (the window's bounds, the landing's payload
  paths), where parameters are parallel lists that every statement had to ``unnest`` in step;
- a model that joins it needs no parameter plumbing, and a step that runs several statements over the
  same days (a partition write: delete, insert, count) states them once;
- it is TEMP, so it lives in this connection only: concurrent readers and writers never see each
  other's, and it works on a read-only connection too (DuckDB keeps the temp catalog in memory), which
  the report, the weekly digest and the checks use.

Whoever runs such a statement loads the table first with ``load_run_days`` on the same connection (a
cursor is another connection and would not see it). Parameters that are not the run's days stay
parameters: counts of days (``$history_days``), one row's key (the delivery log's ``$day``), and the
report's named (day, number) item pairs.
"""

from __future__ import annotations

from typing import Sequence

import duckdb

from vllm_digest.core.vocabulary import PAYLOAD_KINDS

# one row per day of the run; the models read window bounds and payload paths from it (the analytics,
# which read tables only, leave the paths empty; the report and the checks, the windows too)
RUN_DAYS_COLUMNS = (
    ("repo", "VARCHAR"),
    ("day", "DATE"),
    ("window_start", "TIMESTAMPTZ"),
    ("window_end", "TIMESTAMPTZ"),
    ("manifest_path", "VARCHAR"),
    *((f"{kind}_path", "VARCHAR") for kind in PAYLOAD_KINDS),
)


def load_run_days(con: duckdb.DuckDBPyConnection, days: Sequence[dict]) -> dict:
    """Fill ``run_days`` with ``days`` (dicts with ``repo`` and ``day``, and any other ``RUN_DAYS_COLUMNS``;
    a column left out is NULL) and return the statement parameters: the path lists ``read_json`` takes
    (``read_json`` needs its file list when the statement is planned, so it cannot read it from a table)."""
    cols = ", ".join(f"{name} {dtype}" for name, dtype in RUN_DAYS_COLUMNS)
    # a temp table lives in this connection only, so concurrent readers never see it
    con.execute(f"CREATE OR REPLACE TEMP TABLE run_days ({cols})")
    names = [name for name, _ in RUN_DAYS_COLUMNS]
    if not days:
        return {f"{n[:-len('_path')]}_paths": [] for n in names if n.endswith("_path")}
    # one statement of parallel lists: executemany costs a round trip per row (3 s a year)
    con.execute(
        "INSERT INTO run_days SELECT "
        + ", ".join(f"CAST(unnest(${n}) AS {t})" for n, t in RUN_DAYS_COLUMNS),
        {n: [d.get(n) for d in days] for n in names},
    )
    return {f"{n[:-len('_path')]}_paths": [d.get(n) for d in days] for n in names if n.endswith("_path")}


def repo_days(repo: str, days: Sequence[object]) -> list[dict]:
    """``load_run_days``' rows for a run that knows only its repository and day keys (the readers)."""
    return [{"repo": repo, "day": day} for day in days]
