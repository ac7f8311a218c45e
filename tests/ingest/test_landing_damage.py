"""A damaged landing is found, named and repaired, never replayed into stubs (issue 35, points 1, 5 and 9):
the manifest records each payload file's rows and SHA-256, every reader checks them, the github source
lands a damaged day afresh, a page is answered from the previous landing only when that landing holds
every object the page held, and a day's folder is swapped in one step."""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading

import dagster as dg
import pytest

from vllm_digest.core.calendar import window_for_day
from vllm_digest.core.keys import RAW_ASSET
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.core.vocabulary import MANIFEST, PAYLOAD_KINDS
from vllm_digest.definitions import build_definitions
from vllm_digest.ingest.github.plan import fetch_day
from vllm_digest.ingest.raw_store import (
    DamagedLandingError, day_dir, file_record, read_day, read_landing, write_day,
)
from vllm_digest.ingest.sample import fetch_sample_day
from vllm_digest.testing.github_emulator import Dataset, GitHubEmulator
from vllm_digest.testing.github_fixtures import FAST, REPO, TOKEN, expected_windows, five_sets, window_of
from vllm_digest.warehouse.layers import STG_MODELS, build_days

LAG = dt.timedelta(minutes=10)  # the daily run: the recent-day plan, whose open-items pages replay items
ENTRY = expected_windows()[10]
WINDOW = window_of(ENTRY)


def _cut_lines(path, drop: int) -> None:
    """Drop the last ``drop`` lines of a JSON-lines file, at a line boundary."""
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-drop]))


def _as_older_code(folder) -> None:
    """Make a landing look like one older code wrote: no row counts or hashes, no stub flags."""
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    manifest.pop("landed_files", None)
    for record in manifest.get("replay", {}).values():
        for ref in record["refs"]:
            ref.pop("stub", None)
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")


def _land(emu, home, previous=None, window=WINDOW):
    payload = fetch_day(REPO, window, emu.base_url, TOKEN, previous, **FAST)
    write_day(home / "raw", REPO, window.key, payload)
    return payload


def _github_settings(make_settings, emu):
    """Settings of the github source against ``emu``, and the window its partition of WINDOW's day covers."""
    settings = make_settings(VLLM_DIGEST_SOURCE="github", GITHUB_API_URL=emu.base_url, GITHUB_TOKEN=TOKEN,
                             VLLM_DIGEST_GITHUB_PEOPLE="0", VLLM_DIGEST_GITHUB_FILES="0")
    return settings, window_for_day(WINDOW.key, settings)


@pytest.fixture
def emulator():
    with GitHubEmulator(Dataset.from_sample(), token=TOKEN) as emu:
        emu.now = WINDOW.end + LAG
        yield emu


def test_the_manifest_records_each_files_rows_and_hash_and_a_304_rerun_stays_free(emulator, tmp_path):
    first = _land(emulator, tmp_path)
    folder = day_dir(tmp_path / "raw", REPO, WINDOW.key)
    on_disk = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    assert set(on_disk["landed_files"]) == set(PAYLOAD_KINDS)
    assert on_disk["landed_files"]["issues"]["rows"] == len(first.issues) > 20
    assert len(on_disk["landed_files"]["issues"]["sha256"]) == 64
    # the references the day did not land (events after the window, items it does not hold) say so
    refs = [ref for record in on_disk["replay"].values() for ref in record["refs"]]
    assert any(ref.get("stub") for ref in refs) and not all(ref.get("stub") for ref in refs)
    previous, verified = read_landing(tmp_path / "raw", REPO, WINDOW.key)
    assert verified and "landed_files" not in previous.manifest.details
    emulator.clear_log()
    second = _land(emulator, tmp_path, previous)
    assert second.manifest.not_modified_count == second.manifest.request_count  # still all 304
    assert second.issues == first.issues


def test_a_cut_landing_of_older_code_plus_a_304_rerun_lands_full_items_not_stubs(emulator, tmp_path):
    """The fault as seen: the last 20 lines of issues.jsonl dropped, re-run with the github source. Before,
    the 304 pages were rebuilt with stubs (number and times only) for the items lost, PRs became issues and
    the manifest called the day complete, its totals counted from the same stubs."""
    first = _land(emulator, tmp_path)
    folder = day_dir(tmp_path / "raw", REPO, WINDOW.key)
    _as_older_code(folder)  # without row counts the cut cannot be seen: only the replay's own rule holds
    _cut_lines(folder / "issues.jsonl", 20)
    previous, verified = read_landing(tmp_path / "raw", REPO, WINDOW.key)
    assert not verified and len(previous.issues) == len(first.issues) - 20  # readable, unverified
    emulator.clear_log()
    second = _land(emulator, tmp_path, previous)
    assert [i for i in second.issues if "title" not in i] == []
    assert second.issues == first.issues
    assert second.manifest.complete and second.manifest.totals == first.manifest.totals
    # the pages whose items the landing lacks were asked whole; the others still answered 304
    assert second.manifest.details["pages_asked_whole"] >= 1
    assert 0 < second.manifest.not_modified_count < second.manifest.request_count
    on_disk = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    assert on_disk["landed_files"]["issues"]["rows"] == len(first.issues)
    # a third run is the first one again, every page 304
    emulator.clear_log()
    third = _land(emulator, tmp_path, read_day(tmp_path / "raw", REPO, WINDOW.key))
    assert third.issues == first.issues
    assert third.manifest.not_modified_count == third.manifest.request_count
    assert five_sets(tmp_path, REPO, [WINDOW])[WINDOW.key]["new_prs"] == sorted(ENTRY["lists"]["new_prs"])



def test_a_stub_the_plan_would_keep_is_left_out_and_the_day_incomplete_until_landed_again(emulator, tmp_path):
    """The safety net under the rule above: a landing whose record calls an item "never landed" (so a 304
    page is rebuilt with its stub) while the day now keeps it. The stub is not landed as an item: the day
    is incomplete naming it, and the next landing asks its page whole."""
    first = _land(emulator, tmp_path)
    folder = day_dir(tmp_path / "raw", REPO, WINDOW.key)
    embedded = {e["issue"]["number"] for e in first.events if isinstance(e.get("issue"), dict)}
    number = next(i["number"] for i in first.issues if i["number"] not in embedded)
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    for record in manifest["replay"].values():
        for ref in record["refs"]:
            if record["kind"] == "issues" and ref.get("number") == number:
                ref["stub"] = True
    kept = [line for line in (folder / "issues.jsonl").read_bytes().splitlines(keepends=True)
            if json.loads(line)["number"] != number]
    (folder / "issues.jsonl").write_bytes(b"".join(kept))
    manifest["landed_files"]["issues"] = file_record(b"".join(kept))  # a whole, verified landing
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    second = _land(emulator, tmp_path, read_day(tmp_path / "raw", REPO, WINDOW.key))
    assert number not in {i["number"] for i in second.issues}
    assert [i for i in second.issues if "title" not in i] == []
    assert not second.manifest.complete
    assert any(r.startswith(f"issues {number}: only a reference") for r in second.manifest.incomplete_reasons)
    third = _land(emulator, tmp_path, read_day(tmp_path / "raw", REPO, WINDOW.key))
    assert third.issues == first.issues and third.manifest.complete
    assert third.manifest.details["pages_asked_whole"] >= 1

def test_a_cut_landing_is_detected_and_its_304_rerun_fetches_it_whole(emulator, tmp_path, make_settings):
    """The same cut on a landing that records its counts: the github source's step warns naming the file,
    fetches the day as if it had never been landed, and the new landing's counts are right."""
    settings, window = _github_settings(make_settings, emulator)
    first = _land(emulator, settings.raw_dir.parent, window=window)
    folder = day_dir(settings.raw_dir, REPO, WINDOW.key)
    path = folder / "issues.jsonl"
    _cut_lines(path, 20)
    with pytest.raises(DamagedLandingError) as caught:
        read_day(settings.raw_dir, REPO, WINDOW.key)
    assert str(path) in str(caught.value)
    assert f"it holds {len(first.issues) - 20} whole lines where the manifest records {len(first.issues)} rows" \
        in str(caught.value)
    result, warnings = _materialize_raw(settings, WINDOW.key)
    assert result.success
    [warning] = [w for w in warnings if "is damaged" in w]
    assert str(path) in warning and "as if it had never been landed" in warning
    again = read_day(settings.raw_dir, REPO, WINDOW.key)
    assert again.issues == first.issues
    assert again.manifest.not_modified_count == 0 and again.manifest.complete


def test_a_raw_file_cut_at_a_line_boundary_fails_the_stg_step_naming_it(tmp_path, make_settings):
    """Before, the stg step read the 5 rows fewer and staged a smaller day without a word."""
    settings = make_settings()
    window = WINDOW
    payload = fetch_sample_day(REPO, window)
    write_day(settings.raw_dir, REPO, window.key, payload)
    path = day_dir(settings.raw_dir, REPO, window.key) / "issues.jsonl"
    _cut_lines(path, 5)
    with WarehouseResource(path=str(settings.warehouse_path)).connect() as con:
        with pytest.raises(DamagedLandingError) as caught:
            build_days(con, STG_MODELS, REPO, [window], settings.raw_dir)
    message = str(caught.value)
    assert repr(str(path)) in message
    assert f"it holds {len(payload.issues) - 5} whole lines where the manifest records {len(payload.issues)} rows" \
        in message


def test_a_raw_file_changed_in_place_fails_on_its_hash(tmp_path):
    payload = fetch_sample_day(REPO, WINDOW)
    write_day(tmp_path, REPO, WINDOW.key, payload)
    path = day_dir(tmp_path, REPO, WINDOW.key) / "events.jsonl"
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"closed"', b'"reopen"', 1))
    with pytest.raises(DamagedLandingError, match="SHA-256 differs"):
        read_day(tmp_path, REPO, WINDOW.key)


def _cut_mid_line(path) -> int:
    """Cut a JSON-lines file inside its line 182 (or its last line, if shorter); returns that line's number."""
    lines = path.read_bytes().splitlines(keepends=True)
    number = min(182, len(lines))
    path.write_bytes(b"".join(lines[:number - 1]) + lines[number - 1][: len(lines[number - 1]) // 2])
    return number


def test_a_raw_file_cut_mid_line_is_named_and_the_github_source_lands_it_again(emulator, make_settings):
    """Before, the re-run failed in raw with a bare "Unterminated string starting at: line 1 column 760",
    naming no file, and the day could not be landed again until someone deleted its folder."""
    settings, window = _github_settings(make_settings, emulator)
    first = _land(emulator, settings.raw_dir.parent, window=window)
    folder = day_dir(settings.raw_dir, REPO, WINDOW.key)
    path = folder / "issues.jsonl"
    number = _cut_mid_line(path)
    # the warehouse step names the file and the line, and stages nothing of the day
    with WarehouseResource(path=str(settings.warehouse_path)).connect() as con:
        with pytest.raises(DamagedLandingError) as caught:
            build_days(con, STG_MODELS, REPO, [window], settings.raw_dir)
        assert con.execute("SELECT count(*) FROM stg_fetch_manifest").fetchone() == (0,)
    assert repr(str(path)) in str(caught.value) and f"line {number} is not valid JSON" in str(caught.value)
    # so does a landing of older code, which has no counts to compare
    _as_older_code(folder)
    with pytest.raises(DamagedLandingError, match=f"line {number} is not valid JSON"):
        read_day(settings.raw_dir, REPO, WINDOW.key)
    result, warnings = _materialize_raw(settings, WINDOW.key)
    assert result.success
    [warning] = [w for w in warnings if "is damaged" in w]
    assert str(path) in warning and f"line {number} is not valid JSON" in warning
    assert read_day(settings.raw_dir, REPO, WINDOW.key).issues == first.issues


def test_the_sample_source_lands_over_a_damaged_day_without_reading_it(make_settings):
    settings = make_settings()
    write_day(settings.raw_dir, REPO, "2026-03-22", fetch_sample_day(REPO, window_of(expected_windows()[-1])))
    path = day_dir(settings.raw_dir, REPO, "2026-03-22") / "issues.jsonl"
    _cut_mid_line(path)
    assert _materialize_raw(settings, "2026-03-22")[0].success
    assert read_landing(settings.raw_dir, REPO, "2026-03-22")[1]


def test_two_concurrent_landings_of_one_day_both_succeed_and_a_reader_never_finds_it_missing(tmp_path):
    """Before, the day was swapped with two renames: one of two landings at once failed with
    FileNotFoundError (or "Directory not empty"), and a reader could find no manifest in between."""
    payloads = [fetch_sample_day(REPO, w) for w in (WINDOW, window_of(expected_windows()[11]))]
    write_day(tmp_path, REPO, WINDOW.key, payloads[0])
    manifest = day_dir(tmp_path, REPO, WINDOW.key) / MANIFEST
    errors: list[BaseException] = []
    missing = []
    stop = threading.Event()

    def land(payload):
        try:
            for _ in range(40):
                write_day(tmp_path, REPO, WINDOW.key, payload)
        except BaseException as exc:  # noqa: BLE001 - the test reports whatever a landing raised
            errors.append(exc)

    def read():
        while not stop.is_set():
            if not manifest.is_file():
                missing.append(1)

    reader = threading.Thread(target=read)
    writers = [threading.Thread(target=land, args=(p,)) for p in payloads]
    reader.start()
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    reader.join()
    assert errors == [] and missing == []
    # the day is one landing whole, the last one; nothing is left beside it
    landed = read_day(tmp_path, REPO, WINDOW.key)
    assert landed.issues in (payloads[0].issues, payloads[1].issues)
    assert sorted(p.name for p in day_dir(tmp_path, REPO, WINDOW.key).parent.iterdir()) == [".landing.lock", WINDOW.key]


def _materialize_raw(settings, day: str) -> tuple[dg.ExecuteInProcessResult, list[str]]:
    """Materialize the day's raw_activity alone; the run's result and its warnings."""
    defs = build_definitions(settings)
    key = dg.AssetKey([*REPO.key_prefix, RAW_ASSET])
    raw = next(a for a in defs.assets if key in a.keys)
    instance = dg.DagsterInstance.ephemeral()
    result = dg.materialize([raw], resources=defs.resources, instance=instance, partition_key=day,
                            raise_on_error=False)
    warnings = [entry.user_message for entry in instance.all_logs(result.run_id) if entry.level == logging.WARNING]
    return result, warnings


def test_a_landing_of_older_code_is_staged_unverified_and_said_so(tmp_path, make_settings, caplog):
    settings = make_settings()
    window = window_for_day("2026-03-22", settings)
    write_day(settings.raw_dir, REPO, window.key, fetch_sample_day(REPO, window))
    want = five_sets(settings.raw_dir.parent, REPO, [window])
    _as_older_code(day_dir(settings.raw_dir, REPO, window.key))
    caplog.set_level(logging.WARNING)
    assert five_sets(settings.raw_dir.parent, REPO, [window]) == want
    assert "1 landed days of vllm-project/vllm were written without row counts or hashes" in caplog.text
    assert window.key in caplog.text


def test_the_stg_step_fails_on_a_damaged_day_naming_the_file(make_settings):
    settings = make_settings()
    window = window_for_day("2026-03-22", settings)
    write_day(settings.raw_dir, REPO, window.key, fetch_sample_day(REPO, window))
    path = day_dir(settings.raw_dir, REPO, window.key) / "events.jsonl"
    _cut_lines(path, 1)
    defs = build_definitions(settings)
    stg = next(a for a in defs.assets if a.node_def.name == f"{REPO.slug}__stg")
    result = dg.materialize([stg], resources=defs.resources, instance=dg.DagsterInstance.ephemeral(),
                            partition_key=window.key, raise_on_error=False)
    assert not result.success
    [failure] = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert f"landed file {str(path)!r} is damaged" in failure.step_failure_data.error.message
    assert "where the manifest records" in failure.step_failure_data.error.message
