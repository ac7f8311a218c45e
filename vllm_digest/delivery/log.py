"""The delivery log: per (repo, day, channel), what was last sent and how the last attempt went.

It is what makes delivery exactly-once: a channel is sent a day's message only when the log
holds no delivery of that content (``plan``), and each outcome replaces the row inside one
transaction (delete then insert), so a crash leaves the previous row, never half of one.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

import duckdb

from vllm_digest.warehouse.sql_files import bind, read_sql

SENT, FAILED = "sent", "failed"
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


def plan(row: LogRow | None, content_hash: str, updates: bool) -> str | None:
    """What to send a channel for a day whose content hashes to ``content_hash``: ``"new"``,
    ``"updated"`` or nothing (None).

    Never delivered (no row, or only failed attempts): the first message. Delivered with this
    content: nothing. Delivered with other content: an update when updates are on, else nothing.
    """
    if row is None or row.sent_hash is None:
        return NEW
    if row.sent_hash == content_hash:
        return None
    return UPDATED if updates else None


def record(
    con: duckdb.DuckDBPyConnection, previous: LogRow | None, repo: str, day: str, channel: str,
    content_hash: str, message: str, error: str | None, delivered: bool, now: dt.datetime,
) -> LogRow:
    """Replace the (repo, day, channel) row with this attempt's outcome, in one transaction.

    ``delivered`` with an ``error`` is a partial delivery (some e-mail recipients refused): it
    counts as sent, so nobody who got it gets it twice, and the error stays visible."""
    if delivered:
        row = LogRow(repo, day, channel, content_hash, content_hash, SENT, message, 0, error,
                     previous.first_sent_at if previous and previous.first_sent_at else now, now)
    else:
        row = LogRow(repo, day, channel, content_hash, previous.sent_hash if previous else None, FAILED, message,
                     (previous.attempts if previous and previous.status == FAILED else 0) + 1, error,
                     previous.first_sent_at if previous else None, now)
    values = dataclasses.asdict(row)
    delete, insert = read_sql("delivery_log_delete"), read_sql("delivery_log_insert")
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(delete, bind(delete, values))
        con.execute(insert, bind(insert, values))
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return row
