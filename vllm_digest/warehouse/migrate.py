"""Apply the schema to a warehouse opened for writing, migrating one made by an older version.

Most schema changes are plain DDL in ``sql/schema*.sql`` (``ADD COLUMN IF NOT EXISTS``, ``RENAME``), which
runs on every open. One is not: ``core_item_texts`` was a table repeating each item-day's parsed body text
(an item touched on five days held it five times); it is now a view joining a reference per item-day
(``core_item_text_refs``) to each distinct text stored once (``core_texts``). A warehouse that still holds
the table has it renamed, the schema applied, its rows moved into the two tables (sql/core_texts_migrate.sql,
sql/core_item_text_refs_migrate.sql) and the old table dropped, in one transaction: a failure leaves the
warehouse as it was, and the view reads exactly the rows the table held.
"""

from __future__ import annotations

from typing import Callable

import duckdb

from vllm_digest.warehouse.sql_files import read_sql, schema_statements

OLD_TEXTS = "core_item_texts"
RENAMED = "core_item_texts_before_refs"


def _holds_old_texts_table(con: duckdb.DuckDBPyConnection) -> bool:
    found = con.execute(
        "SELECT table_type FROM information_schema.tables WHERE table_schema = 'main' AND table_name = $t",
        {"t": OLD_TEXTS},
    ).fetchall()
    return found == [("BASE TABLE",)]


def apply_schema(con: duckdb.DuckDBPyConnection, say: Callable[[str], None] | None = None) -> bool:
    """Run the schema on ``con``; True when an older warehouse's texts were migrated (``say`` tells so)."""
    if not _holds_old_texts_table(con):
        for ddl in schema_statements():
            con.execute(ddl)
        return False
    rows = con.execute(f"SELECT count(*) FROM {OLD_TEXTS}").fetchone()[0]
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(f"ALTER TABLE {OLD_TEXTS} RENAME TO {RENAMED}")
        for ddl in schema_statements():
            con.execute(ddl)
        for name in ("core_texts_migrate", "core_item_text_refs_migrate"):
            con.execute(read_sql(name))
        con.execute(f"DROP TABLE {RENAMED}")
        texts = con.execute("SELECT count(*) FROM core_texts").fetchone()[0]
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    if say is not None:
        say(f"migrated the warehouse's parsed body texts to one row per distinct text: {rows} item-day rows of "
            f"table {OLD_TEXTS} now reference {texts} stored texts (view {OLD_TEXTS} reads them as before)")
    return True
