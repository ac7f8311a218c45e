"""The delivery log: per (repo, day, channel), what was last sent and how the last attempt went.

A channel is sent a day's message only when the log holds no delivery of that content (``plan``),
and each outcome replaces the row inside one transaction (delete then insert), so a crash leaves
the previous row, never half of one. An attempt ends ``sent``, ``failed`` (the message did not go
out in full, or the server said no: safe to send again) or ``unknown`` (it went out and no answer
came: it may have arrived). An unknown message is held by default, so no one gets it twice unasked
(at most once); ``on_unknown = "resend"`` sends it again (at least once), ``"accept"`` records it as
delivered.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

import duckdb

from vllm_digest.core.sqlmodel.files import bind, read_sql
from vllm_digest.core.sqlmodel.transaction import transaction

SENT, FAILED, UNKNOWN = "sent", "failed", "unknown"
NEW, UPDATED = "new", "updated"


@dataclasses.dataclass(frozen=True)
class LogRow:
    repo: str
    day: str
    channel: str
    content_hash: str
    sent_hash: str | None
    status: str
    message: str
    attempts: int
    error: str | None
    first_sent_at: dt.datetime | None
    attempted_at: dt.datetime

    @property
    def delivered(self) -> bool:
        """The day's current content reached the channel: nothing is owed."""
        return self.status == SENT and self.sent_hash is not None

    @property
    def unknown(self) -> bool:
        """The last attempt went out and got no answer: its content (``content_hash``) may have arrived."""
        return self.status == UNKNOWN


def read_log(con: duckdb.DuckDBPyConnection, repo: str) -> dict[tuple[str, str], LogRow]:
    """(day, channel) -> its row, for one repository."""
    sql = read_sql("delivery_log_rows")
    cursor = con.execute(sql, bind(sql, {"repo": repo}))
    names = [c[0] for c in cursor.description]
    out = {}
    for values in cursor.fetchall():
        row = dict(zip(names, values))
        row["day"] = row["day"].isoformat()
        out[(row["day"], row["channel"])] = LogRow(**row)
    return out


def plan(row: LogRow | None, content_hash: str, updates: bool, resend_unknown: bool = False) -> str | None:
    """What to send a channel for a day whose content hashes to ``content_hash``: ``"new"``,
    ``"updated"`` or nothing (None).

    Never delivered (no row, or only failed attempts): the first message. Delivered with this
    content: nothing. Delivered with other content: an update when updates are on, else nothing.
    An unknown outcome counts as delivered (its content may have arrived) unless ``resend_unknown``,
    which counts it as failed.
    """
    if row is None:
        return NEW
    if row.unknown and not resend_unknown:
        if row.content_hash == content_hash:
            return None
        return UPDATED if updates else None
    if row.sent_hash is None:
        return NEW
    if row.sent_hash == content_hash:
        return None
    return UPDATED if updates else None


def record(
    con: duckdb.DuckDBPyConnection, previous: LogRow | None, repo: str, day: str, channel: str,
    content_hash: str, message: str, error: str | None, status: str, now: dt.datetime,
) -> LogRow:
    """Replace the (repo, day, channel) row with this attempt's outcome (``status``), in one transaction.

    ``sent`` with an ``error`` is a partial delivery (some e-mail recipients refused): it counts as
    sent, so nobody who got it gets it twice, and the error stays visible. ``failed`` and ``unknown``
    keep the last delivered content (``sent_hash``) and count the attempts since it."""
    if status == SENT:
        row = LogRow(repo, day, channel, content_hash, content_hash, SENT, message, 0, error,
                     previous.first_sent_at if previous and previous.first_sent_at else now, now)
    elif status in (FAILED, UNKNOWN):
        row = LogRow(repo, day, channel, content_hash, previous.sent_hash if previous else None, status, message,
                     (previous.attempts if previous and previous.status != SENT else 0) + 1, error,
                     previous.first_sent_at if previous else None, now)
    else:
        raise ValueError(f"delivery status {status!r} is not one of {SENT}, {FAILED}, {UNKNOWN}")
    values = dataclasses.asdict(row)
    delete, insert = read_sql("delivery_log_delete"), read_sql("delivery_log_insert")
    with transaction(con):
        con.execute(delete, bind(delete, values))
        con.execute(insert, bind(insert, values))
    return row
