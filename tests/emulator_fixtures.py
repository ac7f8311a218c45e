"""The GitHub emulator as pytest fixtures, serving the embedded sample (imported by the test modules)."""

from __future__ import annotations

import pytest

from vllm_digest.testing.github_emulator import Dataset, GitHubEmulator
from vllm_digest.testing.github_fixtures import TOKEN


@pytest.fixture(scope="module")
def sample_dataset() -> Dataset:
    return Dataset.from_sample()


@pytest.fixture
def emulator(sample_dataset):
    with GitHubEmulator(sample_dataset, token=TOKEN) as emu:
        yield emu
