"""Shared fixtures: a temporary data home and settings built from a fake environment (the harness itself,
materializations and sample folders, is vllm_digest/testing/pipeline.py, which the tools use too); and
the order in which the test files start."""

from __future__ import annotations

import warnings

import dagster as dg
import pytest

from tests.ci_gate import pytest_runtest_makereport  # noqa: F401  (the hook: a skip fails the run under CI)
from vllm_digest.core.config.settings import Settings
from vllm_digest.testing.pipeline import settings_at

warnings.filterwarnings("ignore", category=dg.BetaWarning)
warnings.filterwarnings("ignore", category=dg.PreviewWarning)


@pytest.fixture
def make_settings(tmp_path):
    """Settings for a fresh data home; keyword arguments are environment variables."""

    def _make(**env: str) -> Settings:
        return settings_at(tmp_path / "home", **env)

    return _make


def e2e_rank(module_items: list) -> int:
    """0 for a module whose every test is marked e2e, 1 for one holding some, 2 for the others."""
    marked = sum(1 for item in module_items if item.get_closest_marker("e2e"))
    return 0 if marked == len(module_items) else 1 if marked else 2


def pytest_collection_modifyitems(items: list) -> None:
    """The modules that start a real `dagster dev` first, the end-to-end modules before those with one such
    test; otherwise the collection's order. `make test` runs a file per worker at a time, in this order
    (`--dist loadfile --no-loadscope-reorder`): an end-to-end module spends minutes waiting for the
    daemon's 30 s looks, so started last it would end the run minutes after the other worker is done;
    started first, the other worker runs the short files meanwhile."""
    by_module: dict[str, list] = {}
    for item in items:
        by_module.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    rank = {module: e2e_rank(module_items) for module, module_items in by_module.items()}
    items.sort(key=lambda item: rank[item.nodeid.split("::", 1)[0]])  # stable: the order within a rank stays
