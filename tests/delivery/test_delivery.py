"""Delivery end to end: the issue's own check through the real definitions, exactly once across re-runs,
"updated" messages only when asked for, a retry after a 500 shown in the metadata and the overdue check,
a dry run that sends and records nothing, and no secret on disk."""

import datetime as dt
import json
import re
import ssl

import dagster as dg
import pytest

from vllm_digest.testing.pipeline import materialize, settings_at
from tests.delivery_helpers import (
    COUNTS, DAY, EARLIER, SITE_URL, SmtpServer, bare_remote, copy_home, deliver_days, git, log_rows, render_days,
    self_signed_cert,
)
from tests.storage_scan import files_holding
from vllm_digest.core.sqlmodel.state import StateResource
from vllm_digest.definitions import build_definitions
from vllm_digest.delivery.deliver import deadline, overdue
from vllm_digest.delivery.log import read_log
from vllm_digest.testing.webhook_receiver import WebhookReceiver


DELIVERY = dg.AssetKey(["vllm_project", "vllm", "daily_delivery"])


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    return render_days(tmp_path_factory.mktemp("rendered") / "home", DAY)


def delivery_metadata(result) -> dict:
    [event] = [e for e in result.get_asset_materialization_events() if e.asset_key == DELIVERY]
    return {k: v.value for k, v in event.materialization.metadata.items()}


def check_result(result):
    [evaluation] = [e for e in result.get_asset_check_evaluations() if e.check_name == "delivery_not_overdue"]
    return evaluation


def test_issue_check_twice_gives_the_branch_and_one_delivery(tmp_path):
    """The issue's check: a file:// bare remote and a local JSON receiver, the day materialized twice."""
    remote = bare_remote(tmp_path / "pages.git")
    with WebhookReceiver() as rx:
        settings = settings_at(tmp_path / "home", VLLM_DIGEST_PUBLISH_REMOTE=f"file://{remote}",
                               VLLM_DIGEST_WEBHOOK_URL=rx.url(), VLLM_DIGEST_WEBHOOK_KIND="json")
        materialize(settings, DAY)
        second = materialize(settings, DAY)
    # gh-pages: its index.html links that day's pages, which are on the branch
    files = set(git(remote, "ls-tree", "-r", "--name-only", "gh-pages").splitlines())
    index = git(remote, "show", "gh-pages:index.html")
    assert '<base href="site/">' in index
    links = [h for h in re.findall(r'href="([^"#]+)"', index) if DAY in h]
    assert links and all(h.startswith("../reports/") and h.removeprefix("../") in files for h in links)
    assert len(git(remote, "rev-list", "gh-pages").splitlines()) == 1
    # exactly one delivery, naming the day and its five counts
    [body] = rx.payloads()
    assert (body["day"], body["counts"]) == (DAY, COUNTS)
    assert delivery_metadata(second)["already_delivered"] == 1 and delivery_metadata(second)["sent"] == 0
    assert check_result(second).passed


def test_one_delivery_per_day_and_updates_only_when_asked(rendered, tmp_path):
    with WebhookReceiver() as rx:
        settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=rx.url())
        assert [a.outcome for a in deliver_days(settings, DAY).attempts] == ["sent"]
        again = deliver_days(settings, DAY)
        assert (again.attempts, again.unchanged, len(rx.requests)) == ([], 1, 1)
        # the report changes (a late merge re-rendered the day)
        path = settings.reports_dir / "vllm-project" / "vllm" / f"{DAY}.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["counts"]["merged_prs"] += 1
        path.write_text(json.dumps(doc), encoding="utf-8")
        quiet = deliver_days(settings, DAY)
        assert (quiet.attempts, quiet.changed_not_sent, len(rx.requests)) == ([], 1, 1)
        updates = settings_at(settings.home, VLLM_DIGEST_WEBHOOK_URL=rx.url(), VLLM_DIGEST_DELIVERY_UPDATES="true")
        assert [(a.message, a.outcome) for a in deliver_days(updates, DAY).attempts] == [("updated", "sent")]
        assert deliver_days(updates, DAY).attempts == []
    first, update = rx.payloads()
    assert (first["update"], first["counts"]["merged_prs"]) == (False, 21)
    assert (update["update"], update["counts"]["merged_prs"]) == (True, 22)
    assert update["header"] == "vLLM 开发动态报告 - 2026-03-22（更新）"
    assert [r[:4] for r in log_rows(settings)] == [(DAY, "webhook:json", "sent", "updated")]


def test_days_before_since_are_not_sent(rendered, tmp_path):
    with WebhookReceiver() as rx:
        settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=rx.url(), VLLM_DIGEST_DELIVERY_SINCE="2026-03-23")
        assert deliver_days(settings, DAY).attempts == []
    assert rx.requests == [] and log_rows(settings) == []


def test_retry_after_a_500_shows_in_metadata_and_the_check(tmp_path):
    with WebhookReceiver(answers=[(500, '{"error": "down for maintenance"}')]) as rx:
        settings = settings_at(tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=rx.url())
        failed = materialize(settings, DAY)
        meta = delivery_metadata(failed)
        assert (meta["sent"], meta["failed"]) == (0, 1)
        assert "HTTP 500" in meta["attempts"] and "down for maintenance" in meta["attempts"]
        assert "T0KEN" not in meta["attempts"]
        # the day closed long ago: its failed delivery is overdue
        check = check_result(failed)
        assert not check.passed and check.severity == dg.AssetCheckSeverity.ERROR
        assert f"{DAY} webhook:json: new message failed 1x" in check.description
        # the next run covers another day, and retries the failed one too, days in order
        retried = materialize(settings, EARLIER)
    assert [(p["day"], p["update"]) for p in rx.payloads()] == [(DAY, False), (EARLIER, False), (DAY, False)]
    meta = delivery_metadata(retried)
    assert (meta["sent"], meta["failed"], meta["retried_days"]) == (2, 0, DAY)
    assert check_result(retried).passed
    assert log_rows(settings) == [(EARLIER, "webhook:json", "sent", "new", 0, True), (DAY, "webhook:json", "sent", "new", 0, True)]


def test_overdue_only_after_the_deadline(rendered, tmp_path):
    settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL="http://127.0.0.1:9/unused")
    due = deadline(settings, DAY)
    # 11:39 (UTC+8) window end + 10 min lag + 60 min grace
    assert due == dt.datetime(2026, 3, 23, 12, 49, tzinfo=dt.timezone(dt.timedelta(hours=8)))
    with StateResource(path=str(settings.state_path)).connect() as con:
        rows = read_log(con, "vllm-project/vllm")
    # rendered, never sent: owed once the daily schedule covers it, overdue once past its deadline
    before = overdue(settings, settings.repos[0], rows, due - dt.timedelta(minutes=1))
    after = overdue(settings, settings.repos[0], rows, due)
    assert (before.overdue, before.pending) == ([], [f"{DAY} webhook:json: rendered but never sent"])
    assert (after.overdue, after.pending) == ([f"{DAY} webhook:json: rendered but never sent"], [])
    deliver_days(settings, DAY)  # fails: nothing listens on port 9
    with StateResource(path=str(settings.state_path)).connect() as con:
        rows = read_log(con, "vllm-project/vllm")
    late = overdue(settings, settings.repos[0], rows, due + dt.timedelta(days=30))
    assert len(late.overdue) == 1 and late.overdue[0].startswith(f"{DAY} webhook:json: new message failed 1x: ")


def test_dry_run_sends_publishes_and_records_nothing(tmp_path):
    remote = bare_remote(tmp_path / "pages.git")
    instance = dg.DagsterInstance.ephemeral()
    with WebhookReceiver() as rx:
        settings = settings_at(tmp_path / "home", VLLM_DIGEST_PUBLISH_REMOTE=f"file://{remote}", VLLM_DIGEST_WEBHOOK_URL=rx.url(),
                               VLLM_DIGEST_WEBHOOK_KIND="feishu", VLLM_DIGEST_WEBHOOK_SECRET="dry-secret",
                               VLLM_DIGEST_DELIVERY_DRY_RUN="1")
        result = materialize(settings, DAY, instance=instance)
    assert rx.requests == [] and log_rows(settings) == []
    assert git(remote, "rev-parse", "--verify", "--quiet", "refs/heads/gh-pages", check=False) == ""
    logs = [e.user_message for e in instance.all_logs(result.run_id)]
    [preview] = [m for m in logs if m.startswith("dry run, would send: ")]
    assert f"vllm-project/vllm {DAY} (new): webhook:feishu to http://127.0.0.1:{rx.port}/…" in preview
    assert '"title": "vLLM 开发动态报告 - 2026-03-22 — ' in preview and '"sign": "<signature>"' in preview
    assert "dry-secret" not in preview and "T0KEN" not in preview
    assert any(m.startswith("dry run: would commit ") and "site/index.html" in m for m in logs)
    assert delivery_metadata(result)["dry_run"] is True and check_result(result).passed


def test_no_secret_lands_on_disk(tmp_path, monkeypatch):
    cert, key = self_signed_cert(tmp_path)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    secrets = {"VLLM_DIGEST_PUBLISH_TOKEN": "pubTOKEN-4f1c9", "VLLM_DIGEST_WEBHOOK_SECRET": "hookSECRET-77ad",
               "VLLM_DIGEST_SMTP_PASSWORD": "mailPASSWORD-0b3e"}
    remote = bare_remote(tmp_path / "pages.git")
    (tmp_path / "dagster_home").mkdir()
    with (WebhookReceiver(answers=[(500, "no")]) as rx, SmtpServer(tls_context=tls, user="bot", password=secrets["VLLM_DIGEST_SMTP_PASSWORD"]) as smtp,
          dg.instance_for_test(temp_dir=str(tmp_path / "dagster_home")) as instance):
        settings = settings_at(
            tmp_path / "home", **secrets, VLLM_DIGEST_PUBLISH_REMOTE=f"file://{remote}", VLLM_DIGEST_WEBHOOK_URL=rx.url(),
            VLLM_DIGEST_SMTP_HOST="127.0.0.1", VLLM_DIGEST_SMTP_PORT=str(smtp.port), VLLM_DIGEST_SMTP_USER="bot",
            VLLM_DIGEST_SMTP_FROM="d@example.org", VLLM_DIGEST_SMTP_TO="r@example.org", VLLM_DIGEST_SITE_URL=SITE_URL,
        )
        materialize(settings, DAY, instance=instance)   # the webhook fails once: its error is logged
        materialize(settings, DAY, instance=instance)   # and is retried
    assert len(rx.requests) == 2 and len(smtp.messages) == 1 and smtp.messages[0]["authenticated"]
    for secret in [*secrets.values(), "T0KEN-in-the-path"]:
        found, scanned = files_holding(secret, (tmp_path / "home", remote, tmp_path / "dagster_home"))
        assert found == [] and scanned > 50, (secret, found)


def test_graph_of_a_configured_project(make_settings):
    graph = build_definitions(make_settings(
        VLLM_DIGEST_REPOS="vllm-project/vllm,sgl-project/sglang", VLLM_DIGEST_PUBLISH_REMOTE="file:///srv/pages.git",
        VLLM_DIGEST_WEBHOOK_URL="https://hooks.slack.invalid/x", VLLM_DIGEST_WEBHOOK_KIND="slack",
    )).resolve_asset_graph()
    published = graph.get(dg.AssetKey(["published_site"]))
    assert set(published.parent_keys) == {dg.AssetKey(["site"])} and published.group_name == "delivery"
    for prefix in (["vllm_project", "vllm"], ["sgl_project", "sglang"]):
        node = graph.get(dg.AssetKey([*prefix, "daily_delivery"]))
        assert set(node.parent_keys) == {dg.AssetKey([*prefix, "daily_report"]), dg.AssetKey(["published_site"])}
        assert node.partitions_def is not None and node.backfill_policy == dg.BackfillPolicy.single_run()
        assert dg.AssetCheckKey(node.key, "delivery_not_overdue") in graph.asset_check_keys
    # nothing configured: the graph has no delivery asset at all
    plain = build_definitions(make_settings()).resolve_asset_graph()
    assert not [k for k in plain.get_all_asset_keys() if k.path[-1] in ("published_site", "daily_delivery")]
