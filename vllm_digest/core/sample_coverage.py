"""Which period a sample folder says it covers: the partitions end with it (so this is shared, not
ingest), and the sample source serves only days inside it. Reads only ``coverage.json`` or
``expected.json``, never the data: the definitions read it on every load."""

from __future__ import annotations

import datetime as dt
import json
from importlib import resources
from pathlib import Path

from vllm_digest.core.config.settings import RepoRef


def embedded_sample_root() -> Path:
    return Path(str(resources.files("vllm_digest") / "samples"))


def sample_coverage(folder: Path) -> tuple[dt.datetime, dt.datetime] | None:
    """(start, end) of the period ``folder`` states it covers; None when it states none."""
    cov = folder / "coverage.json"
    if cov.is_file():
        data = json.loads(cov.read_text(encoding="utf-8"))
        return dt.datetime.fromisoformat(data["start"]), dt.datetime.fromisoformat(data["end"])
    exp = folder / "expected.json"
    if exp.is_file():
        windows = json.loads(exp.read_text(encoding="utf-8"))
        return (
            min(dt.datetime.fromisoformat(w["window_start"]) for w in windows),
            max(dt.datetime.fromisoformat(w["window_end"]) for w in windows),
        )
    return None


def coverage_end(repo: RepoRef, root: Path | None = None) -> dt.datetime | None:
    """When the period the sample states it covers for ``repo`` ends; None when it has no folder
    for the repo or states no coverage."""
    folder = (root if root is not None else embedded_sample_root()) / f"{repo.owner}__{repo.name}"
    if not folder.is_dir():
        return None
    coverage = sample_coverage(folder)
    return coverage[1] if coverage else None
