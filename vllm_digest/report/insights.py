"""Read what the seven sections and the charts need, for one (repo, day).

The analytics marts (mart_focus_items, mart_item_hotness, mart_topic_daily, ...)
are built on another branch and may be absent from a warehouse; each reader
checks ``information_schema`` for the table *and the columns it uses*, and
otherwise falls back to a plain query on the core tables or to nothing. The
report then says which source it used, so a missing mart is visible instead
of silently producing a thinner digest.

Every value returned is raw warehouse text; sections.py makes it safe.
"""

from __future__ import annotations

import datetime as dt
import re

import duckdb

KEYS = {"repo", "day", "number"}
HISTORY_DAYS = 30

# FORMAT.md's definition of "concerns AMD", used when mart_focus_items is absent.
FOCUS_TERMS = re.compile(
    r"(?i)\b(rocm|hip|aiter|quark|mi3[0-9]{2}x?|gfx90a|gfx94[0-9]|gfx95[0-9]|gfx12[0-9a-z]*|rdna[0-9]*|amd)\b"
)
CI_TERMS = re.compile(r"(?i)(\[ci\b|\bci\b|ci/build|buildkite)")
FIX_TERMS = re.compile(r"(?i)\b(fix(es|ed)?|bug(fix)?|test(s)?|flaky|failure|failing|revert|skip)\b")


def rows(con: duckdb.DuckDBPyConnection, sql: str, params: dict | None = None) -> list[dict]:
    cur = con.execute(sql, params or {})
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def columns(con: duckdb.DuckDBPyConnection, table: str) -> set[str]:
    found = con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = $t", {"t": table}
    ).fetchall()
    return {c for (c,) in found}


def usable(con, table: str, needed: set[str]) -> bool:
    """The mart exists and has the columns we read (a renamed column must not crash a report)."""
    cols = columns(con, table)
    return bool(cols) and needed <= cols


def _pick(row: dict, *names, default=None):
    for n in names:
        if n in row and row[n] is not None:
            return row[n]
    return default


def _items(con, params) -> dict[int, dict]:
    found = rows(
        con,
        "SELECT number, kind, title, body, state, author_login, author_is_bot, labels, "
        "comments_total, additions, deletions, changed_files, draft, created_at, merged_at, closed_at "
        "FROM core_items WHERE repo = $repo AND day = CAST($day AS DATE)",
        params,
    )
    return {r["number"]: r for r in found}


def _sets(con, params) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for r in rows(
        con,
        "SELECT number, set_name FROM mart_five_sets WHERE repo = $repo AND day = CAST($day AS DATE) "
        "ORDER BY number, set_name",
        params,
    ):
        out.setdefault(r["number"], []).append(r["set_name"])
    return out


def _comments(con, params) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    for r in rows(
        con,
        "SELECT number, comment_kind, author_login, author_is_bot, created_at, body FROM core_comments "
        "WHERE repo = $repo AND day = CAST($day AS DATE) ORDER BY number, created_at, comment_key",
        params,
    ):
        out.setdefault(r["number"], []).append(r)
    return out


def is_vendor_login(login: str | None) -> bool:
    return "-amd" in (login or "").lower()


def _fallback_theme(item: dict) -> str:
    # the title says what a PR is about; a ci/build label only decides when the title does not
    title = item["title"] or ""
    if CI_TERMS.search(title):
        return "ci"
    if FIX_TERMS.search(title):
        return "stability"
    if CI_TERMS.search(" ".join(item["labels"] or [])):
        return "ci"
    return "performance"


def focus_items(con, params, items, sets) -> tuple[str, list[dict]]:
    if usable(con, "mart_focus_items", KEYS | {"theme"}):
        found = rows(
            con,
            "SELECT * FROM mart_focus_items WHERE repo = $repo AND day = CAST($day AS DATE) ORDER BY theme, number DESC",
            params,
        )
        out = []
        for r in found:
            item = items.get(r["number"])
            if item is None:
                continue
            vendor = bool(_pick(r, "is_vendor_employee", default=is_vendor_login(item["author_login"])))
            out.append({**item, "theme": str(r["theme"]), "vendor": vendor})
        return "mart_focus_items", out
    out = []
    for number in sorted((n for n in items if n in sets), reverse=True):
        item = items[number]
        text = " ".join([item["title"] or "", item["body"] or "", *(item["labels"] or [])])
        if FOCUS_TERMS.search(text) or "rocm" in (item["labels"] or []) or is_vendor_login(item["author_login"]):
            out.append({**item, "theme": _fallback_theme(item), "vendor": is_vendor_login(item["author_login"])})
    return "core_items (keyword rules)", out


def hot_items(con, params, items, limit=3) -> tuple[str, list[dict]]:
    if usable(con, "mart_item_hotness", KEYS) and (
        score_col := next((c for c in ("hotness", "score", "hotness_score") if c in columns(con, "mart_item_hotness")), None)
    ):
        found = rows(
            con,
            f"SELECT * FROM mart_item_hotness WHERE repo = $repo AND day = CAST($day AS DATE) "
            f"ORDER BY {score_col} DESC, number DESC LIMIT {int(limit)}",
            params,
        )
        return "mart_item_hotness", [
            {**items[r["number"]], "score": r[score_col]} for r in found if r["number"] in items
        ]
    ranked = sorted(
        (i for i in items.values() if (i["comments_total"] or 0) > 0),
        key=lambda i: (-(i["comments_total"] or 0), -i["number"]),
    )
    return "core_items (comment count)", ranked[:limit]


def hotness_components(con, params, limit=5) -> list[dict]:
    """Per item, the numeric columns of mart_item_hotness other than the score: its parts."""
    cols = columns(con, "mart_item_hotness")
    if not cols or not KEYS <= cols:
        return []
    score_col = next((c for c in ("hotness", "score", "hotness_score") if c in cols), None)
    if score_col is None:
        return []
    found = rows(
        con,
        f"SELECT * FROM mart_item_hotness WHERE repo = $repo AND day = CAST($day AS DATE) "
        f"ORDER BY {score_col} DESC, number DESC LIMIT {int(limit)}",
        params,
    )
    out = []
    for r in found:
        parts = {
            k: float(v) for k, v in r.items()
            if k not in KEYS | {score_col, "rank"} and isinstance(v, (int, float)) and not isinstance(v, bool)
        }
        out.append({"number": r["number"], "score": float(r[score_col]), "parts": parts})
    return out


def topics(con, params, limit=5) -> tuple[str, list[dict]]:
    if not usable(con, "mart_topic_daily", {"repo", "day", "topic"}):
        return "", []
    found = rows(con, "SELECT * FROM mart_topic_daily WHERE repo = $repo AND day = CAST($day AS DATE)", params)
    for r in found:
        r["count"] = int(_pick(r, "item_count", "n_items", "items", "count", default=0) or 0)
    found = [r for r in found if r["count"] > 0]
    found.sort(key=lambda r: (-r["count"], str(r["topic"])))
    members: dict[str, list[int]] = {}
    if usable(con, "mart_item_topics", KEYS | {"topic"}):
        for r in rows(
            con,
            "SELECT topic, number FROM mart_item_topics WHERE repo = $repo AND day = CAST($day AS DATE) "
            "ORDER BY topic, number DESC",
            params,
        ):
            members.setdefault(str(r["topic"]), []).append(r["number"])
    return "mart_topic_daily", [
        {
            "topic": str(r["topic"]),
            "count": r["count"],
            "trend": _pick(r, "trend", "trend_ratio", "delta", "change"),
            "rising": bool(_pick(r, "rising", "is_rising", default=False)),
            "baseline_incomplete": bool(_pick(r, "baseline_incomplete", default=False)),
            "numbers": members.get(str(r["topic"]), [])[:8],
        }
        for r in found[:limit]
    ]


def topic_history(con, params, names: list[str], end_day: str) -> dict[str, list[tuple[str, int]]]:
    if not names or not usable(con, "mart_topic_daily", {"repo", "day", "topic"}):
        return {}
    count_col = next(
        (c for c in ("item_count", "n_items", "items", "count") if c in columns(con, "mart_topic_daily")), None
    )
    if count_col is None:
        return {}
    found = rows(
        con,
        f'SELECT CAST(day AS VARCHAR) AS day, topic, "{count_col}" AS n FROM mart_topic_daily '
        "WHERE repo = $repo AND day <= CAST($day AS DATE) AND day > CAST($day AS DATE) - INTERVAL 30 DAY "
        "ORDER BY day",
        {**params, "day": end_day},
    )
    out: dict[str, list[tuple[str, int]]] = {n: [] for n in names}
    for r in found:
        if r["topic"] in out:
            out[r["topic"]].append((r["day"], int(r["n"] or 0)))
    return out


def key_changes(con, params, items, sets, limit=5) -> tuple[str, list[dict]]:
    if usable(con, "mart_key_changes", KEYS):
        cols = columns(con, "mart_key_changes")
        order = "rank, number DESC" if "rank" in cols else ("score DESC, number DESC" if "score" in cols else "number DESC")
        found = rows(
            con,
            f"SELECT * FROM mart_key_changes WHERE repo = $repo AND day = CAST($day AS DATE) ORDER BY {order} LIMIT {int(limit)}",
            params,
        )
        return "mart_key_changes", [
            {**items[r["number"]], "reason": _pick(r, "reason", "why")} for r in found if r["number"] in items
        ]
    merged = [items[n] for n, s in sets.items() if "merged_prs" in s and n in items]
    merged = [i for i in merged if not i["author_is_bot"]]
    # without a ranking mart, the biggest merged changes first: size is the one signal every PR has
    merged.sort(
        key=lambda i: (-((i["additions"] or 0) + (i["deletions"] or 0)), -(i["comments_total"] or 0), -i["number"])
    )
    return "core_items (merged PRs by size)", merged[:limit]


def notable(con, params, items, sets, limit=5) -> tuple[str, list[dict]]:
    if usable(con, "mart_notable_issues", KEYS):
        cols = columns(con, "mart_notable_issues")
        order = "rank, number DESC" if "rank" in cols else ("score DESC, number DESC" if "score" in cols else "number DESC")
        found = rows(
            con,
            f"SELECT * FROM mart_notable_issues WHERE repo = $repo AND day = CAST($day AS DATE) ORDER BY {order} LIMIT {int(limit)}",
            params,
        )
        return "mart_notable_issues", [
            {**items[r["number"]], "reason": _pick(r, "reason", "why")} for r in found if r["number"] in items
        ]

    def weight(i):
        labels = {x.lower() for x in i["labels"] or []}
        rfc = "rfc" in labels or "[rfc]" in (i["title"] or "").lower()
        return (-int(rfc), -int("bug" in labels), -(i["comments_total"] or 0), -i["number"])

    # new issues the window left open: nobody has answered them by closing them yet
    open_new = [
        items[n] for n, s in sets.items()
        if "new_issues" in s and n in items and (items[n]["state"] or "open") == "open"
    ]
    open_new.sort(key=weight)
    return "core_items (open new issues)", open_new[:limit]


def activity(con, params, counts, items, sets) -> dict:
    out: dict = {"source": "mart_five_sets + core_people"}
    merged, unmerged = counts["merged_prs"], counts["closed_unmerged_prs"]
    out["merge_rate"] = merged / (merged + unmerged) if merged + unmerged else None
    authors = [items[n]["author_login"] for n, s in sets.items() if "new_prs" in s and n in items]
    humans = [a for a in authors if a and not is_bot_login(a, items)]
    per: dict[str, int] = {}
    for a in humans:
        per[a] = per.get(a, 0) + 1
    out["pr_authors"] = len(per)
    out["top_authors"] = sorted(per.items(), key=lambda kv: (-kv[1], kv[0].lower()))[:3]
    closed = [items[n] for n, s in sets.items() if "closed_issues" in s and n in items]
    out["stale_closed"] = sum(1 for i in closed if "stale" in (i["labels"] or []))
    people = rows(
        con,
        "SELECT count(*) FILTER (WHERE NOT coalesce(is_bot, false)) AS humans, "
        "coalesce(sum(reviews), 0) AS reviews, coalesce(sum(comments), 0) AS comments "
        "FROM core_people WHERE repo = $repo AND day = CAST($day AS DATE)",
        params,
    )[0]
    out.update({k: int(v or 0) for k, v in people.items()})
    out["extra"] = []
    if usable(con, "mart_activity_daily", {"repo", "day"}):
        found = rows(con, "SELECT * FROM mart_activity_daily WHERE repo = $repo AND day = CAST($day AS DATE)", params)
        if found:
            out["source"] = "mart_activity_daily"
            out["extra"] = [
                (k, v) for k, v in sorted(found[0].items())
                if k not in {"repo", "day"} and v is not None and isinstance(v, (int, float, str))
            ]
    return out


def is_bot_login(login: str, items: dict) -> bool:
    return any(i["author_login"] == login and i["author_is_bot"] for i in items.values())


def count_history(con, repo: str, day: str) -> list[dict]:
    """The five counts of the 30 days ending at ``day`` that the warehouse holds."""
    return rows(
        con,
        "SELECT CAST(day AS VARCHAR) AS day, new_issues, closed_issues, new_prs, merged_prs, closed_unmerged_prs "
        "FROM mart_daily_counts WHERE repo = $repo AND day <= CAST($day AS DATE) "
        "AND day > CAST($day AS DATE) - INTERVAL 30 DAY ORDER BY day",
        {"repo": repo, "day": day},
    )


def gather(con: duckdb.DuckDBPyConnection, repo: str, day: str, counts: dict) -> dict:
    params = {"repo": repo, "day": day}
    items = _items(con, params)
    sets = _sets(con, params)
    out = {"items": items, "sets": sets, "comments": _comments(con, params)}
    out["focus_source"], out["focus"] = focus_items(con, params, items, sets)
    out["hot_source"], out["hot"] = hot_items(con, params, items)
    out["topics_source"], out["topics"] = topics(con, params)
    out["key_source"], out["key_changes"] = key_changes(con, params, items, sets)
    out["notable_source"], out["notable"] = notable(con, params, items, sets)
    out["activity"] = activity(con, params, counts, items, sets)
    out["count_history"] = count_history(con, repo, day)
    out["topic_history"] = topic_history(con, params, [t["topic"] for t in out["topics"]], day)
    out["hotness_parts"] = hotness_components(con, params)
    return out




