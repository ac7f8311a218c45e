"""Parsed body texts are stored once per distinct text (content-addressed), against a real DuckDB file:
``core_item_texts`` still reads one row per item-day, exactly what each body says; an older warehouse,
whose ``core_item_texts`` was a table of its own, is migrated when opened, rows kept."""

import duckdb
import pytest

import re

from vllm_digest.core.sqlmodel.files import PACKAGE
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.core.sqlmodel.writes import replace_partitions
from vllm_digest.warehouse.bodies import parse_body
from vllm_digest.warehouse.layers import INSERTS, STORED_IN


REPO = "o/r"
FILLED = "## Purpose\n\nCount cached tokens in the attention metadata so prefix hits show up in the stats.\n"
UNFILLED = "## Purpose\n\nPLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS BELOW ARE COMPLETED.\n"
EDITED = "## Purpose\n\nCount cached tokens per request so that prefix cache hits show up in the engine stats.\n"
TEXT_COLUMNS = ("has_description, what, purpose, test_plan, test_result, result_figures, referenced_items, "
                "meaningful_text, sections")


def _items(con, rows):
    """core_items rows (repo, day, number, kind, body): the only columns core_item_texts reads."""
    for day, number, body in rows:
        con.execute("INSERT INTO core_items (repo, day, number, kind, body) "
                    "VALUES ($r, CAST($d AS DATE), $n, 'pr', $b)", {"r": REPO, "d": day, "n": number, "b": body})


def _build(con, days):
    return replace_partitions(con, ["core_item_texts"], [{"repo": REPO, "day": d} for d in days],
                              inserts=INSERTS, tables=STORED_IN)


def _expected(body):
    p = parse_body(body)
    return (p.has_description, p.what, p.purpose, p.test_plan, p.test_result, list(p.figures), list(p.references),
            p.text, list(p.sections))


def _texts(con):
    return {(str(d), n): tuple(rest) for d, n, *rest in con.execute(
        f"SELECT day, number, {TEXT_COLUMNS} FROM core_item_texts ORDER BY day, number").fetchall()}


def test_each_distinct_text_is_stored_once_and_read_per_item_day(tmp_path):
    path = tmp_path / "warehouse.duckdb"
    with WarehouseResource(path=str(path)).connect() as con:
        # item 1 touched on three days with one body; items 2 and 3 both left the template unfilled; 4 has no body
        _items(con, [(d, 1, FILLED) for d in ("2026-03-20", "2026-03-21", "2026-03-22")]
               + [("2026-03-22", 2, UNFILLED), ("2026-03-22", 3, UNFILLED), ("2026-03-22", 4, None)])
        counts = _build(con, ["2026-03-20", "2026-03-21", "2026-03-22"])
        assert counts["2026-03-22"]["core_item_texts"] == 4
        stored = con.execute("SELECT count(*), count(DISTINCT text_hash) FROM core_texts").fetchone()
        refs = con.execute("SELECT count(*) FROM core_item_text_refs").fetchone()[0]
        assert stored == (2, 2) and refs == 6  # two texts (filled, unfilled) for six item-days
        texts = _texts(con)
        kind = con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = 'core_item_texts'"
                           ).fetchone()[0]
    assert kind == "VIEW"
    assert texts == {
        **{(d, 1): _expected(FILLED) for d in ("2026-03-20", "2026-03-21", "2026-03-22")},
        ("2026-03-22", 2): _expected(UNFILLED), ("2026-03-22", 3): _expected(UNFILLED),
        ("2026-03-22", 4): _expected(None),
    }
    assert texts["2026-03-22", 1][1].startswith("Count cached tokens") and texts["2026-03-22", 2][1] == ""


def test_a_rebuilt_day_keeps_shared_texts_and_drops_texts_nothing_references(tmp_path):
    path = tmp_path / "warehouse.duckdb"
    with WarehouseResource(path=str(path)).connect() as con:
        _items(con, [("2026-03-21", 1, FILLED), ("2026-03-22", 1, FILLED), ("2026-03-22", 2, EDITED)])
        _build(con, ["2026-03-21", "2026-03-22"])
        assert con.execute("SELECT count(*) FROM core_texts").fetchone()[0] == 2
        # the 22nd is re-fetched: item 2 lost its body, item 1 (also on the 21st) is gone from the day
        con.execute("DELETE FROM core_items WHERE day = DATE '2026-03-22'")
        _items(con, [("2026-03-22", 2, None)])
        _build(con, ["2026-03-22"])
        whats = [w for (w,) in con.execute("SELECT what FROM core_texts").fetchall()]
        texts = _texts(con)
    assert whats == [parse_body(FILLED).what]  # the 21st still references it; the edited text is gone
    assert texts == {("2026-03-21", 1): _expected(FILLED), ("2026-03-22", 2): _expected(None)}


OLD_TABLE = """CREATE TABLE core_item_texts (
    repo VARCHAR NOT NULL, day DATE NOT NULL, number INTEGER NOT NULL, kind VARCHAR NOT NULL,
    has_description BOOLEAN, what VARCHAR, purpose VARCHAR, test_plan VARCHAR, test_result VARCHAR,
    result_figures VARCHAR[], referenced_items INTEGER[], meaningful_text VARCHAR, sections VARCHAR[])"""


def _old_warehouse(path):
    """A warehouse made when core_item_texts was a table holding each item-day's text."""
    con = duckdb.connect(str(path))
    con.execute(OLD_TABLE)
    for day, number, body in [("2026-03-21", 1, FILLED), ("2026-03-22", 1, FILLED), ("2026-03-22", 2, UNFILLED),
                              ("2026-03-22", 3, None)]:
        con.execute("INSERT INTO core_item_texts VALUES ($r, CAST($d AS DATE), $n, 'pr', "
                    + ", ".join(f"${c}" for c in ("h", "w", "p", "tp", "tr", "f", "ri", "t", "s")) + ")",
                    dict(zip(("r", "d", "n", "h", "w", "p", "tp", "tr", "f", "ri", "t", "s"),
                             (REPO, day, number, *_expected(body)))))
    before = _texts(con)
    con.close()
    return before


def test_an_older_warehouse_is_migrated_when_opened_rows_kept(tmp_path, caplog):
    path = tmp_path / "old.duckdb"
    before = _old_warehouse(path)
    with caplog.at_level("WARNING"):
        with WarehouseResource(path=str(path)).connect() as con:
            after = _texts(con)
            stored = con.execute("SELECT count(*) FROM core_texts").fetchone()[0]
            tables = {t: k for t, k in con.execute(
                "SELECT table_name, table_type FROM information_schema.tables").fetchall()}
            # the next build of a day writes references into the migrated tables
            _items(con, [("2026-03-23", 1, FILLED)])
            _build(con, ["2026-03-23"])
            assert con.execute("SELECT count(*) FROM core_texts").fetchone()[0] == stored
            rebuilt = _texts(con)[("2026-03-23", 1)]
    assert after == before and len(after) == 4
    assert stored == 2  # the filled text, and the empty one the unfilled template and the bodiless item share
    assert tables["core_item_texts"] == "VIEW"
    assert rebuilt == before[("2026-03-22", 1)]
    assert "applied migration 0003_item_texts_stored_once.sql" in caplog.text
    # opened again: nothing left to migrate
    caplog.clear()
    with caplog.at_level("WARNING"):
        with WarehouseResource(path=str(path)).connect() as con:
            assert len(_texts(con)) == 5
    assert "applied migration" not in caplog.text


def test_a_failed_migration_leaves_the_older_warehouse_as_it_was(tmp_path):
    path = tmp_path / "old.duckdb"
    before = _old_warehouse(path)
    # an older table the migration cannot read (a column it moves is missing): it fails as a whole
    con = duckdb.connect(str(path))
    con.execute("ALTER TABLE core_item_texts DROP COLUMN sections")
    con.close()
    with pytest.raises(RuntimeError, match="0003_item_texts_stored_once.sql' failed, nothing of it kept"):
        with WarehouseResource(path=str(path)).connect():
            pass
    con = duckdb.connect(str(path), read_only=True)
    try:
        kind = con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = 'core_item_texts'"
                           ).fetchone()[0]
        kept = con.execute("SELECT count(*) FROM core_item_texts").fetchone()[0]
        made = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name IN "
                           "('core_texts', 'core_item_text_refs')").fetchone()[0]
        assert kind == "BASE TABLE" and kept == len(before) and made == 0
    finally:
        con.close()


def _hash_expression(text: str) -> str:
    """The sha256(...) expression of a parsed text's hash, whitespace folded."""
    start = text.index("sha256(")
    depth, end = 0, start
    for i, ch in enumerate(text[start:], start):
        depth += ch == "("
        depth -= ch == ")"
        if ch == ")" and depth == 0:
            end = i + 1
            break
    return re.sub(r"\s+", " ", text[start:end])


def test_the_migration_hashes_a_text_as_the_schema_does():
    """The migration spells out schema.sql's parsed_text_hash (it runs before the schema): the two must agree, or
    a migrated warehouse would store a text a second time under another key."""
    schema = (PACKAGE / "warehouse" / "sql" / "schema.sql").read_text(encoding="utf-8")
    migration = (PACKAGE / "warehouse" / "sql" / "migrations" / "0003_item_texts_stored_once.sql").read_text(
        encoding="utf-8")
    macro = _hash_expression(schema[schema.index("CREATE OR REPLACE MACRO parsed_text_hash"):])
    assert re.sub(r"\s+", " ", migration).count(macro) == 2


def _constraints(con):
    return sorted(con.execute(
        "SELECT table_name, constraint_type, constraint_column_names FROM duckdb_constraints() "
        "WHERE table_name IN ('core_texts', 'core_item_text_refs') AND constraint_type IN ('PRIMARY KEY', 'NOT NULL')"
    ).fetchall())


def test_a_text_is_stored_once_under_its_key_in_a_new_and_a_migrated_warehouse(tmp_path):
    """The key refuses a second row for one text (two writers storing it at once conflict instead of doubling
    every item-day that reads it), and a migrated warehouse has the same constraints as a new one."""
    old = tmp_path / "old.duckdb"
    _old_warehouse(old)
    found = {}
    for name, path in (("new", tmp_path / "new.duckdb"), ("migrated", old)):
        with WarehouseResource(path=str(path)).connect() as con:
            found[name] = _constraints(con)
            con.execute("INSERT INTO core_texts (text_hash) VALUES ('h')")
            with pytest.raises(duckdb.ConstraintException):
                con.execute("INSERT INTO core_texts (text_hash) VALUES ('h')")
    assert found["new"] == found["migrated"]
    assert ("core_texts", "PRIMARY KEY", ["text_hash"]) in found["new"]

