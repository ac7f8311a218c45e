"""The warehouse's declared tables and columns, read from ``sql/schema*.sql`` without a warehouse file.

The schema is static, so the asset definitions carry it (``dagster/column_schema``,
``dagster/column_lineage``) once, instead of every partition's materialization event
repeating it: that repetition was a measured share of a year-long backfill.
"""

from __future__ import annotations

import functools

import duckdb

from vllm_digest.warehouse.writes import table_columns
from vllm_digest.warehouse.sql_files import schema_statements


@functools.lru_cache(maxsize=1)
def declared_columns() -> dict[str, tuple[tuple[str, str], ...]]:
    """table -> ((column, DuckDB type), ...) as the schema files create them."""
    con = duckdb.connect(":memory:")
    try:
        for ddl in schema_statements():
            con.execute(ddl)
        tables = [t for (t,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' ORDER BY 1"
        ).fetchall()]
        return {t: tuple(table_columns(con, t)) for t in tables}
    finally:
        con.close()


def columns_of(table: str) -> list[tuple[str, str]]:
    """A declared table's columns; a name the schema does not declare is a clear error."""
    found = declared_columns()
    if table not in found:
        raise KeyError(f"table {table!r} is not declared in sql/schema*.sql (declared: {', '.join(sorted(found))})")
    return list(found[table])
