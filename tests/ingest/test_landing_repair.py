"""One bad string stays one bad string (issue 27): a lone UTF-16 surrogate in untrusted text is
repaired at landing and counted in the manifest, for both sources, and an error of the raw step
that a retry cannot fix fails it at once instead of being retried for minutes."""

from __future__ import annotations

import datetime as dt
import json

import dagster as dg

from vllm_digest.core.keys import RAW_ASSET
from vllm_digest.core.vocabulary import MANIFEST, DayPayload, Manifest
from vllm_digest.definitions import build_definitions
from vllm_digest.ingest.github.plan import fetch_day
from vllm_digest.ingest.raw_store import RowLines, day_dir, read_day, write_day
from vllm_digest.testing.github_emulator import Dataset, GitHubEmulator
from vllm_digest.testing.github_fixtures import FAST, REPO, TOKEN, expected_windows, window_of
from vllm_digest.testing.pipeline import write_sample

LONE = "\ud800"
DAYS = ["2026-03-20", "2026-03-21", "2026-03-22"]


def _manifest(day: str) -> Manifest:
    return Manifest(source="sample", repo=REPO.full_name, day=day, window_start="", window_end="",
                    semantics="events", complete=True, request_count=0, not_modified_count=0)


def test_lone_surrogates_are_replaced_and_counted_and_the_rest_is_untouched(tmp_path):
    issue = {"number": 1, "title": f"bad {LONE} title", "labels": [{"name": "ok"}], "body": "fine 😀"}
    comment = {"id": 2, "body": f"{LONE}x{LONE}", f"key{LONE}": "v"}
    for lines in (None, RowLines()):  # the github path and the sample's memoized one
        payload = DayPayload(manifest=_manifest("2026-03-22"), issues=[issue], comments=[comment])
        write_day(tmp_path, REPO, "2026-03-22", payload, lines)
        back = read_day(tmp_path, REPO, "2026-03-22")
        assert back.issues == [{**issue, "title": "bad \ufffd title"}]
        assert back.comments == [{"id": 2, "body": "\ufffdx\ufffd", "key\ufffd": "v"}]
        assert back.manifest.details["repaired_strings"] == 3  # the title, the body, the key
    # the landed files are valid UTF-8 throughout
    for path in day_dir(tmp_path, REPO, "2026-03-22").iterdir():
        path.read_bytes().decode("utf-8")


def test_a_clean_day_says_nothing_about_repairs(tmp_path):
    write_day(tmp_path, REPO, "2026-03-22", DayPayload(manifest=_manifest("2026-03-22"), issues=[{"number": 1}]))
    assert "repaired_strings" not in read_day(tmp_path, REPO, "2026-03-22").manifest.details


def test_the_github_source_lands_a_title_with_a_lone_surrogate(tmp_path):
    dataset = Dataset.from_sample()
    window = window_of(expected_windows()[5])
    number = max(n for n, item in dataset.items.items() if window.contains(
        dt.datetime.fromisoformat(item["created_at"].replace("Z", "+00:00"))))
    dataset.items[number] = {**dataset.items[number], "title": f"[Bug] {LONE} crash"}
    with GitHubEmulator(dataset, token=TOKEN) as emu:  # JSON-escaped on the wire, as GitHub sends it
        emu.now = window.end
        payload = fetch_day(REPO, window, emu.base_url, TOKEN, None, **FAST)
    write_day(tmp_path, REPO, window.key, payload)
    back = read_day(tmp_path, REPO, window.key)
    [landed] = [i for i in back.issues if i["number"] == number]
    assert landed["title"] == "[Bug] \ufffd crash"
    assert back.manifest.details["repaired_strings"] >= 1


def _item(number: int, day: str, title: str) -> dict:
    at = f"{day}T12:00:00Z"
    return {"number": number, "title": title, "state": "open", "closed_at": None, "labels": [], "comments": 0,
            "created_at": at, "updated_at": at, "user": {"login": "alice", "type": "User"},
            "author_association": "CONTRIBUTOR", "body": "text"}


def _materialize_raw(settings) -> dg.ExecuteInProcessResult:
    defs = build_definitions(settings)
    key = dg.AssetKey([*REPO.key_prefix, RAW_ASSET])
    raw = next(a for a in defs.assets if key in a.keys)
    return dg.materialize(
        [raw], resources=defs.resources, instance=dg.DagsterInstance.ephemeral(), raise_on_error=False,
        tags={"dagster/asset_partition_range_start": DAYS[0], "dagster/asset_partition_range_end": DAYS[-1]},
    )


def test_a_range_run_lands_every_day_when_one_title_has_a_lone_surrogate(make_settings, tmp_path):
    items = [_item(100 + k, day, f"[Core] item {k}") for k, day in enumerate(DAYS)]
    items[1]["title"] = f"[Core] broken {LONE} title"  # the middle day's
    sample = write_sample(tmp_path / "sample", items)
    assert "\\ud800" in (sample / "vllm-project__vllm" / "issues.jsonl").read_text()
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(sample))
    result = _materialize_raw(settings)
    assert result.success
    types = [e.event_type_value for e in result.all_events]
    assert "STEP_UP_FOR_RETRY" not in types and "STEP_FAILURE" not in types
    for k, day in enumerate(DAYS):
        landed = read_day(settings.raw_dir, REPO, day)
        assert [i["number"] for i in landed.issues] == [100 + k], day
        on_disk = json.loads((day_dir(settings.raw_dir, REPO, day) / MANIFEST).read_text(encoding="utf-8"))
        assert on_disk.get("repaired_strings") == (1 if k == 1 else None), day
    assert read_day(settings.raw_dir, REPO, DAYS[1]).issues[0]["title"] == "[Core] broken \ufffd title"


def test_a_landing_error_a_retry_cannot_fix_fails_once_without_retry(make_settings, tmp_path):
    """The raw folder cannot be made (a file is in its place): before, the RetryPolicy retried the
    step 3 times over minutes; it fails at once, saying what and that it was not retried."""
    sample = write_sample(tmp_path / "sample", [_item(100 + k, day, "[Core] item") for k, day in enumerate(DAYS)])
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(sample))
    blocker = settings.raw_dir / REPO.owner / REPO.name
    blocker.parent.mkdir(parents=True)
    blocker.write_text("not a folder")
    result = _materialize_raw(settings)
    assert not result.success
    types = [e.event_type_value for e in result.all_events]
    assert types.count("STEP_FAILURE") == 1 and "STEP_UP_FOR_RETRY" not in types
    [failure] = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    message = failure.step_failure_data.error.message
    assert f"landing vllm-project/vllm {DAYS[0]}...{DAYS[-1]} (3 days) failed, not retried" in message
    assert blocker.read_text() == "not a folder"
