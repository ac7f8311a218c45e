"""What the seven sections, the charts and the narrative's facts need of one day, from the rows the
report SQL read for it (``report/queries.py``): mart rows joined to their items, grouped per item.

Every value is raw warehouse text; sections.py makes it safe.
"""

from __future__ import annotations

from vllm_digest.report.queries import HOTNESS_PARTS, LIMITS


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
    return _with_items(found[:LIMITS["hot_limit"]], items, score=lambda r: r["hotness"])


def hotness_components(found: list[dict]) -> list[dict]:
    return [
        {
            "number": r["number"],
            "score": float(r["hotness"]),
            "parts": {p.removesuffix("_points"): float(r[p] or 0) for p in HOTNESS_PARTS},
        }
        for r in found[:LIMITS["parts_limit"]]
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
            "numbers": members.get(r["topic_id"], []),  # the query keeps LIMITS["topic_numbers"] a topic
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


def activity(people: list[dict], daily: list[dict], top_authors: list[dict], stale_closed: list[dict]) -> dict:
    row = daily[0] if daily else {}
    out: dict = {
        "merge_rate": row.get("merge_rate"),
        "pr_authors": int(row.get("pr_authors") or 0),
        "top_authors": [(r["author_login"], int(r["prs"])) for r in top_authors],
        "stale_closed": int(stale_closed[0]["stale_closed"]) if stale_closed else 0,
    }
    # an aggregate over no rows is still one row of zeros
    found = people[0] if people else {"humans": 0, "reviews": 0, "comments": 0}
    out.update({k: int(v or 0) for k, v in found.items()})
    out["extra"] = [
        (k, v) for k, v in sorted(row.items())
        if k not in {"repo", "day"} and v is not None and isinstance(v, (int, float, str))
    ]
    return out


def count_history(found: list[dict]) -> list[dict]:
    """The five counts of the 30 days ending at the day that the warehouse holds."""
    return [{**r, "day": r["day"].isoformat()} for r in found]


def gather(found: dict[str, list[dict]]) -> dict:
    """What the sections need for one day, from ``DayBatch.day(day)``."""
    items = {r["number"]: r for r in found["items"]}
    found_topics = topics(found["topics"], found["topic_members"])
    return {
        "items": items,
        "known_refs": {r["number"] for r in found["known_refs"]},
        "comments": _grouped(found["comments"], "number"),
        "focus": focus_items(found["focus"], items),
        "hot": hot_items(found["hotness"], items),
        "topics": found_topics,
        "key_changes": key_changes(found["key_changes"], items),
        "notable": notable(found["notable"], items),
        "activity": activity(found["people"], found["activity"], found["top_authors"], found["stale_closed"]),
        "count_history": count_history(found["count_history"]),
        "topic_history": topic_history(found["topic_history"], [t["topic"] for t in found_topics]),
        "hotness_parts": hotness_components(found["hotness"]),
    }
