"""Building many days in one set-based pass writes exactly what building them one
day at a time writes, row for row, on vLLM-shaped synthetic data (comments, stale
sweeps, same-instant merge/close pairs)."""

import datetime as dt

import pytest

from vllm_digest.testing.synthetic import generate
from tests.pipeline_helpers import ALL_MODELS, table_hashes
from vllm_digest.core.calendar import window_for_day
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.ingest.raw_store import write_day
from vllm_digest.ingest.sample import fetch_sample_day
from vllm_digest.warehouse.layers import CORE_MODELS, MART_MODELS, STG_MODELS, build_days


DAYS = [f"2026-01-{d:02d}" for d in range(14, 18)]


def _build(settings, batched: bool):
    repo = settings.repos[0]
    windows = [window_for_day(d, settings) for d in DAYS]
    for w in windows:
        write_day(settings.raw_dir, repo, w.key, fetch_sample_day(repo, w, settings.sample_dir))
    counts = {}
    with WarehouseResource(path=str(settings.warehouse_path)).connect() as con:
        for models in (STG_MODELS, CORE_MODELS, MART_MODELS):
            groups = [windows] if batched else [[w] for w in windows]
            for group in groups:
                for day, per_model in build_days(con, models, repo, group, settings.raw_dir).items():
                    counts.setdefault(day, {}).update(per_model)
    return table_hashes(settings, ALL_MODELS), counts


def test_batched_days_equal_day_by_day(tmp_path, make_settings):
    # the sweep day (index 11 from the 3rd) falls inside DAYS
    generate(tmp_path / "root", dt.datetime(2026, 1, 3, 3, 39, tzinfo=dt.timezone.utc), 16)
    env = {"VLLM_DIGEST_SAMPLE_DIR": str(tmp_path / "root"), "VLLM_DIGEST_START_DATE": "2026-01-03"}
    one = make_settings(VLLM_DIGEST_HOME=str(tmp_path / "one"), **env)
    many = make_settings(VLLM_DIGEST_HOME=str(tmp_path / "many"), **env)
    hashes_one, counts_one = _build(one, batched=False)
    hashes_many, counts_many = _build(many, batched=True)
    assert hashes_one == hashes_many
    assert counts_one == counts_many
    assert all(counts_many[d]["core_comments"] > 100 for d in DAYS)


def test_rebuilding_a_subset_leaves_other_days(tmp_path, make_settings):
    generate(tmp_path / "root", dt.datetime(2026, 1, 3, 3, 39, tzinfo=dt.timezone.utc), 16)
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "root"), VLLM_DIGEST_START_DATE="2026-01-03")
    before, _ = _build(settings, batched=True)
    repo = settings.repos[0]
    with WarehouseResource(path=str(settings.warehouse_path)).connect() as con:
        for models in (STG_MODELS, CORE_MODELS, MART_MODELS):
            build_days(con, models, repo, [window_for_day(DAYS[1], settings)], settings.raw_dir)
    assert table_hashes(settings, ALL_MODELS) == before


def test_report_batch_reads_what_per_day_queries_read(tmp_path, make_settings):
    """A range run's report reads each mart once for all its days (queries.DayBatch); every day
    it slices out equals what that day's own queries return, 30-day histories included."""
    from vllm_digest.testing.pipeline import materialize
    from vllm_digest.report.day.data import gather
    from vllm_digest.report.day.queries import DayBatch
    from vllm_digest.core.taxonomy.loader import load_taxonomy

    generate(tmp_path / "root", dt.datetime(2026, 1, 3, 3, 39, tzinfo=dt.timezone.utc), 8)
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "root"), VLLM_DIGEST_START_DATE="2026-01-03")
    days = [f"2026-01-{d:02d}" for d in range(3, 11)]
    materialize(settings, days[0], days[-1])
    repo = settings.repos[0]
    with WarehouseResource(path=str(settings.warehouse_path)).connect(read_only=True) as con:
        picks = load_taxonomy().picks
        batch = DayBatch(con, repo.full_name, days[2:], picks)
        for day in days[2:]:
            alone = gather(repo.full_name, day, DayBatch(con, repo.full_name, [day], picks).day(day))
            assert gather(repo.full_name, day, batch.day(day)) == alone, day
            # not vacuous: the synthetic days have comments, hot threads, focus items and a history
            assert alone.comments and alone.hot and alone.focus and alone.topics
            assert [r["day"] for r in alone.count_history] == [d for d in days if d <= day]
        with pytest.raises(KeyError, match=days[0]):  # a day outside the batch must not read as empty
            batch.day(days[0])
