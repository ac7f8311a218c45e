"""Every real report window of the embedded sample, run with its own cutoff,
reproduces that report's five lists exactly.

The original's stated counts are not compared: on 2026-03-05 and 2026-03-07 its
header says 31 and 37 closed issues while its own lists hold 30 and 34. Ours
are the list lengths by construction (mart_daily_counts counts mart_five_sets).
"""

import datetime as dt

import pytest

from conftest import sample_windows
from pipeline_helpers import build_sample_day, five_sets
from vllm_digest.model import SET_NAMES as SETS
from vllm_digest.partitions import window_for_day


@pytest.mark.parametrize("expected", sample_windows(), ids=lambda w: f"{w['day']}@{w['cutoff']}")
def test_window_reproduces_report_lists(make_settings, expected):
    settings = make_settings(VLLM_DIGEST_CUTOFF=expected["cutoff"], VLLM_DIGEST_TIMEZONE=expected["timezone"])
    window = window_for_day(expected["day"], settings)
    assert window.start == dt.datetime.fromisoformat(expected["window_start"])
    assert window.end == dt.datetime.fromisoformat(expected["window_end"])
    build_sample_day(settings, window)
    got = five_sets(settings, expected["day"])
    for name in SETS:
        assert got.get(name, []) == sorted(expected["lists"][name]), name
