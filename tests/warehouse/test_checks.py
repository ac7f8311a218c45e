"""The warehouse checks run inside real materializations, one evaluation per
check and day, and fail for the right reason with the culprit named."""

import json
from functools import partial

import dagster as dg

from vllm_digest.core.calendar import window_for_day
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.definitions import build_definitions
from vllm_digest.ingest.raw_store import write_day
from vllm_digest.ingest.sample import fetch_sample_day
from vllm_digest.orchestration.jobs import daily_selection
from vllm_digest.testing.pipeline import materialize, report_path
from vllm_digest.warehouse import quality


RANGE_TAGS = {"dagster/asset_partition_range_start": "2026-03-22", "dagster/asset_partition_range_end": "2026-03-23"}


def _evaluations(result) -> dict[tuple[str, str, str], dg.AssetCheckEvaluation]:
    return {(e.asset_key.path[-1], e.check_name, e.partition): e for e in result.get_asset_check_evaluations()}


def test_every_check_passes_on_a_sample_day(make_settings):
    result = materialize(make_settings(), "2026-03-22")
    evals = _evaluations(result)
    # 4 unique keys + items in core + counts + reconciliation + completeness + search cross-check + counting
    assert len(evals) == 10
    assert all(e.partition == "2026-03-22" for e in evals.values())
    assert all(e.passed for e in evals.values()), [e.description for e in evals.values() if not e.passed]
    counts = evals[("mart_daily_counts", "counts_equal_list_lengths", "2026-03-22")].metadata
    assert counts["list_lengths"].value == {
        "new_issues": 10, "closed_issues": 10, "new_prs": 48, "merged_prs": 21, "closed_unmerged_prs": 15,
    }


def test_range_run_records_one_evaluation_per_day(make_settings):
    instance = dg.DagsterInstance.ephemeral()
    materialize(make_settings(), "2026-03-20", "2026-03-22", instance=instance)
    key = dg.AssetCheckKey(dg.AssetKey(["vllm_project", "vllm", "core_items"]), "unique_key")
    records = instance.event_log_storage.get_asset_check_execution_history(key, limit=10)
    assert sorted(r.partition for r in records) == ["2026-03-20", "2026-03-21", "2026-03-22"]
    assert {r.status.value for r in records} == {"SUCCEEDED"}


def _issue(number, created):
    return {
        "number": number, "title": f"item {number}", "user": {"login": "alice", "type": "User"},
        "labels": [], "state": "open", "created_at": created, "updated_at": created,
        "closed_at": None, "comments": 0, "body": None,
    }


def _synthetic_sample(root):
    folder = root / "vllm-project__vllm"
    folder.mkdir(parents=True)
    # 2026-03-22 at cutoff 11:39 UTC+8 is [03:39Z on the 22nd, 03:39Z on the 23rd)
    items = [_issue(1, "2026-03-22T05:00:00Z"), _issue(2, "2026-03-22T06:00:00Z"), _issue(5, "2026-03-23T06:00:00Z")]
    (folder / "issues.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    (folder / "events.jsonl").write_text("")
    # covers the 22nd only, so the 23rd lands as an incomplete day
    (folder / "coverage.json").write_text(json.dumps({"start": "2026-03-22T03:39:00Z", "end": "2026-03-23T03:39:00Z"}))


def _land(settings, day, totals):
    repo = settings.repos[0]
    payload = fetch_sample_day(repo, window_for_day(day, settings), settings.sample_dir)
    payload.manifest.totals = totals
    write_day(settings.raw_dir, repo, day, payload)


def test_reconciliation_names_missing_number_and_incomplete_day_warns(make_settings, tmp_path):
    _synthetic_sample(tmp_path / "sample")
    # the partitions would end with the covered 22nd: END_DATE keeps the uncovered 23rd a partition
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "sample"), VLLM_DIGEST_END_DATE="2026-03-23")
    # the source reported issue 3 as new on the 22nd, but the landed data lacks it
    _land(settings, "2026-03-22", {"new_issues": {"count": 3, "numbers": [1, 2, 3]}, "new_prs": {"count": 0}})
    _land(settings, "2026-03-23", {"new_issues": {"count": 1, "numbers": [5]}})
    defs = build_definitions(settings)
    raw = dg.AssetKey(["vllm_project", "vllm", "raw_activity"])
    result = dg.materialize(
        [*defs.assets, *defs.asset_checks],
        resources=defs.resources,
        instance=dg.DagsterInstance.ephemeral(),
        selection=daily_selection() - dg.AssetSelection.assets(raw),
        tags=RANGE_TAGS,
    )
    assert result.success  # checks report, they do not block the report
    evals = _evaluations(result)

    bad = evals[("mart_daily_counts", "reconciles_with_fetch_totals", "2026-03-22")]
    assert not bad.passed and bad.severity == dg.AssetCheckSeverity.ERROR
    assert bad.metadata["missing_numbers"].value == [3]
    assert "new_issues: reported 3, ours 2; missing #3" in bad.description
    assert "new_prs" not in bad.description  # 0 reported, 0 ours
    good = evals[("mart_daily_counts", "reconciles_with_fetch_totals", "2026-03-23")]
    assert good.passed, good.description

    assert evals[("stg_fetch_manifest", "fetch_complete", "2026-03-22")].passed
    flagged = evals[("stg_fetch_manifest", "fetch_complete", "2026-03-23")]
    assert not flagged.passed and flagged.severity == dg.AssetCheckSeverity.WARN
    assert "outside the sample's coverage" in flagged.description
    assert "> ⚠️ 数据不完整" in report_path(settings, "2026-03-23").read_text(encoding="utf-8")
    assert "> ⚠️ 数据不完整" not in report_path(settings, "2026-03-22").read_text(encoding="utf-8")


def test_rules_fail_on_broken_rows(make_settings):
    settings = make_settings()
    materialize(settings, "2026-03-22")
    day = "2026-03-22"
    args = {"repo": "vllm-project/vllm", "days": [day]}
    with WarehouseResource(path=str(settings.warehouse_path)).connect() as con:
        con.execute("INSERT INTO core_items SELECT * FROM core_items WHERE number = 37839")
        con.execute("DELETE FROM core_items WHERE number = 36131")
        con.execute("UPDATE mart_daily_counts SET merged_prs = merged_prs + 1")
        dup = quality.unique_key(con, table="core_items", **args)[day]
        orphan = quality.five_sets_in_core(con, **args)[day]
        counts = quality.counts_match_lists(con, **args)[day]
    assert not dup.passed and dup.metadata["duplicate_keys"] == ["37839"]
    assert not orphan.passed and orphan.metadata["missing_numbers"] == [36131]
    assert not counts.passed and counts.metadata["mismatched"] == {"merged_prs": {"count": 22, "list_length": 21}}


def test_rules_over_many_days_equal_each_day_alone(make_settings):
    """A range run asks each rule once for all its days; a broken day stays broken and the others pass."""
    settings = make_settings()
    days = ["2026-03-20", "2026-03-21", "2026-03-22"]
    materialize(settings, days[0], days[-1])
    with WarehouseResource(path=str(settings.warehouse_path)).connect() as con:
        con.execute("INSERT INTO core_items SELECT * FROM core_items WHERE number = 37839 AND day = DATE '2026-03-22'")
        con.execute("DELETE FROM core_items WHERE number = 36131 AND day = DATE '2026-03-22'")
        con.execute("UPDATE mart_daily_counts SET merged_prs = merged_prs + 1 WHERE day = DATE '2026-03-21'")
        con.execute("DELETE FROM stg_fetch_manifest WHERE day = DATE '2026-03-20'")
        rules = [partial(quality.unique_key, table=t) for t in quality.UNIQUE_KEYS] + [
            quality.five_sets_in_core, quality.counts_match_lists, quality.reconcile_totals, quality.fetch_complete,
            quality.cross_checked, quality.counted_from_events,
        ]
        for rule in rules:
            together = rule(con, repo="vllm-project/vllm", days=days)
            alone = {d: rule(con, repo="vllm-project/vllm", days=[d])[d] for d in days}
            assert together == alone
        passed = {d: quality.unique_key(con, "core_items", "vllm-project/vllm", days)[d].passed for d in days}
        assert passed == {"2026-03-20": True, "2026-03-21": True, "2026-03-22": False}
        counts = quality.counts_match_lists(con, "vllm-project/vllm", days)
        assert [counts[d].passed for d in days] == [True, False, True]
        assert not quality.fetch_complete(con, "vllm-project/vllm", days)["2026-03-20"].passed


def test_each_repo_gets_its_own_partitioned_checks(make_settings):
    settings = make_settings(VLLM_DIGEST_REPOS="vllm-project/vllm,sgl-project/sglang")
    defs = build_definitions(settings)
    specs = [s for checks_def in defs.asset_checks for s in checks_def.check_specs]
    keys = {(s.asset_key.to_user_string(), s.name) for s in specs}
    assert len(keys) == 20
    for prefix in ("vllm_project/vllm", "sgl_project/sglang"):
        assert (f"{prefix}/mart_daily_counts", "reconciles_with_fetch_totals") in keys
        assert (f"{prefix}/stg_fetch_manifest", "fetch_complete") in keys
    assert all(s.partitions_def is not None for s in specs)
    # the checks are part of the graph the UI loads, next to their tables
    assert {(k.asset_key.to_user_string(), k.name) for k in defs.resolve_asset_graph().asset_check_keys} == keys


def test_check_step_logs_no_missing_outputs_and_records_only_per_day_results(make_settings):
    instance = dg.DagsterInstance.ephemeral()
    result = materialize(make_settings(), "2026-03-21", "2026-03-22", instance=instance)
    messages = [entry.user_message for entry in instance.all_logs(result.run_id)]
    assert not [m for m in messages if "did not yield or return expected outputs" in m]
    evals = _evaluations(result)
    assert len(evals) == 20 and {e.partition for e in evals.values()} == {"2026-03-21", "2026-03-22"}
    assert all(e.passed for e in evals.values())
    key = dg.AssetCheckKey(dg.AssetKey(["vllm_project", "vllm", "mart_daily_counts"]), "counts_equal_list_lengths")
    records = instance.event_log_storage.get_asset_check_execution_history(key, limit=10)
    assert sorted((r.partition, r.status.value) for r in records) == [
        ("2026-03-21", "SUCCEEDED"), ("2026-03-22", "SUCCEEDED"),
    ]
