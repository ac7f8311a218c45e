"""Chat webhooks: a Feishu/Lark custom bot, a Slack incoming webhook, or a documented JSON body.

Untrusted text (titles, topic names) only ever goes into plain-text fields: Feishu ``text``
elements, Slack ``plain_text`` and ``rich_text`` text elements, JSON strings. None of them
parses markup, so a title cannot format, mention or link. Links are ours (configuration and
item numbers). The hook URL of Slack and Feishu is itself a credential: it is never logged;
errors and metadata show only its scheme and host.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
import time
from urllib.parse import urlsplit

import httpx

from vllm_digest.core.deadline import Deadline, DeadlineExceeded, RequestProgress, http_exchange
from vllm_digest.core.i18n import Catalog
from vllm_digest.delivery.digest import Change, DayDigest
# seconds one POST may take in all (delivery.deadline): connecting, sending and the whole answer
DEADLINE_SECONDS = 30.0
JSON_FORMAT = "vllm-digest.day/1"
SIGNATURE_HEADER = "X-Vllm-Digest-Signature"
# the same for every sending of the same message (repo, day, channel, content), so a receiver can drop
# a duplicate: a re-send after an unknown outcome, or a second run that lost its log row in a crash
IDEMPOTENCY_HEADER = "Idempotency-Key"


class DeliveryError(RuntimeError):
    """A channel refused or could not take a message; the text is safe to log."""


class DeliveryUnknown(DeliveryError):
    """The message went out in full and no answer came: it may or may not have arrived."""


@dataclasses.dataclass(frozen=True)
class WebhookRequest:
    url: str = dataclasses.field(repr=False)
    body: bytes
    headers: dict[str, str]

    def payload(self) -> dict:
        return json.loads(self.body)


def redact_url(url: str) -> str:
    """``scheme://host/…``: enough to tell which service, nothing of the path that holds the token."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}/…"


def feishu_sign(timestamp: int, secret: str) -> str:
    """Feishu's custom bot signature: HMAC-SHA256 keyed with ``"<timestamp>\\n<secret>"`` over an
    empty message, base64-encoded; the bot refuses a timestamp more than an hour off."""
    key = f"{timestamp}\n{secret}".encode("utf-8")
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode("ascii")


def _ref(c: Change, t: Catalog) -> str:
    """``PR #12`` / ``Issue #12``, as the report names an item."""
    return t("item.pr" if c.kind == "pr" else "item.issue", number=c.number)


def _feishu_post(d: DayDigest, lang: str, updated: bool) -> dict:
    t = d.catalogs[lang]
    rows: list[list[dict]] = [[{"tag": "text", "text": d.window_line(lang)}], [{"tag": "text", "text": d.counts_line(lang)}]]
    if not d.complete:
        rows.append([{"tag": "text", "text": t("delivery.incomplete")}])
    topics = ", ".join(d.topic_labels(lang)) or t("delivery.none")
    rows.append([{"tag": "text", "text": f"{t('delivery.topics')}: {topics}"}])
    rows.append([{"tag": "text", "text": f"{t('delivery.changes')}:" + ("" if d.changes else f" {t('delivery.none')}")}])
    for c in d.changes:
        rows.append([{"tag": "a", "text": _ref(c, t), "href": c.url}, {"tag": "text", "text": f" {c.title}"}])
    if lang in d.page_urls:
        rows.append([{"tag": "a", "text": t("delivery.read"), "href": d.page_urls[lang]}])
    return {"title": d.title(lang, updated), "content": rows}


def feishu_payload(d: DayDigest, languages: tuple[str, ...], updated: bool, secret: str | None, now: int) -> dict:
    body: dict = {}
    if secret:
        body.update(timestamp=str(now), sign=feishu_sign(now, secret))
    body["msg_type"] = "post"
    # one title and content per locale (the catalog's delivery.feishu_locale): the reader's client picks its own
    body["content"] = {"post": {d.catalogs[lang]("delivery.feishu_locale"): _feishu_post(d, lang, updated) for lang in languages}}
    return body


def _slack_escape(text: str) -> str:
    # the top-level text is mrkdwn: these three are its control characters
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _rich_list(title: str, items: list[list[dict]]) -> dict:
    elements: list[dict] = [{"type": "rich_text_section", "elements": [{"type": "text", "text": title, "style": {"bold": True}}]}]
    if items:
        elements.append({"type": "rich_text_list", "style": "bullet",
                         "elements": [{"type": "rich_text_section", "elements": i} for i in items]})
    return {"type": "rich_text", "elements": elements}


def slack_payload(d: DayDigest, lang: str, updated: bool) -> dict:
    t = d.catalogs[lang]
    header = d.header(lang, updated)
    blocks: list[dict] = [
        {"type": "header", "text": {"type": "plain_text", "text": header[:150]}},
        {"type": "context", "elements": [{"type": "plain_text", "text": d.window_line(lang)}]},
        {"type": "section", "fields": [
            {"type": "plain_text", "text": f"{d.count_label(lang, k)}: {v}"} for k, v in d.counts.items()
        ]},
    ]
    if d.day_headline(lang):
        # the day's top story, plain text like every title (cleaned when read)
        blocks.append({"type": "section", "text": {"type": "plain_text", "text": d.day_headline(lang)}})
    if not d.complete:
        blocks.append({"type": "section", "text": {"type": "plain_text", "text": t("delivery.incomplete")}})
    topics = [[{"type": "text", "text": label}] for label in d.topic_labels(lang)]
    blocks.append(_rich_list(t("delivery.topics") + ("" if topics else f": {t('delivery.none')}"), topics))
    changes = [
        [{"type": "link", "url": c.url, "text": _ref(c, t)}, {"type": "text", "text": f" {c.title}"}]
        for c in d.changes
    ]
    blocks.append(_rich_list(t("delivery.changes") + ("" if changes else f": {t('delivery.none')}"), changes))
    if lang in d.page_urls:
        blocks.append({"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": [
            {"type": "link", "url": d.page_urls[lang], "text": t("delivery.read")}]}]})
    # the notification's text, for clients that show no blocks
    return {"text": _slack_escape(f"{header}: {d.counts_line(lang)}"), "blocks": blocks}


def json_payload(d: DayDigest, lang: str, updated: bool, now: int) -> dict:
    """The documented JSON body (README, "Delivery"): the digest as data, in the first report language."""
    return {
        "format": JSON_FORMAT,
        "update": updated,
        "repo": d.repo,
        "day": d.day,
        "language": lang,
        "header": d.header(lang, updated),
        # the day's top story in one line ("" when the day told none)
        "headline": d.day_headline(lang),
        "window": {"start": d.start.isoformat(), "end": d.end.isoformat(), "timezone": d.timezone},
        "complete": d.complete,
        "counts": dict(d.counts),
        "topics": [{"name": t.label(lang), "count": t.count} for t in d.topics],
        "key_changes": [dataclasses.asdict(c) for c in d.changes],
        "url": d.page_urls.get(lang),
        "sent_at": now,
    }


def build_request(
    kind: str, url: str, secret: str | None, d: DayDigest, languages: tuple[str, ...], updated: bool,
    now: int | None = None, key: str | None = None,
) -> WebhookRequest:
    """The POST; ``key`` (the message's idempotency key) goes in the ``Idempotency-Key`` header."""
    now = int(time.time()) if now is None else now
    headers = {"Content-Type": "application/json; charset=utf-8"}
    if key:
        headers[IDEMPOTENCY_HEADER] = key
    if kind == "feishu":
        payload = feishu_payload(d, languages, updated, secret, now)
    elif kind == "slack":
        payload = slack_payload(d, languages[0], updated)
    elif kind == "json":
        payload = json_payload(d, languages[0], updated, now)
    else:
        raise ValueError(f"webhook kind {kind!r} is not one of feishu, slack, json")
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if kind == "json" and secret:
        # like GitHub's webhooks: the receiver recomputes it over the raw body
        headers[SIGNATURE_HEADER] = "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return WebhookRequest(url=url, body=body, headers=headers)


def _answer_text(body: bytes, url: str, where: str) -> str:
    return body.decode("utf-8", "replace")[:300].replace(url, where)


def post(kind: str, request: WebhookRequest, deadline: float = DEADLINE_SECONDS) -> None:
    """Send once. An answer but success, or a failure before the request went out, is a
    ``DeliveryError`` (the caller records it and retries next run); a request that went out and got
    no answer within ``deadline`` seconds in all is a ``DeliveryUnknown``."""
    where = redact_url(request.url)
    progress = RequestProgress()
    try:
        with httpx.Client(follow_redirects=False) as client:
            response, body = http_exchange(
                client, "POST", request.url, Deadline(deadline), operation_timeout=deadline, progress=progress,
                content=request.body, headers=request.headers,
            )
    except (DeadlineExceeded, httpx.HTTPError) as exc:
        why = (f"no answer within the {deadline:g}s delivery deadline (delivery.deadline, VLLM_DIGEST_DELIVERY_DEADLINE)"
               if isinstance(exc, (DeadlineExceeded, httpx.TimeoutException))
               else f"{type(exc).__name__}: {str(exc).replace(request.url, where)}")
        status = progress.status
        if status is not None and not 200 <= status < 300:
            raise DeliveryError(f"{kind} webhook {where} answered HTTP {status}, then {why}") from None
        if status is not None and kind != "feishu":
            return  # a success status is the answer (only Feishu's body says more): a slow rest changes nothing
        # the deadline passed with the worker still busy, now cancelled: a request that had begun to go
        # out may still finish (unknown), one that had not never will. Else the worker ended with an
        # error of its own, and the request went out in full or not.
        went_out = progress.headers_started if progress.cancelled else progress.body_sent
        if went_out:
            raise DeliveryUnknown(f"{kind} webhook {where}: the message went out, then {why}") from None
        raise DeliveryError(f"{kind} webhook {where}: {why}") from None
    text = _answer_text(body, request.url, where)
    if not 200 <= response.status_code < 300:
        raise DeliveryError(f"{kind} webhook {where} answered HTTP {response.status_code}: {text}")
    if kind == "feishu":
        # Feishu answers 200 with a non-zero code for a refused message (bad signature, keyword rules, ...)
        try:
            answer = json.loads(body)
        except ValueError:
            raise DeliveryError(f"feishu webhook {where} answered HTTP 200 with a body that is not JSON: {text}") from None
        code = answer.get("code", answer.get("StatusCode", 0)) if isinstance(answer, dict) else None
        if code != 0:
            raise DeliveryError(f"feishu webhook {where} refused the message: {text}")
