"""Send each day to every configured channel once, by the delivery log.

For each (day, channel) the channel's content is hashed and compared with the log
(``log.plan``): never delivered means the first message, delivered with the same content means
nothing, delivered with other content means an "updated" message when updates are on. Each
outcome is recorded right after its attempt, so a crash later in the run does not send it
again. A failure (the message did not go out in full, or the server refused it) is recorded and
retried by the next run, whichever days that run covers. A message that went out with no answer
is ``unknown``: held by default (at most once), sent again with ``on_unknown = "resend"`` (at least
once), recorded as delivered with ``"accept"``. Every sending of one message carries the same
idempotency key, so a receiver can drop a duplicate.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
from typing import Callable, ContextManager

import duckdb

from vllm_digest.core.calendar import last_day, window_for_day
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.due import REPORT_GRACE_MINUTES, days_to_refresh
from vllm_digest.delivery import email as mail
from vllm_digest.delivery import webhook
from vllm_digest.delivery.digest import DayDigest, DigestInputError, content_hash, read_digest, report_folder
from vllm_digest.delivery.log import FAILED, NEW, SENT, UNKNOWN, UPDATED, LogRow, plan, read_log, record

Connect = Callable[[], ContextManager[duckdb.DuckDBPyConnection]]


def idempotency_key(repo: str, day: str, channel: str, digest_hash: str) -> str:
    """The same for every sending of the same message (repo, day, channel and content): a re-send
    after an unknown outcome carries the key of the first sending."""
    return hashlib.sha256(f"vllm-digest/1\n{repo}\n{day}\n{channel}\n{digest_hash}".encode()).hexdigest()


class WebhookChannel:
    def __init__(self, settings: Settings):
        config = settings.delivery
        self.kind, self.url, self.secret = config.webhook_kind, config.webhook_url, config.webhook_secret
        self.name = f"webhook:{self.kind}"
        self.deadline = config.deadline
        # Feishu carries every report language (its client shows the reader's); the others the first
        self.languages = settings.languages if self.kind == "feishu" else settings.languages[:1]

    def content_hash(self, d: DayDigest) -> str:
        return content_hash(self.name, self.languages, d.content())

    def request(self, d: DayDigest, updated: bool, key: str | None = None) -> webhook.WebhookRequest:
        return webhook.build_request(self.kind, self.url, self.secret, d, self.languages, updated, key=key)

    def send(self, d: DayDigest, updated: bool, key: str) -> None:
        webhook.post(self.kind, self.request(d, updated, key), self.deadline)

    def preview(self, d: DayDigest, updated: bool) -> str:
        payload = self.request(d, updated).payload()
        if "sign" in payload:
            payload["sign"] = "<signature>"
        return f"{self.name} to {webhook.redact_url(self.url)}: {json.dumps(payload, ensure_ascii=False)}"


class EmailChannel:
    name = "email"

    def __init__(self, settings: Settings):
        self.config = settings.delivery
        self.lang = settings.languages[0]

    def content_hash(self, d: DayDigest) -> str:
        pages = [d.md_paths[self.lang].read_text(encoding="utf-8"), d.html_paths[self.lang].read_text(encoding="utf-8")]
        return content_hash(self.name, self.lang, d.content(), pages)

    def send(self, d: DayDigest, updated: bool, key: str) -> None:
        mail.send(self.config, mail.build_message(self.config, d, self.lang, updated, key), self.config.deadline)

    def preview(self, d: DayDigest, updated: bool) -> str:
        message = mail.build_message(self.config, d, self.lang, updated)
        parts = ", ".join(f"{p.get_content_type()} {len(p.get_content())} chars" for p in message.iter_parts())
        return (f"email via {self.config.smtp_host}:{self.config.smtp_port} from {message['From']} to {message['To']}: "
                f"subject {message['Subject']!r}; {parts}")


def channels(settings: Settings) -> list:
    config = settings.delivery
    out: list = []
    if config.webhook_url:
        out.append(WebhookChannel(settings))
    if config.smtp_host:
        out.append(EmailChannel(settings))
    return out


@dataclasses.dataclass(frozen=True)
class Attempt:
    day: str
    channel: str
    message: str      # new or updated
    outcome: str      # sent, failed, unknown (went out, no answer), accepted (an unknown one recorded as sent) or dry_run
    error: str | None = None


@dataclasses.dataclass
class DeliveryRun:
    attempts: list[Attempt] = dataclasses.field(default_factory=list)
    unchanged: int = 0           # (day, channel) pairs already delivered with this content
    changed_not_sent: int = 0    # delivered, content changed since, updates off
    held_unknown: list[str] = dataclasses.field(default_factory=list)  # "<day> <channel>": unknown, not sent again
    retried_days: list[str] = dataclasses.field(default_factory=list)  # failed earlier days outside this run
    previews: list[str] = dataclasses.field(default_factory=list)      # a dry run's would-be messages

    def of(self, outcome: str) -> list[Attempt]:
        return [a for a in self.attempts if a.outcome == outcome]


def _owed(row: LogRow, on_unknown: str) -> bool:
    """Whether a logged (day, channel) is owed another sending: failed, or unknown and to be re-sent."""
    return row.status == FAILED or (row.unknown and on_unknown == "resend")


def _owed_days(settings: Settings, days: list[str], rows: dict[tuple[str, str], LogRow], names: set[str]) -> tuple[list[str], list[str]]:
    """This run's days, and the earlier failed (or, to be re-sent, unknown) days that the run retries."""
    since = settings.delivery.since
    keep = [d for d in days if since is None or dt.date.fromisoformat(d) >= since]
    retry = sorted({
        day for (day, channel), row in rows.items()
        if channel in names and _owed(row, settings.delivery.on_unknown) and day not in keep
        and (since is None or dt.date.fromisoformat(day) >= since)
    })
    return keep, retry


def deliver(settings: Settings, repo: RepoRef, days: list[str], connect: Connect,
            now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.timezone.utc)) -> DeliveryRun:
    """Deliver ``days`` of ``repo`` (and retry earlier failures) to every configured channel."""
    config = settings.delivery
    chans = channels(settings)
    run = DeliveryRun()
    if not chans:
        return run
    with connect() as con:
        rows = read_log(con, repo.full_name)
    names = {c.name for c in chans}
    run_days, run.retried_days = _owed_days(settings, days, rows, names)

    def save(previous, day, channel, digest_hash, message, error, status):
        if config.dry_run:
            return
        with connect() as con:
            rows[(day, channel)] = record(con, previous, repo.full_name, day, channel, digest_hash, message,
                                          error, status, now())

    if config.on_unknown == "accept":
        # the user saw these arrive: record them as delivered, whichever days this run covers
        for (day, channel), row in sorted(rows.items()):
            if channel in names and row.unknown and (config.since is None or dt.date.fromisoformat(day) >= config.since):
                run.attempts.append(Attempt(day, channel, row.message, "accepted"))
                save(row, day, channel, row.content_hash, row.message, None, SENT)

    # oldest first, retries included: a chat reads the days in order
    for day in sorted(run_days + run.retried_days):
        try:
            digest = read_digest(settings, repo, day)
        except DigestInputError as exc:
            for channel in chans:
                previous = rows.get((day, channel.name))
                if previous is not None and previous.unknown and config.on_unknown != "resend":
                    continue  # nothing would be sent: the held message stays as it is
                run.attempts.append(Attempt(day, channel.name, NEW, "failed", str(exc)))
                save(previous, day, channel.name, previous.content_hash if previous else "unreadable", NEW, str(exc), FAILED)
            continue
        if digest.failed_checks:
            # a day that fails its warehouse checks is not sent: a failure the next run retries, once the
            # day is fetched again and its checks pass
            why = f"not sent: the day failed its warehouse checks ({', '.join(digest.failed_checks)})"
            for channel in chans:
                previous = rows.get((day, channel.name))
                if previous is not None and (previous.delivered or (previous.unknown and config.on_unknown != "resend")):
                    continue  # what went out stays as it is; nothing new is sent for a failing day
                run.attempts.append(Attempt(day, channel.name, NEW, "failed", why))
                save(previous, day, channel.name, previous.content_hash if previous else "checks failed", NEW, why, FAILED)
            continue
        for channel in chans:
            previous = rows.get((day, channel.name))
            digest_hash = channel.content_hash(digest)
            what = plan(previous, digest_hash, config.updates, resend_unknown=config.on_unknown == "resend")
            if what is None:
                if previous is not None and previous.unknown and config.on_unknown != "resend":
                    run.held_unknown.append(f"{day} {channel.name}")
                    continue
                if previous is not None and _owed(previous, config.on_unknown):
                    # a failed update whose content went back to what was delivered, or updates turned off
                    # since: nothing is owed any more
                    save(previous, day, channel.name, previous.sent_hash, previous.message, None, SENT)
                if previous is not None and previous.sent_hash == digest_hash:
                    run.unchanged += 1
                else:
                    run.changed_not_sent += 1
                continue
            if config.dry_run:
                run.previews.append(f"{repo.full_name} {day} ({what}): {channel.preview(digest, what == UPDATED)}")
                run.attempts.append(Attempt(day, channel.name, what, "dry_run"))
                continue
            error, status = None, SENT
            try:
                channel.send(digest, what == UPDATED, idempotency_key(repo.full_name, day, channel.name, digest_hash))
            except mail.PartialDelivery as exc:
                error = str(exc)
            except webhook.DeliveryUnknown as exc:
                error, status = str(exc), UNKNOWN
            except webhook.DeliveryError as exc:
                error, status = str(exc), FAILED
            except Exception as exc:  # noqa: BLE001 - one channel's fault must not stop the others
                error, status = f"{type(exc).__name__}: {exc}"[:500], FAILED
            save(previous, day, channel.name, digest_hash, what, error, status)
            run.attempts.append(Attempt(day, channel.name, what, status, error))
    return run


@dataclasses.dataclass(frozen=True)
class OverdueReport:
    overdue: list[str]   # "<day> <channel>: why", past the deadline
    pending: list[str]   # failed, to be retried, deadline not passed yet
    unknown: list[str] = dataclasses.field(default_factory=list)  # went out, no answer, held: did it arrive?

    @property
    def passed(self) -> bool:
        return not self.overdue and not self.pending and not self.unknown


def deadline(settings: Settings, day: str) -> dt.datetime:
    """When a day's delivery is due: the report's own deadline (its freshness policy), i.e. the day's
    window end + the schedule lag + the report grace; the delivery runs in the same run as the report."""
    return window_for_day(day, settings).end + dt.timedelta(minutes=settings.schedule_lag_minutes + REPORT_GRACE_MINUTES)


def overdue(settings: Settings, repo: RepoRef, rows: dict[tuple[str, str], LogRow], now: dt.datetime) -> OverdueReport:
    """Which (day, channel) deliveries are owed: every logged one not delivered (a failure waiting for its
    retry), and every day of the daily schedule's current range (the last closed day and the late days
    before it) whose report is rendered but which no channel log row shows delivered. Owed past
    ``deadline`` is overdue; owed before it, pending. A message that went out without an answer and is
    held (``on_unknown = "hold"``) is owed nothing but listed in ``unknown``: did it arrive? The user
    answers with one run of ``on_unknown = "resend"`` or ``"accept"``."""
    names = [c.name for c in channels(settings)]
    since = settings.delivery.since
    owed: dict[tuple[str, str], str] = {}
    held: list[str] = []
    for (day, channel), row in sorted(rows.items()):
        if channel not in names or row.delivered or (since is not None and dt.date.fromisoformat(day) < since):
            continue
        if _owed(row, settings.delivery.on_unknown):
            owed[(day, channel)] = f"{row.message} message {'got no answer' if row.unknown else 'failed'} {row.attempts}x: {row.error}"
        elif row.unknown:
            held.append(f"{day} {channel}: {row.message} message went out, no answer, not sent again: {row.error}")
    last = last_day(settings)
    folder = report_folder(settings, repo)
    for day in days_to_refresh(settings, now):
        if (last is None or dt.date.fromisoformat(day) <= last) and (folder / f"{day}.json").is_file():
            for channel in names:
                if (day, channel) not in rows:
                    owed[(day, channel)] = "rendered but never sent"
    report = OverdueReport([], [], held)
    for (day, channel), why in sorted(owed.items()):
        if since is not None and dt.date.fromisoformat(day) < since:
            continue
        (report.overdue if deadline(settings, day) <= now else report.pending).append(f"{day} {channel}: {why}")
    return report
