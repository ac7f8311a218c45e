"""A day whose warehouse checks fail says so in its report and is not sent to chat or e-mail; once the
day is fetched again and its checks pass, the next run sends it (issue 30, item 6)."""

from __future__ import annotations

import dagster as dg

from vllm_digest.testing.pipeline import materialize, settings_at
from tests.delivery_helpers import DAY, log_rows
from vllm_digest.core.calendar import window_for_day
from vllm_digest.definitions import build_definitions
from vllm_digest.ingest.raw_store import write_day
from vllm_digest.ingest.sample import fetch_sample_day
from vllm_digest.orchestration.jobs import daily_selection
from vllm_digest.testing.webhook_receiver import WebhookReceiver


RAW = dg.AssetKey(["vllm_project", "vllm", "raw_activity"])


def _rebuild_without_fetching(settings):
    """Every daily asset but the raw landing: the warehouse, report and delivery rebuilt from the landing."""
    defs = build_definitions(settings)
    result = dg.materialize(
        [*defs.assets, *defs.asset_checks], resources=defs.resources, instance=dg.DagsterInstance.ephemeral(),
        selection=daily_selection() - dg.AssetSelection.assets(RAW), partition_key=DAY,
    )
    assert result.success  # the checks report; the report and delivery still run
    return result


def test_a_day_failing_its_checks_is_reported_and_held_until_they_pass(tmp_path):
    with WebhookReceiver() as rx:
        settings = settings_at(tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=rx.url(), VLLM_DIGEST_WEBHOOK_KIND="json")
        # the day landed with a total its lists cannot meet: the source said one more PR was merged
        repo = settings.repos[0]
        payload = fetch_sample_day(repo, window_for_day(DAY, settings), settings.sample_dir)
        payload.manifest.totals = {"merged_prs": {"count": 22}}
        write_day(settings.raw_dir, repo, DAY, payload)
        _rebuild_without_fetching(settings)

        assert rx.payloads() == []
        [(day, channel, status, message, attempts, no_error)] = log_rows(settings)
        assert (day, status, attempts, no_error) == (DAY, "failed", 1, False)
        reports = settings.home / "reports" / "vllm-project" / "vllm"
        zh = (reports / f"{DAY}.zh.md").read_text(encoding="utf-8")
        en = (reports / f"{DAY}.en.md").read_text(encoding="utf-8")
        assert "> ⚠️ 本日数据未通过校验，因此不推送到群聊或邮件: 列表与 GitHub 给出的总数不符" in zh
        assert ("> ⚠️ This day failed its data checks, so it is not sent to chat or e-mail: "
                "a list disagrees with GitHub's own total") in en
        assert "This day failed its data checks" in (reports / f"{DAY}.en.html").read_text(encoding="utf-8")

        # fetched again, the day passes its checks: the held day is sent, once, and its warning is gone
        materialize(settings, DAY)
        [body] = rx.payloads()
        assert body["day"] == DAY
        assert [r[2] for r in log_rows(settings)] == ["sent"]
        assert "This day failed its data checks" not in (reports / f"{DAY}.en.md").read_text(encoding="utf-8")


def test_a_passing_day_carries_no_failed_checks(tmp_path):
    settings = settings_at(tmp_path / "home")
    materialize(settings, DAY)
    text = (settings.home / "reports" / "vllm-project" / "vllm" / f"{DAY}.json").read_text(encoding="utf-8")
    assert '"failed_checks": []' in text
