"""What the end-to-end modules share: one real `dagster dev` per module (the `server`
fixture), the sample's expected counts at the one cutoff, and helpers that read the lineage.

The end-to-end tests are three modules (test_e2e_dagster_dev.py, test_e2e_ui.py,
test_e2e_rerender.py) so that the test runner's two workers each run a server at a time: most of
their time is spent waiting for the daemon's 30 s backfill loop (fixed in dagster 1.13: no instance
setting or variable changes it), not computing. Within a module, backfills that do not read each
other's output are launched together and waited for together, so those looks are paid once; the
root conftest.py starts these modules before the others.

One server serves a whole module (starting it costs ~10 s on 2 cores). Its DAGSTER_HOME, data home
and log live in a temp dir; the log path is printed in every failure. The server is stopped at the
end, and the teardown fails if any process of its group outlives it.
"""

from __future__ import annotations

from dataclasses import dataclass

import dagster as dg
import pytest

from vllm_digest.core.config.settings import Settings, load_settings
from vllm_digest.core.keys import WEEKLY_GROUP
from vllm_digest.testing.dagster_dev import DagsterDev, group_members

LOCATION = "vllm_digest"
PREFIX = ("vllm_project", "vllm")
REPORT = (*PREFIX, "daily_report")
SITE = ("site",)
WEEKLY = (*PREFIX, "weekly_digest")
FIRST, LAST = "2026-03-20", "2026-03-22"
DAYS = ["2026-03-20", "2026-03-21", "2026-03-22"]
# Left to right as the data flows; an edge may skip layers, never point back.
LAYERS = ("ingest", "stg", "core", "mart", "analytics", "report", "site")
# The day's five counts with the one cutoff 11:39 (UTC+8). The real reports of
# 03-14, 03-15, 03-16, 03-20 and 03-21 closed their windows at 11:46, 11:50,
# 11:28, 11:14 and 11:34, so expected.json's counts for them may differ by the
# items of those minutes (03-15 has 2 new PRs fewer); these are counted from
# the sample's own timestamps (created_at; closed and merged events, a PR's
# closing without a merge at the same moment counting as closed unmerged), by
# a counter that reproduces expected.json at each window's own cutoff (all but
# 03-05 and 03-07, whose stated counts include items the embedded sample
# lacks). 03-22's window is its real report's, so its counts come from
# expected.json.
COUNTS_AT_CUTOFF_1139 = {
    "2026-03-14": {"new_issues": 11, "closed_issues": 10, "new_prs": 51, "merged_prs": 14, "closed_unmerged_prs": 8},
    "2026-03-15": {"new_issues": 6, "closed_issues": 10, "new_prs": 37, "merged_prs": 7, "closed_unmerged_prs": 11},
    "2026-03-16": {"new_issues": 21, "closed_issues": 20, "new_prs": 93, "merged_prs": 63, "closed_unmerged_prs": 28},
    "2026-03-20": {"new_issues": 31, "closed_issues": 38, "new_prs": 65, "merged_prs": 46, "closed_unmerged_prs": 25},
    "2026-03-21": {"new_issues": 12, "closed_issues": 10, "new_prs": 43, "merged_prs": 16, "closed_unmerged_prs": 10},
}
UI_TIMEOUT_MS = 60_000  # a hang guard, not a speed target
# what the Dagster UI prints when a query or a component fails
UI_ERROR_TEXTS = ("Unexpected GraphQL error", "Something went wrong", "PythonError", "An error occurred")


@dataclass
class Server:
    dev: DagsterDev
    settings: Settings


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("e2e")
    config = root / "vllm_digest.toml"
    config.write_text("# empty: no developer config file applies\n", encoding="utf-8")
    env = {
        "VLLM_DIGEST_CONFIG": str(config),
        "VLLM_DIGEST_HOME": str(root / "home"),
        "VLLM_DIGEST_SOURCE": "sample",
        "VLLM_DIGEST_CUTOFF": "11:39",
    }
    dev = DagsterDev.start(root / "dagster_home", env, root / "dagster-dev.log")
    try:
        info = dev.wait_for_server()
        assert info["dagster_version"] == dg.__version__
        dev.wait_for_location(LOCATION)
        yield Server(dev, load_settings(env))
    finally:
        pgid = dev.process.pid
        dev.stop()
        left = group_members(pgid)
        assert not left, f"processes of dagster dev still alive after stop: {left} (log: {dev.log_path})"


def partitioned_keys(nodes: dict) -> list[tuple[str, ...]]:
    """The assets of the daily partitions (the weekly digests have weekly ones, and a job of their own)."""
    return sorted(k for k, n in nodes.items() if n["isPartitioned"] and n["groupName"] != WEEKLY_GROUP)


def layer_of(key: tuple[str, ...], node: dict) -> str:
    if key == SITE:
        return "site"
    group = node["groupName"]
    if group == WEEKLY_GROUP:
        return "report"  # the weekly digest is a report over weeks: from the marts to the site
    # the warehouse group holds three layers, told apart by the table prefix
    layer = key[-1].split("_", 1)[0] if group == "warehouse" else group
    assert layer in LAYERS, f"{'/'.join(key)} (group {group!r}) is in no known layer {LAYERS}"
    return layer


def upstream_of(nodes: dict, key: tuple[str, ...]) -> set[tuple[str, ...]]:
    seen: set[tuple[str, ...]] = set()
    todo = list(nodes[key]["deps"])
    while todo:
        k = todo.pop()
        if k not in seen:
            seen.add(k)
            todo.extend(nodes[k]["deps"])
    return seen


def is_day_run(run: dict) -> bool:
    """A run over days: not the site's (unpartitioned) nor the weekly digests' run, which a backfill holding
    them launches after its days."""
    return not {tuple(a["path"]) for a in run["assetSelection"]} <= {SITE, WEEKLY}


def day_runs(backfill) -> list[dict]:
    """The backfill's runs over days."""
    return [r for r in backfill.runs if is_day_run(r)]
