"""An item created exactly at the cutoff belongs to the later day; one a second
before, to the earlier day. Closings follow the same rule."""

import json

from tests.pipeline_helpers import build_sample_day, five_sets
from vllm_digest.core.calendar import window_for_day


def _issue(number, created, closed=None, pr=False):
    obj = {
        "number": number, "title": f"item {number}", "user": {"login": "alice", "type": "User"},
        "labels": [], "state": "closed" if closed else "open", "created_at": created,
        "updated_at": closed or created, "closed_at": closed, "comments": 0, "body": None,
    }
    if pr:
        obj["pull_request"] = {"merged_at": None}
    return obj


def _write_sample(root):
    folder = root / "vllm-project__vllm"
    folder.mkdir(parents=True)
    # cutoff 11:39 Asia/Shanghai = 03:39:00Z
    items = [
        _issue(1, "2026-03-22T03:39:00Z"),
        _issue(2, "2026-03-22T03:38:59Z"),
        _issue(3, "2026-01-01T00:00:00Z", closed="2026-03-22T03:39:00Z"),
        _issue(4, "2026-01-01T00:00:00Z", closed="2026-03-22T03:38:59Z", pr=True),
    ]
    events = [
        {"id": 10, "event": "closed", "created_at": "2026-03-22T03:39:00Z", "issue": {"number": 3}},
        {"id": 11, "event": "closed", "created_at": "2026-03-22T03:38:59Z", "issue": {"number": 4}},
    ]
    (folder / "issues.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (folder / "coverage.json").write_text(json.dumps({"start": "2026-03-20T00:00:00Z", "end": "2026-03-25T00:00:00Z"}))


def test_cutoff_edges(make_settings, tmp_path):
    _write_sample(tmp_path / "sample")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "sample"))
    for day in ("2026-03-21", "2026-03-22"):
        build_sample_day(settings, window_for_day(day, settings))
    earlier, later = five_sets(settings, "2026-03-21"), five_sets(settings, "2026-03-22")
    assert earlier == {"new_issues": [2], "closed_unmerged_prs": [4]}
    assert later == {"new_issues": [1], "closed_issues": [3]}
