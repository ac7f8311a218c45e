"""The chat messages as a local receiver gets them: the day's header, the five counts, the top topics and
key changes and the page link, in Feishu's signed post, Slack's blocks and the documented JSON body.

The report is rendered once by the real graph; each test copies that data home and delivers from it.
"""

import base64
import hashlib
import hmac
import json
import time

import pytest

from tests.delivery_helpers import COUNTS, DAY, SITE_URL, copy_home, deliver_days, log_rows, render_days
from vllm_digest.delivery.webhook import SIGNATURE_HEADER
from vllm_digest.testing.webhook_receiver import WebhookReceiver

PAGE = "https://example.org/digest/reports/vllm-project/vllm/2026-03-22.{}.html"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    return render_days(tmp_path_factory.mktemp("rendered") / "home", DAY)


def day_json(settings) -> dict:
    return json.loads((settings.reports_dir / "vllm-project" / "vllm" / f"{DAY}.json").read_text(encoding="utf-8"))


def expected_feishu_sign(timestamp: str, secret: str) -> str:
    # Feishu's documented algorithm, written out here on its own: HMAC-SHA256 with the key
    # "<timestamp>\n<secret>" over an empty message, base64
    return base64.b64encode(hmac.new(f"{timestamp}\n{secret}".encode(), b"", hashlib.sha256).digest()).decode()


def texts(rows) -> list[str]:
    """A Feishu post's paragraphs as lines: each paragraph's elements' text joined."""
    return ["".join(e["text"] for e in row) for row in rows]


def test_feishu_post_is_signed_and_holds_the_day(rendered, tmp_path):
    with WebhookReceiver(default=(200, '{"code": 0, "msg": "success"}')) as rx:
        settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=rx.url(), VLLM_DIGEST_WEBHOOK_KIND="feishu",
                             VLLM_DIGEST_WEBHOOK_SECRET="feishu-secret-1", VLLM_DIGEST_SITE_URL=SITE_URL)
        before = int(time.time())
        run = deliver_days(settings, DAY)
        after = int(time.time())
    assert [a.outcome for a in run.attempts] == ["sent"]
    [request] = rx.requests
    assert request["path"] == "/hook/T0KEN-in-the-path"
    body = json.loads(request["body"])
    assert before <= int(body["timestamp"]) <= after
    assert body["sign"] == expected_feishu_sign(body["timestamp"], "feishu-secret-1")
    assert body["msg_type"] == "post" and set(body["content"]["post"]) == {"zh_cn", "en_us"}
    zh, en = body["content"]["post"]["zh_cn"], body["content"]["post"]["en_us"]
    # the header, then the day's top story
    assert zh["title"].startswith("vLLM 开发动态报告 - 2026-03-22 — ")
    assert en["title"].startswith("vLLM development digest - 2026-03-22 — ")
    lines = texts(zh["content"])
    assert lines[0] == "时间窗口: 2026-03-22 11:39 ~ 2026-03-23 11:39 (UTC+8)"
    assert lines[1] == "新 Issue 10 | 关闭 Issue 10 | 新 PR 48 | 合并 PR 21 | 关闭未合并 PR 15"
    assert texts(en["content"])[1] == (
        "new issues 10 | closed issues 10 | new PRs 48 | merged PRs 21 | PRs closed without merge 15"
    )
    # the top three topics and the first five key changes of the rendered day
    doc = day_json(settings)
    topics = ", ".join(f"{t['name']['zh']} ({t['count']})" for t in doc["topics"][:3])
    # 2026-03-22's first topic by rank is KV cache, with 13 items
    assert lines[2] == f"热门话题: {topics}" and topics.startswith("KV 缓存、前缀缓存与调度 (13)")
    changes = [row for row in zh["content"] if row[0]["tag"] == "a" and row[0]["text"] != "阅读全文"]
    assert [(row[0]["text"], row[0]["href"], row[1]["text"]) for row in changes] == [
        (f"PR #{c['number']}", f"https://github.com/vllm-project/vllm/pull/{c['number']}", f" {c['title']}")
        for c in doc["key_changes"][:5]
    ]
    assert len(changes) == 5
    assert zh["content"][-1] == [{"tag": "a", "text": "阅读全文", "href": PAGE.format("zh")}]
    assert en["content"][-1] == [{"tag": "a", "text": "Read the report", "href": PAGE.format("en")}]


def test_feishu_refusal_in_a_200_answer_is_a_failure(rendered, tmp_path):
    # Feishu answers a bad signature with HTTP 200 and a non-zero code
    refused = (200, '{"code": 19021, "msg": "sign match fail or timestamp is not within one hour from current time"}')
    with WebhookReceiver(default=refused) as rx:
        settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=rx.url(), VLLM_DIGEST_WEBHOOK_KIND="feishu")
        run = deliver_days(settings, DAY)
    [attempt] = run.attempts
    assert attempt.outcome == "failed" and "19021" in attempt.error
    # the hook URL's token never shows in the error
    assert "T0KEN" not in attempt.error and "http://127.0.0.1" in attempt.error
    assert "sign" not in json.loads(rx.requests[0]["body"])  # no secret: unsigned
    assert log_rows(settings) == [(DAY, "webhook:feishu", "failed", "new", 1, False)]


def test_slack_blocks_carry_untrusted_titles_as_plain_text(rendered, tmp_path):
    settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_SITE_URL=SITE_URL)
    # a hostile title, as GitHub could hand it to the report: Slack mentions, a mrkdwn link and emphasis
    path = settings.reports_dir / "vllm-project" / "vllm" / f"{DAY}.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    hostile = "<!channel> *urgent* <https://evil.example|click> & more"
    doc["key_changes"][0]["title"] = hostile
    path.write_text(json.dumps(doc), encoding="utf-8")
    with WebhookReceiver(default=(200, "ok")) as rx:
        slack = copy_home(settings.home, tmp_path / "slack", VLLM_DIGEST_WEBHOOK_URL=rx.url(), VLLM_DIGEST_WEBHOOK_KIND="slack",
                          VLLM_DIGEST_SITE_URL=SITE_URL, VLLM_DIGEST_LANGUAGES="en,zh")
        deliver_days(slack, DAY)
    [body] = rx.payloads()
    assert body["text"] == "vLLM development digest - 2026-03-22: " + (
        "new issues 10 | closed issues 10 | new PRs 48 | merged PRs 21 | PRs closed without merge 15"
    )
    blocks = body["blocks"]
    assert blocks[0] == {"type": "header", "text": {"type": "plain_text", "text": "vLLM development digest - 2026-03-22"}}
    assert [f["text"] for f in blocks[2]["fields"]] == [
        "new issues: 10", "closed issues: 10", "new PRs: 48", "merged PRs: 21", "PRs closed without merge: 15"
    ]
    # nothing is mrkdwn: a title cannot mention, link or format
    assert "mrkdwn" not in json.dumps(blocks)
    changes = next(b for b in blocks if b["type"] == "rich_text" and b["elements"][0]["elements"][0]["text"] == "Key changes")
    first = changes["elements"][1]["elements"][0]["elements"]
    assert first[0]["type"] == "link" and first[0]["url"].startswith("https://github.com/vllm-project/vllm/pull/")
    assert first[1] == {"type": "text", "text": f" {hostile}"}
    topics = next(b for b in blocks if b["type"] == "rich_text" and b["elements"][0]["elements"][0]["text"] == "Top topics")
    assert len(topics["elements"][1]["elements"]) == 3
    assert blocks[-1]["elements"][0]["elements"][0] == {"type": "link", "url": PAGE.format("en"), "text": "Read the report"}


def test_json_body_is_the_documented_one_and_signed(rendered, tmp_path):
    with WebhookReceiver() as rx:
        settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=rx.url(), VLLM_DIGEST_WEBHOOK_SECRET="json-secret",
                             VLLM_DIGEST_SITE_URL=SITE_URL)
        deliver_days(settings, DAY)
    [request] = rx.requests
    expected = "sha256=" + hmac.new(b"json-secret", request["body"], hashlib.sha256).hexdigest()
    assert request["headers"][SIGNATURE_HEADER] == expected
    body = json.loads(request["body"])
    assert set(body) == {"format", "update", "repo", "day", "language", "header", "headline", "window", "complete",
                         "counts", "topics", "key_changes", "url", "sent_at"}
    # the day's top story, as <day>.json holds it in the body's language
    assert body["headline"]
    assert (body["format"], body["update"], body["repo"], body["day"]) == ("vllm-digest.day/1", False, "vllm-project/vllm", DAY)
    assert body["counts"] == COUNTS
    assert body["window"] == {"start": "2026-03-22T11:39:00+08:00", "end": "2026-03-23T11:39:00+08:00", "timezone": "Asia/Shanghai"}
    doc = day_json(settings)
    assert body["topics"] == [{"name": t["name"]["zh"], "count": t["count"]} for t in doc["topics"][:3]]
    assert [c["number"] for c in body["key_changes"]] == [c["number"] for c in doc["key_changes"][:5]]
    assert body["url"] == PAGE.format("zh")
