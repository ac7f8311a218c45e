"""Which SQL models make up each layer, and the parameters a day binds."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import dagster as dg
import duckdb

from vllm_digest.core import gc_pause
from vllm_digest.core.calendar import DayWindow
from vllm_digest.core.config.settings import RepoRef
from vllm_digest.core.sqlmodel.files import bind, read_sql
from vllm_digest.core.sqlmodel.writes import replace_partitions
from vllm_digest.core.vocabulary import MANIFEST, PAYLOAD_KINDS
from vllm_digest.ingest.raw_store import check_landing, day_dir
from vllm_digest.warehouse.bodies import parse_body


STG_MODELS = (
    "stg_fetch_manifest",
    "stg_issues",
    "stg_issue_events",
    "stg_issue_comments",
    "stg_review_comments",
    "stg_reviews",
    "stg_pulls",
    "stg_users",
    "stg_pull_files",
)
CORE_MODELS = ("core_items", "core_item_texts", "core_comments", "core_events", "core_people")
MART_MODELS = ("mart_five_sets", "mart_daily_counts")


def day_params(repo: RepoRef, window: DayWindow, raw_root: Path) -> dict:
    """The parameters one day binds: its window and its landed files' paths."""
    folder = day_dir(raw_root, repo, window.key)
    if not (folder / MANIFEST).is_file():
        raise FileNotFoundError(
            f"day {window.key} of {repo.full_name} was never landed (no {str(folder / MANIFEST)!r}): "
            "materialize raw_activity for it first"
        )
    params = {
        "repo": repo.full_name,
        "day": window.key,
        "window_start": window.start,
        "window_end": window.end,
        "manifest_path": str(folder / MANIFEST),
    }
    for kind in PAYLOAD_KINDS:
        path = folder / f"{kind}.jsonl"
        # a day landed before its source had this kind (users came later) reads as an empty one
        params[f"{kind}_path"] = str(path) if path.is_file() else str(_empty_jsonl())
    return params


@functools.cache
def _empty_jsonl() -> Path:
    path = Path(tempfile.gettempdir()) / "vllm-digest-empty.jsonl"
    if not path.is_file() or path.stat().st_size:
        path.write_text("", encoding="utf-8")
    return path


def land_item_texts(con: duckdb.DuckDBPyConnection, model: str, params: dict) -> None:
    """``core_item_texts``' insert: the batch's distinct bodies are parsed in Python (DuckDB's Python UDFs
    need numpy, which the project does not depend on) into ``run_parsed_bodies``; each distinct parsed text is
    stored once in ``core_texts`` (content-addressed), each item-day as a reference in ``core_item_text_refs``
    (the model's rows), and texts no item-day references any more are dropped."""
    bodies = [body for (body,) in con.execute(read_sql("run_item_bodies")).fetchall()]
    with gc_pause.paused():  # 38,000 parsed bodies a year, no cycles among them
        parsed = [parse_body(body) for body in bodies]
    lists = {
        "bodies": bodies,
        "whats": [p.what for p in parsed],
        "purposes": [p.purpose for p in parsed],
        "test_plans": [p.test_plan for p in parsed],
        "test_results": [p.test_result for p in parsed],
        "figures": [list(p.figures) for p in parsed],
        "references": [list(p.references) for p in parsed],
        "texts": [p.text for p in parsed],
        "sections": [list(p.sections) for p in parsed],
        "changes": [list(p.changes) for p in parsed],
        "claims": [list(p.claims) for p in parsed],
        "test_commands": [list(p.test_commands) for p in parsed],
    }
    temp = read_sql("run_parsed_bodies")
    con.execute(temp, bind(temp, lists))
    con.execute(read_sql("core_item_texts_store"))
    sql = read_sql(model)
    con.execute(f"INSERT INTO {STORED_IN[model]} BY NAME {sql}", bind(sql, params))
    con.execute(read_sql("core_item_texts_prune"))


# models whose rows are not one plain INSERT of their SQL
INSERTS = {"core_item_texts": land_item_texts}
# models stored in another table than their name: core_item_texts is a view (sql/schema.sql) joining each
# item-day's reference to its text, stored once
STORED_IN = {"core_item_texts": "core_item_text_refs"}


def check_landings(repo: RepoRef, windows: list[DayWindow], raw_root: Path) -> None:
    """Before the stg models read the landed files: each day's files are the ones its manifest records
    (rows and SHA-256), or the step fails naming the file, the line and the counts (``DamagedLandingError``),
    so a file cut short never stages as a smaller day. Days landed by older code, which record neither,
    are read unverified, and the log says which."""
    unverified = [w.key for w in windows
                  if (folder := day_dir(raw_root, repo, w.key)).is_dir() and not check_landing(folder)[1]]
    if unverified:
        # Dagster's logger: inside a step the line lands in the run's log, elsewhere in Python's
        dg.get_dagster_logger(__name__).warning(
            f"{len(unverified)} landed days of {repo.full_name} were written without row counts or hashes (older "
            f"code), so they are staged unverified: {', '.join(unverified[:10])}{' …' if len(unverified) > 10 else ''}; "
            "landing them again records both"
        )


def build_days(
    con: duckdb.DuckDBPyConnection,
    models: tuple[str, ...],
    repo: RepoRef,
    windows: list[DayWindow],
    raw_root: Path,
) -> dict[str, dict[str, int]]:
    """Rebuild ``models`` for every day at once (set-based); returns day -> model -> rows. Models that read
    the landed files (the stg layer) first check them (``check_landings``)."""
    params = [day_params(repo, w, raw_root) for w in windows]
    if any(model in STG_MODELS for model in models):
        check_landings(repo, windows, raw_root)
    return replace_partitions(con, models, params, inserts=INSERTS, tables=STORED_IN)
