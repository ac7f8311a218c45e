"""What the GitHub source tests and the request benchmark share: the emulated repository, its token,
fast client settings, the sample's expected windows, and the five sets a landing builds."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from vllm_digest.core.calendar import DayWindow
from vllm_digest.core.config.settings import RepoRef
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.core.vocabulary import SET_NAMES
from vllm_digest.ingest.sample import embedded_sample_root
from vllm_digest.testing.github_emulator import Dataset, GitHubEmulator
from vllm_digest.warehouse.layers import CORE_MODELS, MART_MODELS, STG_MODELS, build_days


REPO = RepoRef("vllm-project", "vllm")
TOKEN = "ghp_emulatorTOKEN0123456789abcdefSECRET"
# fast, bounded client settings so fault tests finish in well under a second each
FAST = {"backoff_base_seconds": 0.01, "backoff_max_seconds": 0.05, "max_retry_seconds": 5.0,
        "timeout_seconds": 2.0, "max_rate_wait_seconds": 5.0}


def expected_windows() -> list[dict]:
    path = embedded_sample_root() / "vllm-project__vllm" / "expected.json"
    return json.loads(path.read_text(encoding="utf-8"))


def window_of(entry: dict) -> DayWindow:
    return DayWindow(
        day=dt.date.fromisoformat(entry["day"]),
        start=dt.datetime.fromisoformat(entry["window_start"]),
        end=dt.datetime.fromisoformat(entry["window_end"]),
    )


def five_sets(home: Path, repo: RepoRef, windows: list[DayWindow]) -> dict[str, dict[str, list[int]]]:
    """Run the SQL layers over landed days; day -> set -> sorted numbers."""
    warehouse = WarehouseResource(path=str(home / "warehouse.duckdb"))
    out: dict[str, dict[str, list[int]]] = {}
    with warehouse.connect() as con:
        build_days(con, STG_MODELS + CORE_MODELS + MART_MODELS, repo, windows, home / "raw")
        for w in windows:
            rows = con.execute(
                "SELECT set_name, number FROM mart_five_sets WHERE repo = $r AND day = CAST($d AS DATE) "
                "ORDER BY set_name, number",
                {"r": repo.full_name, "d": w.key},
            ).fetchall()
            sets = {name: [] for name in SET_NAMES}
            for name, number in rows:
                sets[name].append(number)
            out[w.key] = sets
    return out


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
