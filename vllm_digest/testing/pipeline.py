"""The test harness the tests and the tools share: settings for a fresh data home, real Dagster
materializations of the daily graph and the weekly digests, where a day's report lands, and a crafted
sample folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import dagster as dg

from vllm_digest.core.config.settings import Settings, load_settings
from vllm_digest.definitions import build_definitions
from vllm_digest.orchestration.jobs import daily_selection, weekly_selection

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_SAMPLE = ROOT / "vllm_digest" / "samples" / "vllm-project__vllm"


def project_dagster_home(path: Path) -> Path:
    """``path`` as a DAGSTER_HOME with the project's dagster.yaml: the SQLite instance `make dev` uses."""
    path.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "dagster.yaml", path / "dagster.yaml")
    return path


def sample_windows() -> list[dict]:
    return json.loads((SHIPPED_SAMPLE / "expected.json").read_text(encoding="utf-8"))


def settings_at(home: Path, **env: str) -> Settings:
    """Settings for a fresh data home at ``home`` (for module-scoped fixtures); keywords are environment variables."""
    return load_settings({"VLLM_DIGEST_HOME": str(home), "VLLM_DIGEST_CUTOFF": "11:39", **env})


def materialize(settings: Settings, first: str, last: str | None = None, instance=None, run_config=None):
    """Materialize every daily asset of the graph (all but the weekly digests), with its checks, for one day
    or a range, in one run."""
    defs = build_definitions(settings)
    assets = [*defs.assets, *defs.asset_checks]
    kwargs = {}
    if last is None or last == first:
        kwargs["partition_key"] = first
    else:
        kwargs["tags"] = {
            "dagster/asset_partition_range_start": first,
            "dagster/asset_partition_range_end": last,
        }
    result = dg.materialize(
        assets,
        selection=daily_selection(),
        resources=defs.resources,
        instance=instance or dg.DagsterInstance.ephemeral(),
        run_config=run_config,
        **kwargs,
    )
    assert result.success
    return result


def materialize_weeks(settings: Settings, first: str, last: str | None = None, instance=None):
    """Materialize the weekly digests (and the site) for the weeks ``first`` ... ``last`` (Mondays) in one run."""
    defs = build_definitions(settings)
    result = dg.materialize(
        list(defs.assets),
        selection=weekly_selection(),
        resources=defs.resources,
        instance=instance or dg.DagsterInstance.ephemeral(),
        tags={"dagster/asset_partition_range_start": first, "dagster/asset_partition_range_end": last or first},
    )
    assert result.success
    return result


def report_path(settings: Settings, day: str, suffix: str = "zh.md") -> Path:
    repo = settings.repos[0]
    return settings.reports_dir / repo.owner / repo.name / f"{day}.{suffix}"


def write_sample(root: Path, items: list[dict], events: list[dict] = (), comments: list[dict] = (),
                 start: str = "2026-03-01T00:00:00Z", end: str = "2026-03-25T00:00:00Z") -> Path:
    """A crafted sample folder for vllm-project/vllm under ``root`` (the layout of the embedded sample: one
    JSON row a line per endpoint, and the window it covers); the folder to set as VLLM_DIGEST_SAMPLE_DIR."""
    folder = root / "vllm-project__vllm"
    folder.mkdir(parents=True)
    for name, rows in (("issues", items), ("events", events), ("comments", comments)):
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "coverage.json").write_text(json.dumps({"start": start, "end": end}))
    return root
