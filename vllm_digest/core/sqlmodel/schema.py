"""The warehouse's declared tables and columns, read from ``sql/schema*.sql`` without a warehouse file.

The schema is static, so the asset definitions carry it (``dagster/column_schema``,
``dagster/column_lineage``) once, instead of every partition's materialization event
repeating it: that repetition was a measured share of a year-long backfill.

What each column holds is written beside it in the schema, as the column line's trailing
``-- `` comment (a line holding only a comment continues the column above); DuckDB
declares the columns and their types, the comments give the UI's column descriptions.
"""

from __future__ import annotations

import functools
import re

import duckdb

from vllm_digest.core.sqlmodel.files import schema_files, schema_statements


_CREATE_TABLE = re.compile(r"^CREATE TABLE IF NOT EXISTS ([a-z_][a-z0-9_]*) \($")
_COLUMN_LINE = re.compile(r"^\s+([a-z_][a-z0-9_]*)\s[^-]*?(?:--\s*(.*?))?\s*$")
_COMMENT_LINE = re.compile(r"^\s+--\s*(.*?)\s*$")


@functools.lru_cache(maxsize=1)
def _declared() -> tuple[dict, dict, dict]:
    """The schema files run once in memory: (table -> its column definitions, view -> its columns, view -> its
    SQL); every reader below takes its part of this one build."""
    con = duckdb.connect(":memory:")
    try:
        for ddl in schema_statements():
            con.execute(ddl)
        tables: dict[str, list[tuple[str, str, str | None]]] = {}
        views: dict[str, list[tuple[str, str]]] = {}
        for table, kind, column, dtype, default in con.execute(
            "SELECT c.table_name, t.table_type, c.column_name, c.data_type, c.column_default "
            "FROM information_schema.columns AS c "
            "JOIN information_schema.tables AS t USING (table_catalog, table_schema, table_name) "
            "WHERE t.table_type IN ('BASE TABLE', 'VIEW') ORDER BY c.table_name, c.ordinal_position"
        ).fetchall():
            if kind == "VIEW":
                views.setdefault(table, []).append((column, dtype))
            else:
                tables.setdefault(table, []).append((column, dtype, default))
        view_sql = dict(con.execute("SELECT view_name, sql FROM duckdb_views() WHERE NOT internal").fetchall())
        return ({t: tuple(c) for t, c in tables.items()}, {v: tuple(c) for v, c in views.items()}, view_sql)
    finally:
        con.close()


def declared_column_definitions() -> dict[str, tuple[tuple[str, str, str | None], ...]]:
    """table -> ((column, DuckDB type, default expression or None), ...) as the schema files create them."""
    return _declared()[0]


@functools.lru_cache(maxsize=1)
def declared_columns() -> dict[str, tuple[tuple[str, str], ...]]:
    """table (or view) -> ((column, DuckDB type), ...) as the schema files create them."""
    tables = {t: tuple((c, dtype) for c, dtype, _ in cols) for t, cols in declared_column_definitions().items()}
    return {**tables, **_declared()[1]}


_READS = re.compile(r"\b(?:FROM|JOIN)\s+\(?([a-z_][a-z0-9_]*)", re.IGNORECASE)


def columns_of(table: str) -> list[tuple[str, str]]:
    """A declared table's columns; a name the schema does not declare is a clear error."""
    found = declared_columns()
    if table not in found:
        raise KeyError(f"table {table!r} is not declared in sql/schema*.sql (declared: {', '.join(sorted(found))})")
    return list(found[table])


def parse_column_descriptions(text: str, source: str) -> dict[str, dict[str, str]]:
    """table -> column -> its trailing comment, for every CREATE TABLE of one schema file; a line
    inside a table that is neither a column nor a comment is an error naming ``source`` and the line."""
    found: dict[str, dict[str, str]] = {}
    table = column = None
    for number, line in enumerate(text.splitlines(), start=1):
        if table is None:
            if match := _CREATE_TABLE.match(line):
                table, column = match.group(1), None
                found[table] = {}
            continue
        if line.startswith(")"):
            table = None
        elif (match := _COMMENT_LINE.match(line)) and column is not None:
            found[table][column] = f"{found[table][column]} {match.group(1)}".strip()
        elif match := _COLUMN_LINE.match(line):
            column = match.group(1)
            found[table][column] = match.group(2) or ""
        else:
            raise ValueError(f"{source}:{number}: not a column line of table {table}: {line.strip()!r}")
    return found


@functools.lru_cache(maxsize=1)
def column_descriptions() -> dict[str, dict[str, str]]:
    """table -> column -> what it holds, as the schema files say it."""
    out: dict[str, dict[str, str]] = {}
    for path in schema_files():
        out.update(parse_column_descriptions(path.read_text(encoding="utf-8"), str(path)))
    # a view's column says what the same-named column of a table it reads says (core_item_texts: each
    # item-day's reference joined to its stored text)
    columns = declared_columns()
    for view, sql in _declared()[2].items():
        sources = [out.get(t, {}) for t in _READS.findall(sql)]
        out[view] = {c: next((d[c] for d in sources if d.get(c)), "") for c, _ in columns.get(view, ())}
    return out


@functools.lru_cache(maxsize=None)
def store_tables(store: str) -> tuple[str, ...]:
    """The tables the schema files of ``store`` (``files.WAREHOUSE`` or ``files.STATE``) declare."""
    return tuple(t for path in schema_files(store)
                 for t in parse_column_descriptions(path.read_text(encoding="utf-8"), str(path)))
