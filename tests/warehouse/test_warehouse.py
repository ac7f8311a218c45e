"""Partition writes against real DuckDB files: a failed rebuild keeps the old
rows, and two processes writing one warehouse at once both succeed."""

import datetime as dt
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import dagster as dg
import pytest

from tests.pipeline_helpers import ALL_MODELS, build_sample_day, table_hashes
from vllm_digest.core.calendar import window_for_day
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.core.sqlmodel.writes import replace_partitions
from vllm_digest.definitions import build_definitions
from vllm_digest.warehouse.layers import CORE_MODELS, INSERTS, STORED_IN, day_params


ROOT = Path(__file__).resolve().parents[2]


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
            replace_partitions(con, CORE_MODELS, [params], before_insert=explode, inserts=INSERTS, tables=STORED_IN)
        # the connection is still usable: the transaction was rolled back, not left open
        assert con.execute(f"SELECT count(*) FROM {fail_at}").fetchone()[0] > 0
    assert table_hashes(settings) == before


_WORKER = textwrap.dedent(
    """
    import sys, warnings
    sys.path[:0] = [{root!r}, {tests!r}]
    warnings.simplefilter("ignore")
    from vllm_digest.testing.pipeline import materialize
    from vllm_digest.core.config.settings import load_settings
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
        # on a failure, which tables lost which day's rows (a lost commit shows as a day missing upstream)
        by_table = {
            t: dict(con.execute(f"SELECT CAST(day AS VARCHAR), count(*) FROM {t} GROUP BY 1 ORDER BY 1").fetchall())
            for t in ALL_MODELS
        }
    assert [d for d, _ in present] == list(days), by_table
    assert dict(present)["2026-03-22"] == 48, by_table
    assert set(table_hashes(settings, ALL_MODELS)) == set(ALL_MODELS)



_CREATOR = textwrap.dedent(
    """
    import sys
    sys.path[:0] = [{root!r}]
    from vllm_digest.core.sqlmodel.resource import WarehouseResource
    with WarehouseResource(path=sys.argv[1]).connect() as con:
        con.execute("CREATE TABLE IF NOT EXISTS probe (writer VARCHAR)")
        con.execute("INSERT INTO probe VALUES (?)", [sys.argv[2]])
    """
)
# every stat-like call on the warehouse path returns at once but the process resumes only after the delay
# ('?': a name this architecture lacks is skipped)
_STATS = "?stat,?newfstatat,?statx,?lstat"


def _strace_can_delay(tmp_path) -> bool:
    if shutil.which("strace") is None:
        return False
    probe = subprocess.run(
        ["strace", "-o", os.devnull, "-e", "trace=?stat", "-e", "inject=?stat:delay_exit=1", "true"],
        capture_output=True,
    )
    return probe.returncode == 0  # no ptrace (some containers) or an strace without syscall delays


def test_a_process_that_saw_no_warehouse_keeps_the_commits_made_meanwhile(tmp_path):
    """Two processes open a warehouse that does not exist yet; one of them is held (by strace) right
    after it saw the file missing, while the other creates the file and commits. DuckDB, left to create
    the file, would then write a fresh empty database over that commit (the data loss behind a flaky
    two-process run under load); the resource creates it whole and links it into place instead."""
    if not _strace_can_delay(tmp_path):
        pytest.skip("needs strace with syscall delay injection (strace >= 4.22) and ptrace")
    path = tmp_path / "warehouse.duckdb"
    trace = tmp_path / "stat.trace"
    script = tmp_path / "creator.py"
    script.write_text(_CREATOR.format(root=str(ROOT)))
    held = subprocess.Popen(
        ["strace", "-f", "-P", str(path), "-o", str(trace), "-e", f"trace={_STATS}",
         "-e", f"inject={_STATS}:delay_exit=5000000", sys.executable, str(script), str(path), "held"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    try:
        # strace logs the call (and its ENOENT) when it returns, before the delay: the held process has
        # now seen the warehouse missing, whatever the machine's load
        deadline = time.monotonic() + 120
        while not (trace.exists() and "ENOENT" in trace.read_text()):
            assert held.poll() is None, held.communicate()[0].decode(errors="replace")
            assert time.monotonic() < deadline, "the held process never looked for the warehouse"
            time.sleep(0.05)
        with WarehouseResource(path=str(path)).connect() as con:
            con.execute("CREATE TABLE IF NOT EXISTS probe (writer VARCHAR)")
            con.execute("INSERT INTO probe VALUES ('first')")
        out = held.communicate(timeout=120)[0].decode(errors="replace")
    finally:
        if held.poll() is None:
            held.kill()
    assert held.returncode == 0, out
    with WarehouseResource(path=str(path)).connect(read_only=True) as con:
        writers = sorted(w for (w,) in con.execute("SELECT writer FROM probe").fetchall())
        tables = {t for (t,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert writers == ["first", "held"]
    assert {"stg_issues", "core_items", "mart_daily_counts"} <= tables
    assert not list(tmp_path.glob(".warehouse.duckdb.new-*"))  # no temporary file left behind


def _materializations(result, table):
    """One per partition of the run; a single-run range shares one metadata dict."""
    return [
        m for m in result.asset_materializations_for_node("vllm_project__vllm__" + ("mart" if table.startswith("mart") else "core"))
        if m.asset_key.path[-1] == table
    ]


def test_range_metadata_has_rows_by_day_and_column_lineage(make_settings):
    from vllm_digest.testing.pipeline import materialize
    from vllm_digest.core.sqlmodel.lineage import DECLARED
    settings = make_settings()
    result = materialize(settings, "2026-03-21", "2026-03-22")
    with WarehouseResource(path=str(settings.warehouse_path)).connect(read_only=True) as con:
        per_day = dict(con.execute("SELECT CAST(day AS VARCHAR), count(*) FROM mart_five_sets GROUP BY 1").fetchall())
        ordered = {t: [c for (c,) in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = $t ORDER BY ordinal_position",
            {"t": t}).fetchall()] for t in ALL_MODELS}
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
    from vllm_digest.core.calendar import PER_DAY_METADATA_MAX_DAYS
    from vllm_digest.core.sqlmodel.assets import rows_metadata

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


def test_every_column_of_every_table_asset_is_described(make_settings):
    """The UI's column schema says what each column holds, from the comment beside it in sql/schema*.sql."""
    graph = build_definitions(make_settings()).resolve_asset_graph()
    tables = {}
    for key in graph.get_all_asset_keys():
        schema = graph.get(key).metadata.get("dagster/column_schema")
        if schema is not None:
            tables[key.path[-1]] = schema.columns
    assert len(tables) == 35  # 9 stg + 5 core + 2 mart + 19 analytics
    undescribed = [(t, c.name) for t, cols in tables.items() for c in cols if not (c.description or "").strip()]
    assert undescribed == []
    described = {t: {c.name: c.description for c in cols} for t, cols in tables.items()}
    assert described["mart_five_sets"]["set_name"].startswith("new_issues, closed_issues, new_prs")
    # a description continued on a comment-only line is joined into one
    assert described["stg_fetch_manifest"]["semantics"] == (
        "events: closings and merges from issue events; snapshot: from the items' closed_at / merged_at as last seen"
    )


def test_a_schema_line_that_is_no_column_is_named_with_its_file_and_line():
    from vllm_digest.core.sqlmodel.schema import parse_column_descriptions
    text = "-- t: a table\nCREATE TABLE IF NOT EXISTS t (\n    a INTEGER, -- what a is\n    = oops\n);\n"
    with pytest.raises(ValueError, match=r"^schema_x\.sql:4: not a column line of table t: '= oops'"):
        parse_column_descriptions(text, "schema_x.sql")
    good = parse_column_descriptions(text.replace("    = oops\n", "    b VARCHAR\n"), "schema_x.sql")
    assert good == {"t": {"a": "what a is", "b": ""}}


def test_raw_landing_metadata_of_a_range_holds_for_every_day(make_settings):
    """A range run's metadata lands on each day's event: it names the folder of all days, never the last day's."""
    from vllm_digest.ingest.raw_store import read_day

    settings = make_settings()
    defs = build_definitions(settings)
    raw = dg.AssetKey(["vllm_project", "vllm", "raw_activity"])

    def landed(**kwargs):
        result = dg.materialize(list(defs.assets), resources=defs.resources, selection=[raw],
                                instance=dg.DagsterInstance.ephemeral(), **kwargs)
        return {m.partition: m.metadata for m in result.asset_materializations_for_node("vllm_project__vllm__raw_activity")}

    days = ["2026-03-20", "2026-03-21", "2026-03-22"]
    ranged = landed(tags={"dagster/asset_partition_range_start": days[0], "dagster/asset_partition_range_end": days[-1]})
    assert sorted(ranged) == days
    folder = settings.raw_dir / "vllm-project" / "vllm"
    for day in days:
        meta = ranged[day]
        assert "path" not in meta and meta["raw_dir"].value == str(folder)
        assert (meta["complete"].value, meta["incomplete_days"].value) == (True, "none")
        assert "issues_and_prs" not in meta  # the run's sum is no day's count
    by_day = ranged[days[0]]["landed_by_day"].value
    for day in days:  # each day's counts are what its folder holds
        payload = read_day(settings.raw_dir, settings.repos[0], day)
        assert by_day[day]["issues_and_prs"] == len(payload.issues) > 0
        assert by_day[day]["events"] == len(payload.events)
    [(day, single)] = landed(partition_key="2026-03-21").items()
    assert single["path"].value == str(folder / "2026-03-21")
    assert single["issues_and_prs"].value == by_day["2026-03-21"]["issues_and_prs"]


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


def test_a_warehouse_made_before_the_cross_check_gets_its_manifest_column(tmp_path):
    """stg_fetch_manifest gained cross_check; opening an older warehouse adds it, rows kept, so the next build
    of a day can write it instead of failing on a column the table lacks."""
    import duckdb

    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE stg_fetch_manifest (repo VARCHAR NOT NULL, day DATE NOT NULL, source VARCHAR, "
                "semantics VARCHAR, complete BOOLEAN, incomplete_reasons VARCHAR[], window_start TIMESTAMPTZ, "
                "window_end TIMESTAMPTZ, request_count INTEGER, not_modified_count INTEGER, totals JSON)")
    con.execute("INSERT INTO stg_fetch_manifest (repo, day, source) VALUES ('o/r', DATE '2026-03-22', 'sample')")
    con.close()
    with WarehouseResource(path=str(path)).connect() as con:
        columns = [c for (c,) in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'stg_fetch_manifest'").fetchall()]
        rows = con.execute("SELECT repo, source, cross_check FROM stg_fetch_manifest").fetchall()
    assert "cross_check" in columns
    assert rows == [("o/r", "sample", None)]
