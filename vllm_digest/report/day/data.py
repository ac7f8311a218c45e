"""What the seven sections, the charts and the narrative's facts need of one day, from the rows the
report SQL read for it (``report/day/queries.py``): mart rows joined to their items, grouped per item.
It is the same for every language.

Every value is raw warehouse text; the sections (report/sections/) make it safe.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vllm_digest.core.taxonomy.loader import NAME_FIELDS
from vllm_digest.core.text.limits import FIGURE_CHARS
from vllm_digest.core.vocabulary import SET_NAMES
from vllm_digest.report.day.queries import HOTNESS_PARTS


class ReportDataMissing(LookupError):
    """The marts hold no rows for the day asked for."""


@dataclass(frozen=True)
class DayData:
    """One day as the report SQL read it; rows are dicts of warehouse values."""

    day: str
    counts: dict[str, int]  # the five counts, in SET_NAMES order
    manifest: dict  # source, semantics, complete, incomplete_reasons
    members: list[dict]  # mart_five_sets rows: set_name, number, kind, title, ..., newest first per set
    items: dict[int, dict]  # number -> core_items row (without the body), for each item a section or chart names
    known_refs: frozenset[int]  # the #N cited in the day's texts that are items of the repository
    comments: dict[int, list[dict]]  # number -> the window's comments and reviews, oldest first (hot, key changes)
    focus: list[dict]  # items of the focus area with theme, names and vendor flag (the demoted left out)
    hot: list[dict]  # the hot discussions with their score
    topics: list[dict]  # listed topics with names, count, trend and member numbers
    key_changes: list[dict]
    notable: list[dict]
    activity: dict  # merge rate, PR authors, top authors, stale closed issues, people, mart row as `extra`
    count_history: list[dict]
    topic_history: dict[str, list[tuple[str, int]]]
    hotness_parts: list[dict]
    # focus items kept off the list (mart_focus_items.demoted): reason -> how many, for the section's one line
    focus_demoted: dict[str, int] = field(default_factory=dict)
    # items an earlier report featured that moved today (mart_follow_ups), in follow_rank order
    follow_ups: list[dict] = ()
    # of the follow_up_days days before this one, how many the warehouse held built (None: not known)
    follow_up_days_read: int | None = None
    # 🔥's stories (mart_hot_stories, listed), top story first: name, counts by kind and action, shown items
    stories: list[dict] = ()
    # number -> kind, state, merged_at of each known_refs item as last seen on or before the day (the narrative's badges)
    ref_states: dict[int, dict] = field(default_factory=dict)


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
        theme_name=lambda r: {f: r[f"theme_{f}"] for f in NAME_FIELDS},
        vendor=lambda r: bool(r["is_vendor_employee"]),
        # whether anything names the author's employer: no profile, or one without a company, means "unknown"
        employer_known=lambda r: bool(r.get("author_employer_known")),
        # the area's login pattern the author's login matches ('-amd'): a naming convention, not an employer
        login_rule=lambda r: r.get("author_login_rule"),
        # the body, which the focus tally searches for the highlighted product (report_focus.sql reads it;
        # report_items.sql does not: no other section reads a body)
        body=lambda r: r.get("body"),
    )


def demoted_counts(found: list[dict]) -> dict[str, int]:
    """How many of the day's focus items were demoted, by reason (label_spam, body_mention, off_title, stale, closed_unmerged)."""
    out: dict[str, int] = {}
    for r in found:
        if r.get("demoted"):
            out[r["demoted"]] = out.get(r["demoted"], 0) + 1
    return dict(sorted(out.items()))


def hot_items(found: list[dict], items) -> list[dict]:
    """The hot discussions mart_section_picks chose (report_hotness), with the size of each discussion: every
    one of them, in their order. The cut (how many, which) is the mart's alone; the report makes it again nowhere."""
    return _with_items(found, items, score=lambda r: r["hotness"],
                       discussion_comments=lambda r: int(r["discussion_comments"] or 0),
                       discussion_people=lambda r: int(r["discussion_people"] or 0))


def hotness_components(found: list[dict]) -> list[dict]:
    """The stored parts of each listed discussion's score (report_hotness), one bar of 💬's chart each."""
    return [
        {
            "number": r["number"],
            "score": float(r["hotness"]),
            "parts": {p.removesuffix("_points"): float(r[p] or 0) for p in HOTNESS_PARTS},
        }
        for r in found
    ]


def _num(x) -> float | None:
    return None if x is None else float(x)


def topics(found: list[dict], member_rows: list[dict]) -> list[dict]:
    """The listed topics in mart_topic_daily's rank, each with its threads and the parts of its score."""
    threads: dict[str, list[dict]] = {}
    for r in member_rows:
        threads.setdefault(r["topic_id"], []).append(
            {"head": r["head"], "numbers": list(r["numbers"]), "points": float(r["points"]), "parts": r["parts"]})
    return [
        {
            "topic": r["topic_id"],
            "name": {f: r[f"topic_{f}"] for f in NAME_FIELDS},
            "count": int(r["items"]),
            "ratio": r["items_ratio"],
            "rising": bool(r["rising"]),
            "baseline_incomplete": r["trend_status"] == "baseline incomplete",
            # of the baseline_window days before this one, how many the warehouse held when it was built
            "baseline_days": r["baseline_days"],
            "baseline_window": r["baseline_window"],
            # up / down / noise / incomplete: the arrow, by the taxonomy's noise rule (mart_topic_daily)
            "trend": r["trend"],
            "expected": _num(r["expected_items"]),
            "score": {
                "surprise": _num(r["surprise"]), "volume_factor": _num(r["volume_factor"]),
                "day_items": int(r["day_items"] or 0), "generic": bool(r["generic"]),
                "primary_items": int(r["primary_items"] or 0), "story_points": _num(r["story_points"]),
                "total": _num(r["topic_score"]), "rank": r["topic_rank"],
            },
            "threads": threads.get(r["topic_id"], []),  # the query keeps mart_topic_daily.shown_threads a topic
            "numbers": [n for t in threads.get(r["topic_id"], []) for n in t["numbers"]],
        }
        for r in found
    ]


def topic_history(found: list[dict], names: list[str]) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {n: [] for n in names}
    for r in found:
        if r["topic_id"] in out:
            out[r["topic_id"]].append((r["day"].isoformat(), int(r["items"] or 0)))
    return out


def selection_why(r: dict) -> dict:
    """Why the fitted selection model chose an item: its log-odds score, probability, the model's base (its
    intercept: what an item with no feature scores) and the score's parts (feature, value, weight, points =
    weight * value), largest first, as mart_key_changes / mart_notable_issues stored them. The marts store
    score = base + the sum of the parts, so the base is the score less the parts: the lines add up."""
    parts = [{k: p[k] for k in ("feature", "value", "weight", "points")} for p in (r["score_parts"] or [])]
    score = float(r["score"])
    return {
        "score": score,
        "probability": float(r["probability"]),
        "base": round(score - sum(float(p["points"]) for p in parts), 4),
        "parts": parts,
    }


def topic_names(found) -> list[dict]:
    """A row's topics as their display names, per language (report_key_changes / report_notable join them from
    the taxonomy's rules): the report never prints a topic's key."""
    return [{f: n[f] for f in NAME_FIELDS} for n in (found or []) if all(n.get(f) for f in NAME_FIELDS)]


def key_changes(found: list[dict], items) -> list[dict]:
    return _with_items(found, items, reason=lambda r: topic_names(r["topics_names"]),
                       status=lambda r: r["change_status"], why=selection_why,
                       figure=lambda r: figure_phrase(r["test_result"], r["result_figures"]),
                       fixes=lambda r: [dict(f) for f in r["fixes"] or []])


def figure_phrase(test_result: str | None, figures) -> str:
    """What a PR's Test Result measured, in the author's words: the first prose line of that section that holds
    one of its figures, cut to FIGURE_CHARS around the figure; the bare figures when the section's prose holds
    none of them (they were in its code block); "" when it reports none. Untrusted text: the caller makes it
    plain and safe like any other."""
    figures = [f for f in (figures or []) if f]
    if not figures:
        return ""
    for line in (test_result or "").splitlines():
        line = " ".join(line.split())
        at = min((line.find(f) for f in figures if f in line), default=-1)
        if at < 0:
            continue
        start = max(0, at - FIGURE_CHARS // 3)
        if start:
            start = line.rfind(" ", 0, start) + 1
        cut = line[start:start + FIGURE_CHARS]
        return ("…" if start else "") + cut + ("…" if start + FIGURE_CHARS < len(line) else "")
    return ", ".join(figures[:3])


def notable(found: list[dict], items) -> list[dict]:
    return _with_items(found, items, reason=lambda r: topic_names(r["risk_topics_names"] or r["topics_names"]),
                       why=selection_why)


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


def gather(repo: str, day: str, found: dict[str, list[dict]]) -> DayData:
    """What the report needs of one day of ``repo``, from ``DayBatch.day(day)``."""
    if not found["daily_counts"]:
        raise ReportDataMissing(
            f"no mart_daily_counts row for {repo} {day}: materialize the warehouse assets for that day first"
        )
    items = {r["number"]: r for r in found["items"]}
    found_topics = topics(found["topics"], found["topic_members"])
    return DayData(
        day=day,
        counts={k: int(found["daily_counts"][0][k]) for k in SET_NAMES},
        manifest=found["manifest"][0],
        members=found["members"],
        items=items,
        known_refs=frozenset(r["number"] for r in found["known_refs"]),
        comments=_grouped(found["comments"], "number"),
        focus=focus_items([r for r in found["focus"] if not r.get("demoted")], items),
        hot=hot_items(found["hotness"], items),
        topics=found_topics,
        key_changes=key_changes(found["key_changes"], items),
        notable=notable(found["notable"], items),
        activity=activity(found["people"], found["activity"], found["top_authors"], found["stale_closed"]),
        count_history=count_history(found["count_history"]),
        topic_history=topic_history(found["topic_history"], [t["topic"] for t in found_topics]),
        hotness_parts=hotness_components(found["hotness"]),
        focus_demoted=demoted_counts(found["focus"]),
        follow_ups=[{**r, "first_reported": r["first_reported"].isoformat()} for r in found["follow_ups"]],
        follow_up_days_read=found["follow_up_days"][0]["days_read"] if found.get("follow_up_days") else None,
        stories=[{**r, "shown": list(r["shown"])} for r in found.get("hot_stories", [])],
        ref_states={r["number"]: r for r in found.get("ref_states", [])},
    )
