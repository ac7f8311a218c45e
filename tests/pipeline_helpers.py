"""Run the SQL layers for a day directly (no Dagster), and read tables back."""

from __future__ import annotations

import hashlib

from vllm_digest.core.calendar import DayWindow
from vllm_digest.core.config.settings import Settings
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.ingest.raw_store import write_day
from vllm_digest.ingest.sample import fetch_sample_day
from vllm_digest.warehouse.layers import CORE_MODELS, MART_MODELS, STG_MODELS, build_days


ALL_MODELS = STG_MODELS + CORE_MODELS + MART_MODELS


def build_sample_day(settings: Settings, window: DayWindow) -> None:
    repo = settings.repos[0]
    write_day(settings.raw_dir, repo, window.key, fetch_sample_day(repo, window, settings.sample_dir))
    with WarehouseResource(path=str(settings.warehouse_path)).connect() as con:
        for models in (STG_MODELS, CORE_MODELS, MART_MODELS):
            build_days(con, models, repo, [window], settings.raw_dir)


def five_sets(settings: Settings, day: str) -> dict[str, list[int]]:
    with WarehouseResource(path=str(settings.warehouse_path)).connect(read_only=True) as con:
        rows = con.execute(
            "SELECT set_name, number FROM mart_five_sets WHERE day = CAST($day AS DATE) ORDER BY 1, 2",
            {"day": day},
        ).fetchall()
    out: dict[str, list[int]] = {}
    for name, number in rows:
        out.setdefault(name, []).append(number)
    return out


def table_hashes(settings: Settings, tables=ALL_MODELS) -> dict[str, str]:
    """A content hash per table, independent of physical row order."""
    out = {}
    with WarehouseResource(path=str(settings.warehouse_path)).connect(read_only=True) as con:
        for t in tables:
            rows = sorted(repr(r) for r in con.execute(f"SELECT * FROM {t}").fetchall())
            out[t] = hashlib.sha256("\n".join(rows).encode()).hexdigest() + f":{len(rows)}"
    return out
