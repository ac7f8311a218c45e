"""Shared fixtures: a temporary data home and settings built from a fake environment (the harness itself,
materializations and sample folders, is vllm_digest/testing/pipeline.py, which the tools use too)."""

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
