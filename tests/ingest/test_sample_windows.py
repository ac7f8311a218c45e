"""Every real report window of the embedded sample, run with its own cutoff,
reproduces that report's five lists exactly, and the counts its header states
wherever that header agrees with its own lists.

Ours are the list lengths by construction (mart_daily_counts counts mart_five_sets).
The original's header disagrees with its lists once: 2026-03-05 states 96 new PRs
and lists 95. (Its closed issues of 2026-03-05 and 2026-03-07, 31 and 37, include
four issues by deleted accounts, which the sample carries as GitHub's user ghost.)
"""

import datetime as dt
import json

import dagster as dg
import pytest

from vllm_digest.testing.pipeline import sample_windows
from tests.pipeline_helpers import build_sample_day, five_sets
from vllm_digest.core.calendar import window_for_day
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.core.vocabulary import SET_NAMES as SETS
from vllm_digest.definitions import build_definitions
from vllm_digest.ingest.sample import SampleFileError, fetch_sample_day


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
    with WarehouseResource(path=str(settings.warehouse_path)).connect(read_only=True) as con:
        counts = dict(zip(SETS, con.execute(f"SELECT {', '.join(SETS)} FROM mart_daily_counts").fetchone()))
    for name in SETS:
        if expected["counts"][name] == len(expected["lists"][name]):
            assert counts[name] == expected["counts"][name], name


def test_the_original_headers_disagree_with_their_lists_only_once():
    disagree = [(w["day"], name, w["counts"][name], len(w["lists"][name]))
                for w in sample_windows() for name in SETS if w["counts"][name] != len(w["lists"][name])]
    assert disagree == [("2026-03-05", "new_prs", 96, 95)]


def test_a_cut_off_line_in_a_sample_file_names_the_file_and_its_line(make_settings, tmp_path):
    """A truncated row fails the raw step once, with the file, the line number and where the
    text stops, instead of json's bare "Expecting value: line 2 column 1"."""
    folder = tmp_path / "sample" / "vllm-project__vllm"
    folder.mkdir(parents=True)
    whole = json.dumps({"number": 1, "title": "fine", "created_at": "2026-03-22T04:00:00Z"})
    (folder / "issues.jsonl").write_text(f'{whole}\n{{"number": 2, "title": "cut off at\n', encoding="utf-8")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "sample"))
    repo = settings.repos[0]
    with pytest.raises(SampleFileError) as caught:
        fetch_sample_day(repo, window_for_day("2026-03-22", settings), settings.sample_dir)
    message = str(caught.value)
    assert message.startswith(f"{folder / 'issues.jsonl'} line 2: not valid JSON")
    assert "'\"cut off at'" in message  # where the parser stopped: the unterminated string

    defs = build_definitions(settings)
    raw = dg.AssetKey([*repo.key_prefix, "raw_activity"])
    result = dg.materialize([a for a in defs.assets if raw in a.keys], resources=defs.resources,
                            partition_key="2026-03-22", instance=dg.DagsterInstance.ephemeral(),
                            raise_on_error=False)
    types = [e.event_type_value for e in result.all_events]
    assert types.count("STEP_FAILURE") == 1 and "STEP_UP_FOR_RETRY" not in types
    [failure] = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert f"{folder / 'issues.jsonl'} line 2: not valid JSON" in failure.step_failure_data.error.message
