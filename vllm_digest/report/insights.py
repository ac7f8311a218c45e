"""Read what the seven sections and the charts need, for one (repo, day).

Every ranking, topic and focus decision was already made by the marts
(`sql/mart_*.sql`, with their formulas); this module only reads them, by the
columns `sql/schema_analytics.sql` declares, so the report cannot drift from
the tables an analyst inspects.

Every value returned is raw warehouse text; sections.py makes it safe.
"""

from __future__ import annotations

import duckdb

HISTORY_DAYS = 30
HOT_LIMIT, TOPIC_LIMIT, RANKED_LIMIT, PARTS_LIMIT = 3, 5, 5, 5
# mart_item_hotness: the stored parts of each score, in the order a chart stacks them
HOTNESS_PARTS = (
    "comments_points", "participants_points", "reviews_points",
    "reactions_points", "opened_points", "closed_points",
)
DAY = "WHERE repo = $repo AND day = CAST($day AS DATE)"


def rows(con: duckdb.DuckDBPyConnection, sql: str, params: dict | None = None) -> list[dict]:
    cur = con.execute(sql, params or {})
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def _items(con, params) -> dict[int, dict]:
    found = rows(
        con,
        "SELECT number, kind, title, body, state, author_login, author_is_bot, labels, "
        "comments_total, additions, deletions, changed_files, draft, created_at, merged_at, closed_at "
        f"FROM core_items {DAY}",
        params,
    )
    return {r["number"]: r for r in found}


def _sets(con, params) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for r in rows(con, f"SELECT number, set_name FROM mart_five_sets {DAY} ORDER BY number, set_name", params):
        out.setdefault(r["number"], []).append(r["set_name"])
    return out


def _comments(con, params) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    for r in rows(
        con,
        "SELECT number, comment_kind, author_login, author_is_bot, created_at, body FROM core_comments "
        f"{DAY} ORDER BY number, created_at, comment_key",
        params,
    ):
        out.setdefault(r["number"], []).append(r)
    return out


def _with_items(found: list[dict], items: dict[int, dict], **extra) -> list[dict]:
    """Join mart rows to their core item; ``extra`` maps output key -> function of the row."""
    return [
        {**items[r["number"]], **{k: f(r) for k, f in extra.items()}}
        for r in found
        if r["number"] in items
    ]


def focus_items(con, params, items) -> list[dict]:
    found = rows(
        con,
        "SELECT number, theme_id, theme_zh, theme_en, is_vendor_employee FROM mart_focus_items "
        f"{DAY} ORDER BY theme_id, number DESC",
        params,
    )
    return _with_items(
        found,
        items,
        theme=lambda r: r["theme_id"],
        theme_name=lambda r: {"zh": r["theme_zh"], "en": r["theme_en"]},
        vendor=lambda r: bool(r["is_vendor_employee"]),
    )


def hot_items(con, params, items) -> list[dict]:
    found = rows(
        con,
        f"SELECT number, hotness FROM mart_item_hotness {DAY} AND hotness > 0 "
        f"ORDER BY hotness_rank, number DESC LIMIT {HOT_LIMIT}",
        params,
    )
    return _with_items(found, items, score=lambda r: r["hotness"])


def hotness_components(con, params) -> list[dict]:
    found = rows(
        con,
        f"SELECT number, hotness, {', '.join(HOTNESS_PARTS)} FROM mart_item_hotness {DAY} AND hotness > 0 "
        f"ORDER BY hotness_rank, number DESC LIMIT {PARTS_LIMIT}",
        params,
    )
    return [
        {
            "number": r["number"],
            "score": float(r["hotness"]),
            "parts": {p.removesuffix("_points"): float(r[p] or 0) for p in HOTNESS_PARTS},
        }
        for r in found
    ]


def topics(con, params) -> list[dict]:
    found = rows(
        con,
        "SELECT topic_id, topic_zh, topic_en, items, items_ratio, rising, trend_status "
        f"FROM mart_topic_daily {DAY} AND items > 0 ORDER BY items DESC, topic_id LIMIT {TOPIC_LIMIT}",
        params,
    )
    members: dict[str, list[int]] = {}
    for r in rows(
        con,
        f"SELECT DISTINCT topic_id, number FROM mart_item_topics {DAY} ORDER BY topic_id, number DESC",
        params,
    ):
        members.setdefault(r["topic_id"], []).append(r["number"])
    return [
        {
            "topic": r["topic_id"],
            "name": {"zh": r["topic_zh"], "en": r["topic_en"]},
            "count": int(r["items"]),
            "ratio": r["items_ratio"],
            "rising": bool(r["rising"]),
            "baseline_incomplete": r["trend_status"] == "baseline incomplete",
            "numbers": members.get(r["topic_id"], [])[:8],
        }
        for r in found
    ]


def topic_history(con, params, names: list[str]) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {n: [] for n in names}
    if not names:
        return out
    for r in rows(
        con,
        "SELECT CAST(day AS VARCHAR) AS day, topic_id, items FROM mart_topic_daily "
        "WHERE repo = $repo AND day <= CAST($day AS DATE) "
        f"AND day > CAST($day AS DATE) - INTERVAL {HISTORY_DAYS} DAY ORDER BY day",
        params,
    ):
        if r["topic_id"] in out:
            out[r["topic_id"]].append((r["day"], int(r["items"] or 0)))
    return out


def key_changes(con, params, items) -> list[dict]:
    found = rows(
        con,
        f"SELECT number, change_status, topics FROM mart_key_changes {DAY} "
        f"ORDER BY key_rank, number DESC LIMIT {RANKED_LIMIT}",
        params,
    )
    return _with_items(found, items, reason=lambda r: ", ".join(r["topics"][:3]), status=lambda r: r["change_status"])


def notable(con, params, items) -> list[dict]:
    found = rows(
        con,
        f"SELECT number, topics, risk_topics FROM mart_notable_issues {DAY} "
        f"ORDER BY notable_rank, number DESC LIMIT {RANKED_LIMIT}",
        params,
    )
    return _with_items(found, items, reason=lambda r: ", ".join((r["risk_topics"] or r["topics"])[:3]))


def activity(con, params, counts, items, sets) -> dict:
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
    people = rows(
        con,
        "SELECT count(*) FILTER (WHERE NOT coalesce(is_bot, false)) AS humans, "
        "coalesce(sum(reviews), 0) AS reviews, coalesce(sum(comments), 0) AS comments "
        f"FROM core_people {DAY}",
        params,
    )[0]
    out.update({k: int(v or 0) for k, v in people.items()})
    found = rows(con, f"SELECT * FROM mart_activity_daily {DAY}", params)
    out["extra"] = [
        (k, v) for k, v in sorted(found[0].items())
        if k not in {"repo", "day"} and v is not None and isinstance(v, (int, float, str))
    ] if found else []
    return out


def count_history(con, params) -> list[dict]:
    """The five counts of the 30 days ending at the day that the warehouse holds."""
    return rows(
        con,
        "SELECT CAST(day AS VARCHAR) AS day, new_issues, closed_issues, new_prs, merged_prs, closed_unmerged_prs "
        "FROM mart_daily_counts WHERE repo = $repo AND day <= CAST($day AS DATE) "
        f"AND day > CAST($day AS DATE) - INTERVAL {HISTORY_DAYS} DAY ORDER BY day",
        params,
    )


def gather(con: duckdb.DuckDBPyConnection, repo: str, day: str, counts: dict) -> dict:
    params = {"repo": repo, "day": day}
    items = _items(con, params)
    sets = _sets(con, params)
    found_topics = topics(con, params)
    return {
        "items": items,
        "sets": sets,
        "comments": _comments(con, params),
        "focus": focus_items(con, params, items),
        "hot": hot_items(con, params, items),
        "topics": found_topics,
        "key_changes": key_changes(con, params, items),
        "notable": notable(con, params, items),
        "activity": activity(con, params, counts, items, sets),
        "count_history": count_history(con, params),
        "topic_history": topic_history(con, params, [t["topic"] for t in found_topics]),
        "hotness_parts": hotness_components(con, params),
    }


# The tables gather() reads: the report asset declares them as its inputs.
TABLES_READ = (
    "core_items", "core_comments", "core_people", "mart_five_sets", "mart_daily_counts",
    "mart_focus_items", "mart_item_hotness", "mart_topic_daily", "mart_item_topics",
    "mart_key_changes", "mart_notable_issues", "mart_activity_daily",
)
