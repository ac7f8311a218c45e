"""The save side of ingest, github-to-sqlite style: a recorded day of GitHub REST objects
(tests/recorded/day.json, full API shapes with the fields we ignore) is landed with ``write_day``
and staged by the stg models, and the tables hold exactly what the objects say."""

import json
from pathlib import Path

import pytest

from vllm_digest.core.calendar import window_for_day
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.core.vocabulary import MANIFEST, PAYLOAD_KINDS, DayPayload, Manifest
from vllm_digest.ingest.raw_store import RowLines, day_dir, read_day, write_day
from vllm_digest.warehouse.layers import CORE_MODELS, MART_MODELS, STG_MODELS, build_days


RECORDED = json.loads((Path(__file__).parents[1] / "recorded" / "day.json").read_text(encoding="utf-8"))
DAY = "2026-05-04"


@pytest.fixture
def landed(make_settings):
    settings = make_settings(
        VLLM_DIGEST_REPOS="octo-org/octo-repo", VLLM_DIGEST_TIMEZONE="UTC", VLLM_DIGEST_CUTOFF="00:00"
    )
    repo, window = settings.repos[0], window_for_day(DAY, settings)
    manifest = Manifest(
        source="github", repo=repo.full_name, day=DAY,
        window_start=window.start.isoformat(), window_end=window.end.isoformat(),
        semantics="events", complete=True, request_count=7, not_modified_count=2,
        totals={"closed_issues": {"count": 1, "numbers": [101]}},
        details={"api_url": "https://api.github.com", "requests": [{"path": "/x", "status": 200}]},
    )
    payload = DayPayload(manifest=manifest, **{kind: RECORDED[kind] for kind in PAYLOAD_KINDS})
    write_day(settings.raw_dir, repo, DAY, payload)
    return settings, repo, window, payload


def test_a_recorded_day_lands_whole_and_reads_back(landed):
    settings, repo, _, payload = landed
    folder = day_dir(settings.raw_dir, repo, DAY)
    assert sorted(p.name for p in folder.iterdir()) == sorted([MANIFEST, *(f"{k}.jsonl" for k in PAYLOAD_KINDS)])
    # one flat object on disk: the typed fields beside the source's own details
    on_disk = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    assert on_disk["request_count"] == 7 and on_disk["requests"] == [{"path": "/x", "status": 200}]
    assert read_day(settings.raw_dir, repo, DAY) == payload


def test_staging_types_and_deduplicates_a_recorded_day(landed):
    settings, repo, window, _ = landed
    with WarehouseResource(path=str(settings.warehouse_path)).connect() as con:
        build_days(con, STG_MODELS, repo, [window], settings.raw_dir)

        def rows(sql):
            return con.execute(sql).fetchall()

        # the later update of issue 101 wins over the stale copy of it; a PR is an issue with pull_request
        assert rows(
            "SELECT number, title, state, author_login, author_type, labels, comments_total, reactions_total, "
            "is_pull_request, strftime(merged_at, '%H:%M:%S') FROM stg_issues ORDER BY number"
        ) == [
            (101, "[Bug]: crash when the batch is empty", "closed", "alice", "User", ["bug"], 2, 3, False, None),
            (102, "[Bugfix] handle an empty batch", "closed", "renovate[bot]", "Bot", [], 0, 0, True, "14:59:30"),
        ]
        # an event without an issue is dropped
        assert rows("SELECT event_id, event, issue_number, actor_login FROM stg_issue_events ORDER BY 1") == [
            (7001, "merged", 102, "bob"), (7002, "closed", 102, "bob"), (7003, "closed", 101, "carol"),
        ]
        # a comment landed twice (edited between pages) is one row, its latest text
        assert rows("SELECT comment_id, issue_number, author_login, body FROM stg_issue_comments ORDER BY 1") == [
            (5001, 101, "bob", "I can reproduce it"), (5002, 101, "alice", "thanks! (edited)"),
        ]
        assert rows("SELECT comment_id, pull_number, author_login, path FROM stg_review_comments") == [
            (6001, 102, "bob", "vllm/engine/batch.py"),
        ]
        assert rows("SELECT review_id, pull_number, author_login, state FROM stg_reviews") == [(8001, 102, "bob", "APPROVED")]
        assert rows("SELECT number, additions, deletions, changed_files, commits, draft FROM stg_pulls") == [
            (102, 12, 3, 2, 1, False),
        ]
        assert rows(
            "SELECT source, semantics, complete, request_count, not_modified_count, CAST(totals AS VARCHAR) "
            "FROM stg_fetch_manifest"
        ) == [("github", "events", True, 7, 2, '{"closed_issues":{"count":1,"numbers":[101]}}')]


def test_a_recorded_day_makes_its_five_sets(landed):
    """The PR closed a second after its merge is merged, not closed without merge."""
    settings, repo, window, _ = landed
    with WarehouseResource(path=str(settings.warehouse_path)).connect() as con:
        for models in (STG_MODELS, CORE_MODELS, MART_MODELS):
            build_days(con, models, repo, [window], settings.raw_dir)
        sets = con.execute("SELECT set_name, list(number ORDER BY number) FROM mart_five_sets GROUP BY 1").fetchall()
    assert dict(sets) == {"new_issues": [101], "new_prs": [102], "closed_issues": [101], "merged_prs": [102]}


def test_a_manifest_without_its_fields_is_named_with_its_file(landed):
    settings, repo, _, _ = landed
    path = day_dir(settings.raw_dir, repo, DAY) / MANIFEST
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["semantics"], data["complete"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError) as err:
        read_day(settings.raw_dir, repo, DAY)
    assert str(path) in str(err.value) and "complete" in str(err.value) and "semantics" in str(err.value)


def test_a_run_memo_writes_the_same_bytes_and_never_a_stale_line(make_settings):
    # the sample serves an item's same dict on every day it is touched; a run's RowLines serializes it once.
    # The files must be byte for byte what a plain landing writes, and a row that is a different object (here
    # one built after the first was dropped, which may reuse its id) must get its own line
    settings = make_settings(VLLM_DIGEST_REPOS="octo-org/octo-repo", VLLM_DIGEST_TIMEZONE="UTC")
    repo = settings.repos[0]

    def payload(day: str, issues: list[dict]) -> DayPayload:
        window = window_for_day(day, settings)
        manifest = Manifest(source="sample", repo=repo.full_name, day=day, window_start=window.start.isoformat(),
                            window_end=window.end.isoformat(), semantics="events", complete=True)
        return DayPayload(manifest=manifest, issues=issues, pulls=[dict(issues[0], number=7)],
                          comments=[{"id": 1, "body": "ünïcode ✓ \u2028"}])

    shared = {"number": 101, "title": "Fix — ünïcode ✓", "body": "a\nb \"q\" \\ \u2028 🐛"}
    memo = RowLines()
    days = ("2026-05-04", "2026-05-05", "2026-05-06")
    for day in days[:2]:
        write_day(settings.raw_dir, repo, day, payload(day, [shared, {"number": 102}]), memo)
    for _ in range(50):  # new dicts, some at the ids of dropped ones
        write_day(settings.raw_dir, repo, days[2], payload(days[2], [{"number": 200, "title": "other"}]), memo)
    for day in days:
        folder = day_dir(settings.raw_dir, repo, day)
        for kind in ("issues", "pulls", "comments"):
            text = (folder / f"{kind}.jsonl").read_text(encoding="utf-8")
            rows = [json.loads(line) for line in text.split("\n")[:-1]]
            assert text == "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows)
    assert read_day(settings.raw_dir, repo, days[1]).issues == [shared, {"number": 102}]
    assert read_day(settings.raw_dir, repo, days[2]).issues == [{"number": 200, "title": "other"}]
    assert read_day(settings.raw_dir, repo, days[2]).pulls == [{"number": 7, "title": "other"}]
