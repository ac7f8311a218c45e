"""Schemas once: every column is declared in its table's CREATE only; an older warehouse is brought up to date
when a writer opens it (the numbered migrations it has not had, each once, then the declared columns it lacks)."""

from __future__ import annotations

import re
from collections import Counter

import duckdb

from vllm_digest.analytics.build import ANALYTICS_MODELS, REF_MODELS
from vllm_digest.core.sqlmodel.files import STATE, WAREHOUSE, schema_files, sql_files
from vllm_digest.core.sqlmodel.migrate import MIGRATIONS_TABLE, migration_files
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.core.sqlmodel.schema import (
    column_descriptions, declared_column_definitions, declared_columns, parse_column_descriptions, store_tables,
)
from vllm_digest.core.sqlmodel.state import StateResource
from vllm_digest.warehouse.layers import CORE_MODELS, MART_MODELS, STG_MODELS

_ADD_COLUMN = re.compile(r"ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(\w+)\s+ADD\s+(?:COLUMN\s+)?(?:IF\s+NOT\s+EXISTS\s+)?(\w+)",
                         re.I)


def _columns(con, table: str) -> list[str]:
    return [c for (c,) in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = $t ORDER BY ordinal_position",
        {"t": table}).fetchall()]


def test_every_column_is_declared_in_one_place():
    """A column is declared by its table's CREATE and nowhere else: no ADD COLUMN repeats it, in a schema file
    or a migration, and the schema files hold no ALTER at all (what a CREATE cannot say is a migration)."""
    declared: Counter = Counter()
    for path in [*schema_files(), *migration_files()]:
        text = path.read_text(encoding="utf-8")
        for table, columns in parse_column_descriptions(text, str(path)).items():
            declared.update((table, c) for c in columns)
        declared.update((t, c) for t, c in _ADD_COLUMN.findall(text))
    twice = sorted(f"{t}.{c}" for (t, c), n in declared.items() if n > 1)
    assert twice == [], f"declared more than once: {twice}"
    altering = [p.name for p in schema_files() if re.search(r"^\s*ALTER\s", p.read_text(encoding="utf-8"), re.M)]
    assert altering == []


def test_every_declared_column_has_its_description():
    """The UI's column descriptions are still read from the CREATEs: one for every declared column."""
    descriptions = column_descriptions()
    for table, columns in declared_columns().items():
        assert set(descriptions[table]) == {c for c, _ in columns}, table


def test_migrations_are_numbered_in_order():
    names = [p.name for p in migration_files()]
    assert names == sorted(names) and len(names) >= 2
    assert all(re.match(r"^\d{4}_[a-z0-9_]+\.sql$", n) for n in names)


def test_a_new_warehouse_has_had_every_migration_and_the_declared_columns(tmp_path):
    path = tmp_path / "new.duckdb"
    with WarehouseResource(path=str(path)).connect() as con:
        recorded = sorted(n for (n,) in con.execute(f"SELECT name FROM {MIGRATIONS_TABLE}").fetchall())
        shapes = {t: _columns(con, t) for t in declared_columns()}
    assert recorded == [p.name for p in migration_files()]
    ours = set(store_tables(WAREHOUSE)) | {v for v in declared_columns() if v not in declared_column_definitions()}
    assert shapes == {t: [c for c, _ in cols] if t in ours else [] for t, cols in declared_columns().items()}


def test_each_schema_file_names_its_store_and_the_state_store_holds_only_its_tables(tmp_path):
    """The delivery log and the narrative cache live in the state store, every other table in the warehouse."""
    assert set(store_tables(STATE)) == {"delivery_log", "narrative_cache", "narrative_rejections"}
    assert not set(store_tables(STATE)) & set(store_tables(WAREHOUSE))
    with StateResource(path=str(tmp_path / "state.duckdb")).connect() as con:
        tables = {t for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        shapes = {t: _columns(con, t) for t in store_tables(STATE)}
    assert tables == set(store_tables(STATE))
    assert shapes == {t: [c for c, _ in declared_columns()[t]] for t in store_tables(STATE)}


def test_an_older_warehouse_is_migrated_once_and_gains_the_declared_columns(tmp_path):
    """A warehouse from before the migrations table: its old table names move, its hand-set point columns go,
    every declared column it lacks is added after its own (old rows keep their values), and each migration is
    recorded, so a second open runs none again."""
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE mart_item_features (repo VARCHAR, day DATE, number INTEGER, kind VARCHAR, value VARCHAR)")
    con.execute("INSERT INTO mart_item_features VALUES ('o/r', DATE '2026-03-22', 1, 'tag', 'kernel')")
    con.execute("CREATE TABLE mart_key_changes (repo VARCHAR NOT NULL, day DATE NOT NULL, number INTEGER NOT NULL, "
                "title VARCHAR, merged_points DOUBLE, size_points DOUBLE, key_score DOUBLE, key_rank INTEGER)")
    con.execute("INSERT INTO mart_key_changes VALUES ('o/r', DATE '2026-03-22', 7, 'a PR', 1.0, 2.0, 3.5, 1)")
    con.execute("CREATE TABLE core_people (repo VARCHAR NOT NULL, day DATE NOT NULL, login VARCHAR NOT NULL)")
    con.execute("INSERT INTO core_people VALUES ('o/r', DATE '2026-03-22', 'alice')")
    con.close()

    with WarehouseResource(path=str(path)).connect() as con:
        tables = {t for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        features = con.execute("SELECT number, kind, value FROM int_item_features").fetchall()
        key_columns = _columns(con, "mart_key_changes")
        key_row = con.execute("SELECT number, title, key_score, key_rank, selected, score_parts "
                              "FROM mart_key_changes").fetchall()
        people = con.execute("SELECT login, active, company FROM core_people").fetchall()
        recorded = sorted(n for (n,) in con.execute(f"SELECT name FROM {MIGRATIONS_TABLE}").fetchall())
        # a table under an old name again: a migration that ran already must not touch it on the next open
        con.execute("CREATE TABLE mart_item_links (repo VARCHAR, day DATE)")
    assert "mart_item_features" not in tables and features == [(1, "tag", "kernel")]
    assert "merged_points" not in key_columns and "size_points" not in key_columns
    assert set(key_columns) == {c for c, _ in declared_columns()["mart_key_changes"]}
    assert key_columns[:4] == ["repo", "day", "number", "title"]  # its own columns first, the added ones after
    assert key_row == [(7, "a PR", 3.5, 1, None, None)]
    assert people == [("alice", True, None)]  # a row from before the flag was an actor (the declared default)
    assert recorded == [p.name for p in migration_files()]

    with WarehouseResource(path=str(path)).connect() as con:
        tables = {t for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert {"mart_item_links", "int_item_links"} <= tables


def test_every_model_is_in_one_layer_list_and_declared_once():
    """The layer lists keep the build order by hand (each model reads the ones before it, which the file names
    do not say); they name every model file with a table prefix exactly once, and each is a declared table."""
    listed = [*STG_MODELS, *CORE_MODELS, *MART_MODELS, *REF_MODELS, *ANALYTICS_MODELS]
    assert len(listed) == len(set(listed))
    # a model written in steps keeps them in files named after it (core_item_texts_store, ...)
    files = {n for n in sql_files() if n.startswith(("stg_", "core_", "ref_", "int_", "mart_"))
             and not any(n.startswith(f"{m}_") for m in listed)}
    assert set(listed) == files
    assert set(listed) <= set(declared_columns())
