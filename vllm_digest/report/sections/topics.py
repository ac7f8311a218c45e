"""🔥 Hot topics and trends: the day's stories (mart_hot_stories), then its leading topics with their trends in the
groups left; the day's headline."""

from __future__ import annotations

from vllm_digest.core.i18n import Catalog
from vllm_digest.core.text.limits import LEAD_CHARS
from vllm_digest.core.text.markdown_safe import plain_inline
from vllm_digest.report.day.data import DayData
from vllm_digest.report.day.model import Group, Item
from vllm_digest.report.sections.entries import Body, Wording, entry, local_name
from vllm_digest.report.sections.shared import item_ref, trend_arrow


# between a topic's name and its count when it has no trend arrow (incomplete baseline)
NO_ARROW = "·"


def baseline_note(topic: dict, t: Catalog) -> str:
    """Today's count against the expected one, or how many baseline days are missing."""
    window = topic.get("baseline_window")  # None: a row built before the column existed
    if topic["baseline_incomplete"]:
        if window is None:
            return t("topics.baseline_incomplete")
        return t("topics.baseline_incomplete_days", held=int(topic.get("baseline_days") or 0), window=window)
    if topic.get("expected") is None:
        return ""
    key = "topics.expected_noise" if topic.get("trend") == "noise" else "topics.expected"
    return t(key, expected=topic["expected"], window=window or 0)


def _num(x: float | None, fmt: str = "{:.1f}") -> str:
    return "—" if x is None else fmt.format(x)


def topic_why(topic: dict, t: Catalog) -> str:
    """A topic's score, part by part (mart_topic_daily): the HTML page's "why this topic"."""
    sc = topic["score"]
    threads = t("language.list_sep").join(
        t("topics.why_thread", head=th["head"], points=th["points"], parts=th["parts"] or "—")
        for th in topic["threads"])
    return t("topics.why", rank=sc["rank"], total=_num(sc["total"], "{:.2f}"), count=topic["count"],
             expected=_num(topic.get("expected")), factor=_num(sc["volume_factor"], "{:.2f}"),
             day_items=sc["day_items"], surprise=_num(sc["surprise"], "{:+.2f}"),
             story=_num(sc["story_points"]), primary=sc["primary_items"],
             generic=t("topics.why_generic") if sc["generic"] else "", threads=threads)


def _thread_entry(data: DayData, thread: dict, w: Wording) -> Item | None:
    """One thread as one entry: its head (the issue), then the PRs linked to it, by number."""
    head = data.items.get(thread["head"])
    if head is None:
        return None
    others = [data.items[n] for n in thread["numbers"] if n != thread["head"] and n in data.items]
    meta = (w.t("topics.thread", refs=w.t("language.list_sep").join(item_ref(i["kind"], i["number"], w.t)
                                                                      for i in others)) if others else "")
    return entry(head, w, meta, gist="")


# a story's counts in the headline's order: what its PRs do, then its issues (mart_hot_stories' columns)
STORY_ACTIONS = (("add", "added"), ("fix", "fixed"), ("perf", "perf"), ("revert", "reverted"), ("docs", "docs"),
                 ("other", "other"), ("issue", "issues"))


def story_headline(story: dict, t: Catalog) -> str:
    """"Zephyrine-7: 2 PRs add or extend support, 1 fix, 1 issue": the story's name (untrusted title text, made
    one plain line) and its items counted by what their titles say they do."""
    parts = t("language.list_sep").join(
        t(f"hot.{action}_{'one' if int(story[column]) == 1 else 'other'}", count=int(story[column]))
        for action, column in STORY_ACTIONS if story.get(column))
    return t("hot.headline", name=plain_inline(story["story_name"], 80), parts=parts)


def day_headline(data: DayData, w: Wording) -> str:
    """The day's top story in one line; on a day without a story, its first listed topic; else ""."""
    if data.stories:
        return story_headline(data.stories[0], w.t)
    if data.topics:
        tp = data.topics[0]
        return w.t("hot.day_topic", name=local_name(tp["name"], w, tp["topic"]), count=tp["count"])
    return ""


def story_why(story: dict, t: Catalog, story_history_days: int) -> str:
    """A story's evidence: its size against its entity's usual daily volume on the earlier built days."""
    days, items = int(story.get("history_days") or 0), int(story["items"])
    if story.get("usual_items") is None:  # the days before are not all built: nothing is compared
        return t("hot.why_no_history", items=items, window=story_history_days, days=days)
    if not story["usual_items"]:
        return t("hot.why_new", items=items, days=days)
    return t("hot.why_usual", items=items, usual=float(story["usual_items"]), days=days,
             surprise=float(story["surprise"] or 0), score=float(story["story_score"] or 0))


def hot_topics(data: DayData, hot_groups: int) -> list[dict]:
    """The topics 🔥 lists after its stories: as many as fit in ``hot_groups`` groups (mart_section_picks' rule)."""
    return list(data.topics)[:max(0, hot_groups - len(data.stories))]


def _story_group(data: DayData, story: dict, w: Wording) -> Group:
    t = w.t
    entries = [entry(data.items[n], w, "", gist="") for n in story["shown"] if n in data.items]
    more = int(story["items"]) - len(entries)
    why = story_why(story, t, w.picks["story_history_days"])
    return Group(story_headline(story, t) + (f" {t('hot.more', count=more)}" if more > 0 else ""),
                 tuple(entries), why=plain_inline(why, LEAD_CHARS), why_label=t("hot.why_label"))


def _topic_group(data: DayData, tp: dict, w: Wording, told: set[int]) -> Group:
    """A topic's group; a thread holding an item a story shows (``told``) is told there, not again here
    (mart_section_picks leaves it out too)."""
    t = w.t
    threads = [th for th in tp["threads"] if not told & set(th["numbers"])]
    entries = [e for e in (_thread_entry(data, th, w) for th in threads) if e is not None]
    # the arrow separates name and count; without one (incomplete baseline, or within noise) a middle dot does
    heading = t("topics.heading", name=local_name(tp["name"], w, tp["topic"]), arrow=trend_arrow(tp) or NO_ARROW,
                count=tp["count"], note=baseline_note(tp, t))
    return Group(heading, tuple(entries), why=plain_inline(topic_why(tp, t), LEAD_CHARS),
                 why_label=t("topics.why_label"))


def topics_body(data: DayData, w: Wording) -> Body:
    """🔥: the day's stories (mart_hot_stories), then its leading topics with their trends in the groups left; a day
    without a story lists topics only, and a day with neither says so."""
    t = w.t
    topics = hot_topics(data, w.picks["hot_groups"])
    if not data.stories and not topics:
        return Body(t("topics.none"))
    told = {n for s in data.stories for n in s["shown"]}
    # every listed topic keeps its heading (its count and trend), even when the story tells all its threads
    groups = [_story_group(data, s, w) for s in data.stories] + [_topic_group(data, tp, w, told) for tp in topics]
    window = next((tp["baseline_window"] for tp in data.topics if tp.get("baseline_window")), None)
    days = t("topics.days", window=window) if window else t("topics.days_unknown")
    if not data.stories:
        return Body(t("topics.lead", days=days), tuple(groups))
    # the catalog's lead_topics starts with the language's own sentence gap
    lead = t("hot.lead") + (t("hot.lead_topics", days=days) if topics else "")
    return Body(lead, tuple(groups))
