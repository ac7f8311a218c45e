"""Bring an existing warehouse file up to the declared schema, with every column declared once.

A column is declared in one place only: its table's ``CREATE TABLE`` in a stage's ``sql/schema*.sql``. A
new warehouse is created from those statements. An older one is brought up to date when a writer opens
it, in this order:

1. the migrations it has not had, oldest first: the numbered files ``<stage>/sql/migrations/NNNN_<what>.sql``
   hold only what a ``CREATE`` cannot say (a table renamed, a column dropped). Each runs in its own
   transaction together with its row in ``schema_migrations``, so it runs once per warehouse. They run
   before the ``CREATE``s: a renamed table must be moved before ``CREATE TABLE IF NOT EXISTS`` makes an
   empty one under the new name. A warehouse older than ``schema_migrations`` itself runs them all, so
   each must be a no-op on a warehouse already in the state it leads to (``IF EXISTS``), or say the table
   it moves rows out of in a ``-- needs table: NAME`` line: without that base table there is nothing to
   move, and the migration is recorded as had without running;
2. the schema files (``CREATE ... IF NOT EXISTS``, macros);
3. every declared column the warehouse's table lacks is added, with the declared type and default, after
   the table's existing columns (its old rows hold the default, NULL unless declared, until rebuilt):
   derived from the ``CREATE``, so a new column needs no second declaration.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import duckdb

from vllm_digest.core.sqlmodel.files import PACKAGE
from vllm_digest.core.sqlmodel.schema import declared_column_definitions
from vllm_digest.core.sqlmodel.transaction import transaction

# which migrations a warehouse has had; the one table not declared by a stage (it belongs to no stage)
MIGRATIONS_TABLE = "schema_migrations"
_MIGRATIONS_DDL = (f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} ("
                   "name VARCHAR PRIMARY KEY, applied_at TIMESTAMPTZ DEFAULT current_timestamp)")
_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
_NEEDS = re.compile(r"^-- needs table: (\w+)\s*$", re.M)


@functools.lru_cache(maxsize=1)
def migration_files() -> tuple[Path, ...]:
    """Every stage's ``sql/migrations/*.sql`` in the order they apply (by number, unique across stages)."""
    found: dict[str, Path] = {}
    for path in PACKAGE.glob("*/sql/migrations/*.sql"):
        match = _NAME.match(path.name)
        if match is None:
            raise RuntimeError(f"migration {str(path)!r} is not named NNNN_<what>.sql")
        if match.group(1) in found:
            raise RuntimeError(f"migration number {match.group(1)} is used by both {str(found[match.group(1)])!r} "
                               f"and {str(path)!r}")
        found[match.group(1)] = path
    return tuple(found[n] for n in sorted(found))


def mark_migrated(con: duckdb.DuckDBPyConnection) -> None:
    """Record every migration as applied: for a warehouse just created from the schema files, which has
    nothing to migrate."""
    con.execute(_MIGRATIONS_DDL)
    for path in migration_files():
        con.execute(f"INSERT INTO {MIGRATIONS_TABLE} (name) VALUES ($n) ON CONFLICT DO NOTHING", {"n": path.name})


def apply_migrations(con: duckdb.DuckDBPyConnection, warehouse: str) -> list[str]:
    """Run the migrations ``warehouse`` (named in errors) has not had, each once; returns their names."""
    con.execute(_MIGRATIONS_DDL)
    done = {name for (name,) in con.execute(f"SELECT name FROM {MIGRATIONS_TABLE}").fetchall()}
    applied = []
    for path in migration_files():
        if path.name in done:
            continue
        sql = path.read_text(encoding="utf-8")
        needs = _NEEDS.search(sql)
        try:
            with transaction(con):
                if needs is None or _has_table(con, needs.group(1)):
                    con.execute(sql)
                con.execute(f"INSERT INTO {MIGRATIONS_TABLE} (name) VALUES ($n)", {"n": path.name})
        except duckdb.Error as exc:
            raise RuntimeError(f"warehouse {warehouse!r}: migration {str(path)!r} failed, nothing of it kept: "
                               f"{exc}") from exc
        applied.append(path.name)
    return applied


def _has_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_catalog = current_database() "
        "AND table_schema = 'main' AND table_name = $t AND table_type = 'BASE TABLE'", {"t": name},
    ).fetchone()[0] > 0


def add_missing_columns(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Add each declared column the warehouse's tables lack (type and default as declared); returns them
    as ``table.column``."""
    have = {(t, c) for t, c in con.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_catalog = current_database() AND table_schema = 'main'"
    ).fetchall()}
    tables = {t for t, _ in have}
    added = []
    for table, columns in declared_column_definitions().items():
        if table not in tables:
            continue  # the schema files create it whole
        for column, dtype, default in columns:
            if (table, column) not in have:
                con.execute(f'ALTER TABLE {table} ADD COLUMN "{column}" {dtype}'
                            + (f" DEFAULT {default}" if default is not None else ""))
                added.append(f"{table}.{column}")
    return added
