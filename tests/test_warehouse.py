"""Partition writes against real DuckDB files: a failed rebuild keeps the old
rows, and two processes writing one warehouse at once both succeed."""

import datetime as dt
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import dagster as dg
import pytest

from pipeline_helpers import ALL_MODELS, build_sample_day, table_hashes
from vllm_digest.definitions import build_definitions
from vllm_digest.partitions import window_for_day
from vllm_digest.warehouse.layers import CORE_MODELS, day_params
from vllm_digest.warehouse.writes import replace_partition
from vllm_digest.warehouse.resource import WarehouseResource

ROOT = Path(__file__).resolve().parents[1]


class Injected(RuntimeError):
    pass


@pytest.mark.parametrize("fail_at", ["core_items", "core_people"])
def test_failure_between_delete_and_insert_keeps_previous_rows(make_settings, fail_at):
    settings = make_settings()
    window = window_for_day("2026-03-22", settings)
    build_sample_day(settings, window)
    before = table_hashes(settings)
    assert int(before["core_items"].rsplit(":", 1)[1]) > 0

    def explode(model):
        if model == fail_at:  # core_people is last: the other core tables were already rewritten
            raise Injected(model)

    params = day_params(settings.repos[0], window, settings.raw_dir)
    with WarehouseResource(path=str(settings.warehouse_path)).connect() as con:
        with pytest.raises(Injected):
            replace_partition(con, CORE_MODELS, params, before_insert=explode)
        # the connection is still usable: the transaction was rolled back, not left open
        assert con.execute(f"SELECT count(*) FROM {fail_at}").fetchone()[0] > 0
    assert table_hashes(settings) == before


_WORKER = textwrap.dedent(
    """
    import sys, warnings
    sys.path[:0] = [{root!r}, {tests!r}]
    warnings.simplefilter("ignore")
    from conftest import materialize
    from vllm_digest.settings import load_settings
    settings = load_settings({{"VLLM_DIGEST_HOME": {home!r}, "VLLM_DIGEST_CUTOFF": "11:39"}})
    materialize(settings, sys.argv[1])
    """
)


def test_two_processes_write_one_warehouse(make_settings, tmp_path):
    settings = make_settings()
    script = tmp_path / "worker.py"
    script.write_text(_WORKER.format(root=str(ROOT), tests=str(ROOT / "tests"), home=str(settings.home)))
    env = {k: v for k, v in os.environ.items() if not k.startswith("VLLM_DIGEST_")}
    days = ("2026-03-21", "2026-03-22")
    procs = [
        subprocess.Popen([sys.executable, str(script), day], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for day in days
    ]
    outputs = [p.communicate(timeout=300)[0].decode(errors="replace") for p in procs]
    for day, proc, out in zip(days, procs, outputs):
        assert proc.returncode == 0, f"{day}:\n{out[-3000:]}"
    with WarehouseResource(path=str(settings.warehouse_path)).connect(read_only=True) as con:
        present = con.execute("SELECT CAST(day AS VARCHAR), new_prs FROM mart_daily_counts ORDER BY 1").fetchall()
    assert [d for d, _ in present] == list(days)
    assert dict(present)["2026-03-22"] == 48
    assert set(table_hashes(settings, ALL_MODELS)) == set(ALL_MODELS)


def _materializations(result, table):
    """One per partition of the run; a single-run range shares one metadata dict."""
    return [
        m for m in result.asset_materializations_for_node("vllm_project__vllm__" + ("mart" if table.startswith("mart") else "core"))
        if m.asset_key.path[-1] == table
    ]


def test_range_metadata_has_rows_by_day_and_column_lineage(make_settings):
    from conftest import materialize
    from vllm_digest.warehouse.lineage import DECLARED
    from vllm_digest.warehouse.writes import table_columns

    settings = make_settings()
    result = materialize(settings, "2026-03-21", "2026-03-22")
    with WarehouseResource(path=str(settings.warehouse_path)).connect(read_only=True) as con:
        per_day = dict(con.execute("SELECT CAST(day AS VARCHAR), count(*) FROM mart_five_sets GROUP BY 1").fetchall())
        ordered = {t: [c for c, _ in table_columns(con, t)] for t in ALL_MODELS}
    columns = {t: set(cs) for t, cs in ordered.items()}
    five_sets, other_day = _materializations(result, "mart_five_sets")
    assert {five_sets.partition, other_day.partition} == {"2026-03-21", "2026-03-22"}
    assert five_sets.metadata["rows_by_day"].value == per_day
    assert per_day["2026-03-22"] == 104
    assert "dagster/row_count" not in five_sets.metadata  # one count for two days would mislead
    # the static table shape is on the definition, not repeated on each partition's event
    assert "dagster/column_schema" not in five_sets.metadata
    assert "dagster/column_lineage" not in five_sets.metadata

    graph = build_definitions(settings).resolve_asset_graph()

    def definition(table):
        return graph.get(dg.AssetKey(["vllm_project", "vllm", table])).metadata

    for table in ALL_MODELS:  # the declared schema is what the warehouse file holds
        schema = definition(table)["dagster/column_schema"]
        assert [c.name for c in schema.columns] == ordered[table], table
    for table in ("core_items", "core_events", "core_comments", "core_people", "mart_five_sets", "mart_daily_counts"):
        lineage = definition(table)["dagster/column_lineage"].deps_by_column
        literals = {c for c, deps in DECLARED.get(table, {}).items() if not deps}
        assert set(lineage) == columns[table] - literals, table
        for col, deps in lineage.items():
            for dep in deps:  # every declared or matched dep names a real upstream column
                assert dep.column_name in columns[dep.asset_key.path[-1]], (table, col, dep)
    deps = definition("core_items")["dagster/column_lineage"].deps_by_column
    assert {(d.asset_key.path[-1], d.column_name) for d in deps["author_is_bot"]} == {
        ("stg_issues", "author_login"), ("stg_issues", "author_type"),
    }
    assert {d.asset_key.path[-1] for d in deps["merged_at"]} == {"stg_issues", "stg_pulls"}
    # the model's SQL stays on the asset definition, where the UI shows it
    sql = graph.get(dg.AssetKey(["vllm_project", "vllm", "core_items"])).metadata["sql"].value
    assert "FROM stg_issues AS i" in sql and sql.startswith("```sql")


def test_long_range_metadata_summarises_rows_instead_of_a_dict_per_day(make_settings):
    from vllm_digest.partitions import PER_DAY_METADATA_MAX_DAYS
    from vllm_digest.warehouse.assets import rows_metadata

    settings = make_settings()
    first = dt.date(2026, 3, 1)
    windows = [window_for_day((first + dt.timedelta(days=i)).isoformat(), settings) for i in range(PER_DAY_METADATA_MAX_DAYS + 1)]
    rows = [10 + i for i in range(len(windows))]
    meta = rows_metadata(windows, rows)
    assert "rows_by_day" not in meta  # it would be copied onto all 32 events: 32² entries
    assert meta["rows_per_day"] == "min 10, max 41, mean 25.5"
    assert meta["rows_written"] == sum(rows)
    assert meta["days"] == "2026-03-01...2026-04-01 (32 days)"
    month = rows_metadata(windows[:-1], rows[:-1])
    assert month["rows_by_day"].value == {w.key: n for w, n in zip(windows, rows[:-1])}
    assert rows_metadata(windows[:1], rows[:1])["dagster/row_count"] == 10


def test_a_warehouse_with_the_old_intermediate_table_names_keeps_their_rows(tmp_path):
    """The intermediate tables were named mart_*; opening an older warehouse renames them, rows included."""
    import duckdb

    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE mart_item_links (repo VARCHAR, day DATE, issue_number INTEGER, pr_number INTEGER, "
                "link_kind VARCHAR, evidence VARCHAR, shared_words VARCHAR[], minutes_apart DOUBLE, "
                "issue_in_day BOOLEAN, pr_in_day BOOLEAN)")
    con.execute("INSERT INTO mart_item_links VALUES ('o/r', DATE '2026-03-22', 1, 2, 'body', 'fixes #1', [], 0, true, true)")
    con.close()
    with WarehouseResource(path=str(path)).connect() as con:
        tables = {t for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        rows = con.execute("SELECT issue_number, pr_number, link_kind FROM int_item_links").fetchall()
    assert "mart_item_links" not in tables and {"int_text_hits", "int_item_features"} <= tables
    assert rows == [(1, 2, "body")]
