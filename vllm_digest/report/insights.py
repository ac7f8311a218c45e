"""Read what the seven sections and the charts need, for one (repo, day) or a batch of days.

Every ranking, topic and focus decision was already made by the marts
(`sql/mart_*.sql`, with their formulas); this module only reads them, by the
columns `sql/schema_analytics.sql` declares, so the report cannot drift from
the tables an analyst inspects.

Every value returned is raw warehouse text; sections.py makes it safe.
"""

from __future__ import annotations

import datetime as dt
from typing import Sequence

import duckdb

HISTORY_DAYS = 30
HOT_LIMIT, TOPIC_LIMIT, RANKED_LIMIT, PARTS_LIMIT = 3, 5, 5, 5
TOPIC_NUMBERS = 8  # items listed under a topic
# mart_item_hotness: the stored parts of each score, in the order a chart stacks them
HOTNESS_PARTS = (
    "comments_points", "participants_points", "reviews_points",
    "reactions_points", "opened_points", "closed_points",
)
DAY = "WHERE repo = $repo AND day = CAST($day AS DATE)"
# a batch reads every day of a range run with one statement per query: per-day statements cost
# ~2-5 ms each (17 a day), most of a year-long run's report step
DAYS = "WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))"
# the days a history query covers: every batch day's HISTORY_DAYS-day window
HISTORY = (
    "WHERE repo = $repo AND day <= CAST($last AS DATE) "
    f"AND day > CAST($first AS DATE) - INTERVAL {HISTORY_DAYS} DAY"
)


def rows(con: duckdb.DuckDBPyConnection, sql: str, params: dict | None = None) -> list[dict]:
    cur = con.execute(sql, params or {})
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def _per_day(found: list[dict], keep_day: bool = False) -> dict[str, list[dict]]:
    """Rows of a query whose ``day`` column is its grouping key, grouped by day in query order."""
    out: dict[str, list[dict]] = {}
    for r in found:
        key = r["day"].isoformat()
        if not keep_day:
            r = {k: v for k, v in r.items() if k != "day"}
        out.setdefault(key, []).append(r)
    return out


# the topics a day lists: its TOPIC_LIMIT largest, ties by id (the topics query and its members' query)
LISTED_TOPICS = (
    f"FROM mart_topic_daily {DAYS} AND items > 0 "
    f"QUALIFY row_number() OVER (PARTITION BY day ORDER BY items DESC, topic_id) <= {TOPIC_LIMIT}"
)

# name -> (SQL reading every batch day, whether its rows keep their `day` column). Each is ordered by
# day first and then as the per-day report needs; a per-day LIMIT is a QUALIFY over the day.
QUERIES = {
    # the report's header and appendix (report/context.py)
    "daily_counts": (f"SELECT * FROM mart_daily_counts {DAYS} ORDER BY day", True),
    "manifest": (
        f"SELECT day, source, semantics, complete, incomplete_reasons FROM stg_fetch_manifest {DAYS} ORDER BY day",
        False,
    ),
    # newest first; ties broken by the larger number so the order is total
    "members": (f"SELECT * FROM mart_five_sets {DAYS} ORDER BY day, set_name, occurred_at DESC, number DESC", True),
    # the sections
    "items": (
        "SELECT day, number, kind, title, body, state, author_login, author_is_bot, labels, "
        "comments_total, additions, deletions, changed_files, draft, created_at, merged_at, closed_at "
        f"FROM core_items {DAYS} ORDER BY day, number",
        False,
    ),
    "comments": (
        "SELECT day, number, comment_kind, author_login, author_is_bot, created_at, body FROM core_comments "
        f"{DAYS} ORDER BY day, number, created_at, comment_key",
        False,
    ),
    # the #N that the day's titles and bodies cite and that are items of this repository the warehouse
    # holds: only these may be cited as an item's related items (report/facts.py); a number written in
    # someone's title is not a fact until it resolves to a real item
    "known_refs": (
        "WITH cited AS (SELECT DISTINCT i.day, TRY_CAST(t.ref AS BIGINT) AS number "
        f"FROM (SELECT day, title, body FROM core_items {DAYS}) AS i, "
        r"unnest(regexp_extract_all(coalesce(i.title, '') || ' ' || coalesce(i.body, ''), '#(\d+)\b', 1)) AS t(ref)) "
        "SELECT day, number FROM cited "
        "WHERE number IN (SELECT number FROM core_items WHERE repo = $repo) ORDER BY day, number",
        False,
    ),
    "focus": (
        "SELECT day, number, theme_id, theme_zh, theme_en, is_vendor_employee FROM mart_focus_items "
        f"{DAYS} ORDER BY day, theme_id, number DESC",
        False,
    ),
    # the hot list is the first HOT_LIMIT of these: same filter, same order
    "hotness": (
        f"SELECT day, number, hotness, {', '.join(HOTNESS_PARTS)} FROM mart_item_hotness {DAYS} AND hotness > 0 "
        f"QUALIFY row_number() OVER (PARTITION BY day ORDER BY hotness_rank, number DESC) <= {max(PARTS_LIMIT, HOT_LIMIT)} "
        "ORDER BY day, hotness_rank, number DESC",
        False,
    ),
    "topics": (
        "SELECT day, topic_id, topic_zh, topic_en, items, items_ratio, rising, trend_status, baseline_days, "
        f"baseline_window {LISTED_TOPICS} "
        "ORDER BY day, items DESC, topic_id",
        False,
    ),
    # the first TOPIC_NUMBERS members of each listed topic (a year holds ~600,000 memberships)
    "topic_members": (
        f"WITH listed AS (SELECT day, topic_id {LISTED_TOPICS}), "
        f"members AS (SELECT DISTINCT day, topic_id, number FROM mart_item_topics {DAYS}) "
        "SELECT day, topic_id, number FROM members JOIN listed USING (day, topic_id) "
        f"QUALIFY row_number() OVER (PARTITION BY day, topic_id ORDER BY number DESC) <= {TOPIC_NUMBERS} "
        "ORDER BY day, topic_id, number DESC",
        False,
    ),
    "key_changes": (
        f"SELECT day, number, change_status, topics FROM mart_key_changes {DAYS} "
        f"QUALIFY row_number() OVER (PARTITION BY day ORDER BY key_rank, number DESC) <= {RANKED_LIMIT} "
        "ORDER BY day, key_rank, number DESC",
        False,
    ),
    "notable": (
        f"SELECT day, number, topics, risk_topics FROM mart_notable_issues {DAYS} "
        f"QUALIFY row_number() OVER (PARTITION BY day ORDER BY notable_rank, number DESC) <= {RANKED_LIMIT} "
        "ORDER BY day, notable_rank, number DESC",
        False,
    ),
    "people": (
        "SELECT day, count(*) FILTER (WHERE NOT coalesce(is_bot, false)) AS humans, "
        "coalesce(sum(reviews), 0) AS reviews, coalesce(sum(comments), 0) AS comments "
        f"FROM core_people {DAYS} GROUP BY day ORDER BY day",
        False,
    ),
    "activity_daily": (f"SELECT * FROM mart_activity_daily {DAYS} ORDER BY day", True),
}
# history queries: every day of the batch's 30-day windows, sliced per day in Python
HISTORY_QUERIES = {
    "topic_history": f"SELECT day, topic_id, items FROM mart_topic_daily {HISTORY} ORDER BY day",
    "count_history": (
        "SELECT day, new_issues, closed_issues, new_prs, merged_prs, closed_unmerged_prs "
        f"FROM mart_daily_counts {HISTORY} ORDER BY day"
    ),
}


class DayBatch:
    """Every query the report reads, run once for a set of days; ``day(d)`` slices out one day."""

    def __init__(self, con: duckdb.DuckDBPyConnection, repo: str, days: Sequence[str]):
        ordered = sorted(set(days))
        params = {"repo": repo, "days": ordered}
        self.days = set(ordered)
        self.by_query = {name: _per_day(rows(con, sql, params), keep) for name, (sql, keep) in QUERIES.items()}
        span = {"repo": repo, "first": ordered[0], "last": ordered[-1]}
        self.history = {name: rows(con, sql, span) for name, sql in HISTORY_QUERIES.items()}

    def day(self, day: str) -> dict[str, list[dict]]:
        if day not in self.days:
            raise KeyError(f"day {day!r} is not in this batch of {len(self.days)} days")
        out = {name: found.get(day, []) for name, found in self.by_query.items()}
        last = dt.date.fromisoformat(day)
        first = last - dt.timedelta(days=HISTORY_DAYS)
        for name, found in self.history.items():
            out[name] = [r for r in found if first < r["day"] <= last]
        return out


def _with_items(found: list[dict], items: dict[int, dict], **extra) -> list[dict]:
    """Join mart rows to their core item; ``extra`` maps output key -> function of the row."""
    return [
        {**items[r["number"]], **{k: f(r) for k, f in extra.items()}}
        for r in found
        if r["number"] in items
    ]


def _grouped(found: list[dict], key: str) -> dict:
    out: dict = {}
    for r in found:
        out.setdefault(r[key], []).append(r)
    return out


def focus_items(found: list[dict], items) -> list[dict]:
    return _with_items(
        found,
        items,
        theme=lambda r: r["theme_id"],
        theme_name=lambda r: {"zh": r["theme_zh"], "en": r["theme_en"]},
        vendor=lambda r: bool(r["is_vendor_employee"]),
    )


def hot_items(found: list[dict], items) -> list[dict]:
    return _with_items(found[:HOT_LIMIT], items, score=lambda r: r["hotness"])


def hotness_components(found: list[dict]) -> list[dict]:
    return [
        {
            "number": r["number"],
            "score": float(r["hotness"]),
            "parts": {p.removesuffix("_points"): float(r[p] or 0) for p in HOTNESS_PARTS},
        }
        for r in found[:PARTS_LIMIT]
    ]


def topics(found: list[dict], member_rows: list[dict]) -> list[dict]:
    members: dict[str, list[int]] = {}
    for r in member_rows:
        members.setdefault(r["topic_id"], []).append(r["number"])
    return [
        {
            "topic": r["topic_id"],
            "name": {"zh": r["topic_zh"], "en": r["topic_en"]},
            "count": int(r["items"]),
            "ratio": r["items_ratio"],
            "rising": bool(r["rising"]),
            "baseline_incomplete": r["trend_status"] == "baseline incomplete",
            # of the baseline_window days before this one, how many the warehouse held when it was built
            "baseline_days": r["baseline_days"],
            "baseline_window": r["baseline_window"],
            "numbers": members.get(r["topic_id"], []),  # the query keeps TOPIC_NUMBERS a topic
        }
        for r in found
    ]


def topic_history(found: list[dict], names: list[str]) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {n: [] for n in names}
    for r in found:
        if r["topic_id"] in out:
            out[r["topic_id"]].append((r["day"].isoformat(), int(r["items"] or 0)))
    return out


def key_changes(found: list[dict], items) -> list[dict]:
    return _with_items(found, items, reason=lambda r: ", ".join(r["topics"][:3]), status=lambda r: r["change_status"])


def notable(found: list[dict], items) -> list[dict]:
    return _with_items(found, items, reason=lambda r: ", ".join((r["risk_topics"] or r["topics"])[:3]))


def activity(people: list[dict], daily: list[dict], counts, items, sets) -> dict:
    out: dict = {}
    merged, unmerged = counts["merged_prs"], counts["closed_unmerged_prs"]
    out["merge_rate"] = merged / (merged + unmerged) if merged + unmerged else None
    per: dict[str, int] = {}
    for n, s in sets.items():
        item = items.get(n)
        if "new_prs" in s and item and item["author_login"] and not item["author_is_bot"]:
            per[item["author_login"]] = per.get(item["author_login"], 0) + 1
    out["pr_authors"] = len(per)
    out["top_authors"] = sorted(per.items(), key=lambda kv: (-kv[1], kv[0].lower()))[:3]
    closed = [items[n] for n, s in sets.items() if "closed_issues" in s and n in items]
    out["stale_closed"] = sum(1 for i in closed if "stale" in (i["labels"] or []))
    # an aggregate over no rows is still one row of zeros
    found = people[0] if people else {"humans": 0, "reviews": 0, "comments": 0}
    out.update({k: int(v or 0) for k, v in found.items()})
    out["extra"] = [
        (k, v) for k, v in sorted(daily[0].items())
        if k not in {"repo", "day"} and v is not None and isinstance(v, (int, float, str))
    ] if daily else []
    return out


def count_history(found: list[dict]) -> list[dict]:
    """The five counts of the 30 days ending at the day that the warehouse holds."""
    return [{**r, "day": r["day"].isoformat()} for r in found]


def gather(con: duckdb.DuckDBPyConnection, repo: str, day: str, counts: dict, batch: DayBatch | None = None) -> dict:
    """What the sections need for one day; ``batch`` (a DayBatch holding the day) saves the queries."""
    found = (batch or DayBatch(con, repo, [day])).day(day)
    items = {r["number"]: r for r in found["items"]}
    by_number = sorted(found["members"], key=lambda r: (r["number"], r["set_name"]))
    sets: dict[int, list[str]] = {n: [r["set_name"] for r in rs] for n, rs in _grouped(by_number, "number").items()}
    found_topics = topics(found["topics"], found["topic_members"])
    return {
        "items": items,
        "known_refs": {r["number"] for r in found["known_refs"]},
        "sets": sets,
        "comments": _grouped(found["comments"], "number"),
        "focus": focus_items(found["focus"], items),
        "hot": hot_items(found["hotness"], items),
        "topics": found_topics,
        "key_changes": key_changes(found["key_changes"], items),
        "notable": notable(found["notable"], items),
        "activity": activity(found["people"], found["activity_daily"], counts, items, sets),
        "count_history": count_history(found["count_history"]),
        "topic_history": topic_history(found["topic_history"], [t["topic"] for t in found_topics]),
        "hotness_parts": hotness_components(found["hotness"]),
    }


# The tables the report reads (DayBatch's queries): the report asset declares them as its inputs.
TABLES_READ = (
    "stg_fetch_manifest", "core_items", "core_comments", "core_people", "mart_five_sets", "mart_daily_counts",
    "mart_focus_items", "mart_item_hotness", "mart_topic_daily", "mart_item_topics",
    "mart_key_changes", "mart_notable_issues", "mart_activity_daily",
)
