"""The seven analysis sections of one day in one language, written from the warehouse without an LLM.

Each section is a lead sentence, groups of items and an optional closing line of plain (one-line,
untrusted-safe) text; its Markdown body is rendered here with ``md_inline`` on every untrusted field,
and the HTML template renders the same ``Section`` with autoescaping, so both formats say the same
thing. Every word of ours comes from the language's message catalog; the focus area's names, vendor
and highlighted product come from the taxonomy.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from vllm_digest.core.i18n import Catalog
from vllm_digest.report.data import DayData
from vllm_digest.core.text.gist import excerpt
from vllm_digest.core.text.limits import FIGURE_CHARS, FIXED_TITLE_CHARS, LEAD_CHARS, TOUCHES, WHAT_CHARS
from vllm_digest.core.text.markdown_safe import md_inline, plain_inline
from vllm_digest.report.model import Chart, Comment, Group, Item, Link, Part, Quote, Section, joined
from vllm_digest.core.taxonomy.loader import FocusArea

# GitHub attributes what a deleted account wrote to its stand-in user "ghost"; some payloads carry no
# user at all for such an author. The warehouse keeps the null (nothing was received); the report
# prints the stand-in, so such an item reads like any other ("by ghost"), never "by " and a blank.
NO_USER_LOGIN = "ghost"
# between a topic's name and its count when it has no trend arrow (incomplete baseline)
NO_ARROW = "·"
# id -> (icon, the table it is written from); the order is SECTION_IDS'
REGISTRY = {
    "summary": ("📊", "mart_daily_counts"),
    "focus": ("🎯", "mart_focus_items"),
    "discussions": ("💬", "mart_item_hotness"),
    "topics": ("🔥", "mart_topic_daily"),
    "key_changes": ("🛠️", "mart_key_changes"),
    # facts only (no narrative): what became of the items earlier reports featured
    "follow_ups": ("🔁", "mart_follow_ups"),
    "activity": ("📈", "mart_activity_daily"),
    "notable": ("💡", "mart_notable_issues"),
}


@dataclass(frozen=True)
class Wording:
    """What a section needs besides the day's rows: the language's catalog, the taxonomy's focus area
    and how an item's GitHub page is addressed."""

    t: Catalog
    focus: FocusArea
    url_for: Callable[[str, int], str]
    # (day, "md" | "html") -> the relative address of that day's report in this language (build.day_href)
    day_href: Callable[[str, str], str]
    # the taxonomy's selection parameters (Taxonomy.picks): the marts made the cuts with them, the wording
    # names them (a discussion's least comments and people, the follow-ups' look-back)
    picks: dict

    @property
    def names(self) -> str:
        """Which of the taxonomy's names this language prints."""
        return self.t("language.names")


def author_name(login: str | None) -> str:
    """An author as the report prints it: one line of plain text, GitHub's stand-in when unknown."""
    return plain_inline(login or NO_USER_LOGIN, 80)


def item_state(item: dict) -> str:
    return "merged" if item.get("merged_at") else (item.get("state") or "open")


def state_label(item: dict, t: Catalog) -> str:
    state = item_state(item)
    return t.get(f"item.state.{state}", state)


def item_ref(kind: str, number: int, t: Catalog) -> str:
    """``PR #12`` / ``Issue #12``, as every section and chart names an item."""
    return t("item.pr" if kind == "pr" else "item.issue", number=number)


def _parts(parts: str | list) -> tuple[Part, ...]:
    return ((parts,) if parts else ()) if isinstance(parts, str) else tuple(p for p in parts if p)


def why_lines(item: dict, t: Catalog) -> tuple[str, tuple[str, ...]]:
    """The fitted selection model's reasons for an item (``item["why"]``, report/data.selection_why): the
    summary line, then the model's base and one line per part of its score, each feature in plain words (the
    catalog's why.feature), so the lines add up to the score; empty for an item no model chose."""
    why = item.get("why")
    if not why:
        return "", ()
    parts = tuple(
        t("why.part_flag" if float(p["value"]) == 1 else "why.part", feature=t(f"why.feature.{p['feature']}"),
          value=float(p["value"]), points=float(p["points"]))
        for p in why["parts"])
    return (t("why.summary", score=why["score"], probability=why["probability"]),
            (t("why.base", points=float(why["base"])), *parts))


def touches(item: dict, w: Wording) -> str:
    """`` · touches: scheduler, models`` for a PR whose changed files were fetched, else ""."""
    areas = [a for a in (item.get(f"areas_{w.names}") or [])[:TOUCHES] if a]
    return f" · {w.t('item.touches', areas=w.t('language.list_sep').join(areas))}" if areas else ""


def topic_line(item: dict, w: Wording) -> str:
    """An item's topics (``item["reason"]``: report/data.topic_names) by the taxonomy's display names in this
    language, never by their keys."""
    return w.t("item.topic_sep").join(n[w.names] for n in item.get("reason") or [])


def _entry(item: dict, w: Wording, meta: str | list, quotes=(), gist: str | None = None) -> Item:
    why, why_parts = why_lines(item, w.t)
    return Item(
        number=item["number"],
        kind=item["kind"],
        ref=item_ref(item["kind"], item["number"], w.t),
        url=w.url_for(item["kind"], item["number"]),
        title=plain_inline(item["title"], 200),
        # the body's one-line "what it does" (core_item_texts), never the template's placeholder
        gist=plain_inline(item.get("what"), WHAT_CHARS) if gist is None else plain_inline(gist, WHAT_CHARS),
        meta_parts=_parts(meta),
        quotes=tuple(quotes),
        why=why,
        why_parts=why_parts,
    )


@dataclass(frozen=True)
class _Body:
    lead: str | list
    groups: tuple[Group, ...] = ()
    tail_label: str = ""
    tail: str = ""


def doc_markdown(section: Section, colon: str) -> str:
    """A section's body as Markdown; every line of it is ours up to the first untrusted byte."""
    out = [md_inline(section.lead, LEAD_CHARS)] if section.lead else []
    for group in section.groups:
        out.append("")
        if group.heading:
            out.append(f"**{md_inline(group.heading, 200)}**")
        for e in group.items:
            parts = []
            if e.url:
                parts.append(f"[{e.ref}]({e.url})")
            if e.title:
                parts.append(md_inline(e.title, 200))
            line = "- " + " ".join(parts)
            if e.gist:
                line += f" — {md_inline(e.gist, WHAT_CHARS)}"
            if e.meta:
                line += f" ({_meta_markdown(e.meta_parts) if _has_link(e.meta_parts) else md_inline(e.meta, 300)})"
            out.append(line)
            for q in e.quotes:
                out.append(f"  - {md_inline(q.author, 80)}: “{md_inline(q.text, 160)}”")
    if section.tail:
        out.append("")
        out.append(f"**{section.tail_label}**{colon}{md_inline(section.tail, LEAD_CHARS)}")
    return "\n".join(out)


def _has_link(parts: tuple[Part, ...]) -> bool:
    return any(isinstance(p, Link) for p in parts)


def _meta_markdown(parts: tuple[Part, ...]) -> str:
    """A line with links of ours: each text part made safe on its own, each link written as a link."""
    return "".join(f"[{md_inline(p.text, 80)}]({p.md_href})" if isinstance(p, Link) else
                   md_inline(p.quote if isinstance(p, Quote) else p, 300) for p in parts)


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{round(100 * x)}%"


def _name(names: dict, w: Wording, fallback: str) -> str:
    return names[w.names] or fallback


def _summary(data: DayData, w: Wording) -> _Body:
    t, area, c = w.t, w.focus, data.counts
    focus = data.focus
    known = employees_known(focus)
    topics = data.topics[:3]
    text = t("summary.counts", **c, merge_rate=_pct(data.activity["merge_rate"]))
    if topics:
        listed = t("language.list_sep").join(
            t("summary.topic", name=_name(tp["name"], w, tp["topic"]), count=tp["count"]) for tp in topics
        )
        text += t("summary.topics", topics=listed)
    text += (
        t("summary.focus_none", focus=area.short) if not focus
        else t("summary.focus", focus=area.short, items=len(focus), vendor=area.vendor, **employer_tally(focus))
        if known
        else t("summary.focus_unknown", focus=area.short, items=len(focus), vendor=area.vendor)
    )
    return _Body(text)


def employees_known(focus: list[dict]) -> bool:
    """Whether any focus item's author has a known employer (a profile that names a company, or a vendor
    match): with none (the sample, github_people_requests = 0, or profiles without a company) "0 by employees"
    would be a guess, so it is not said. A login convention ('-amd') never makes an employer known."""
    return any(i["vendor"] or i.get("employer_known") for i in focus)


def employer_tally(focus: list[dict]) -> dict[str, int]:
    """The focus items by what their authors' profiles say: by vendor employees, by people of another
    employer, and by authors whose employer nothing names (no profile, or one without a company)."""
    employees = sum(1 for i in focus if i["vendor"])
    known = sum(1 for i in focus if i["vendor"] or i.get("employer_known"))
    return {"employees": employees, "others": known - employees, "unknown": len(focus) - known}


def login_conventions(focus: list[dict]) -> list[tuple[str, int]]:
    """The focus area's login patterns ('-amd') its items' authors match, each with how many distinct authors
    match it: a naming convention, reported as what it is and never as employment."""
    authors: dict[str, set[str]] = {}
    for i in focus:
        if i.get("login_rule") and i.get("author_login"):
            authors.setdefault(i["login_rule"], set()).add(i["author_login"].lower())
    return sorted((pattern, len(found)) for pattern, found in authors.items())


def focus_tally(focus: list[dict], highlight: str | None) -> dict[str, int]:
    """The focus area's closing counts: items, by vendor employees, merged, mentioning the highlight."""
    needle = (highlight or "").lower()
    return {
        "items": len(focus),
        "by_vendor_employees": sum(1 for i in focus if i["vendor"]),
        "merged": sum(1 for i in focus if item_state(i) == "merged"),
        "highlight": sum(1 for i in focus if needle and needle in f"{i['title']} {i['body'] or ''}".lower()),
    }


def demoted_line(data: DayData, t: Catalog) -> str:
    """One line counting the focus items kept off the list, by reason; empty when none was."""
    if not data.focus_demoted:
        return ""
    parts = t("language.list_sep").join(
        t("focus.demoted_part", count=n, reason=t(f"focus.demoted_reason.{reason}"))
        for reason, n in data.focus_demoted.items())
    return t("focus.demoted", parts=parts)


def _focus(data: DayData, w: Wording) -> _Body:
    t, area, focus = w.t, w.focus, data.focus
    demoted = demoted_line(data, t)
    if not focus:
        if area.highlight:
            return _Body([t("focus.none_highlight", focus=area.short, highlight=area.highlight), demoted])
        return _Body([t("focus.none", focus=area.short), demoted])
    names = {i["theme"]: i["theme_name"] for i in focus}
    counts = {th: sum(1 for i in focus if i["theme"] == th) for th in names}
    # largest theme first; the taxonomy decides what a theme is, not this module
    order = sorted(names, key=lambda th: (-counts[th], th))
    groups = []
    for theme in order:
        entries = []
        for i in (i for i in focus if i["theme"] == theme):
            tag = t("focus.employee", vendor=area.vendor) if i["vendor"] else ""
            entries.append(_entry(i, w, [Quote(author_name(i["author_login"])),
                                         f"{tag} · {state_label(i, t)}{touches(i, w)}"]))
        groups.append(Group(_name(names[theme], w, theme), tuple(entries)))
    tally = focus_tally(focus, area.highlight)
    parts = t("language.list_sep").join(t("focus.part", name=_name(names[th], w, th), count=counts[th]) for th in order)
    if employees_known(focus):
        tail = t("focus.tail", items=len(focus), focus=area.short, parts=parts, vendor=area.vendor,
                 merged=tally["merged"], **employer_tally(focus))
    else:
        tail = t("focus.tail_unknown", items=len(focus), focus=area.short, parts=parts, vendor=area.vendor,
                 merged=tally["merged"])
    for pattern, authors in login_conventions(focus):
        tail += t("focus.login_rule", authors=authors, pattern=plain_inline(pattern, 40))
    if not area.highlight:
        tail += t("focus.tail_end")
    elif tally["highlight"]:
        tail += t("focus.tail_highlight", highlight=area.highlight, count=tally["highlight"])
    else:
        tail += t("focus.tail_highlight_none", highlight=area.highlight)
    tail += demoted
    return _Body(t("focus.lead", items=len(focus), focus=area.short), tuple(groups), t("focus.tail_label"), tail)


# GitHub's author_association values of the people who maintain a repository
MAINTAINER_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})


def is_maintainer(row: dict) -> bool:
    return (row.get("author_association") or "").upper() in MAINTAINER_ASSOCIATIONS


@dataclass(frozen=True)
class SideExcerpt:
    """The latest words of one side of a thread: ``side`` is author (the item's), maintainer or community."""

    side: str
    login: str  # as the report prints it (author_name)
    text: str  # the comment's excerpt


@dataclass(frozen=True)
class ThreadDigest:
    """What a hot thread's window holds: who spoke, which maintainers, how long the first answer took
    (items opened in the window only), and one excerpt per side that actually spoke, latest first of
    each: the item's author, its maintainers (so the latest maintainer comment), everyone else. The
    report's 💬 and the narrative's facts pack both print this one digest."""

    participants: tuple[str, ...]
    maintainers: tuple[str, ...]
    first_response_hours: float | None
    excerpts: tuple[SideExcerpt, ...]  # in time order

    @property
    def latest_maintainer(self) -> SideExcerpt | None:
        return next((e for e in self.excerpts if e.side == "maintainer"), None)


def thread_people(data: DayData, item: dict) -> tuple[list[dict], tuple[str, ...], tuple[str, ...], float | None]:
    """A thread's human comments (oldest first), participants, maintainers and hours to the first answer by
    someone else (only for an item opened in the window: an older one's first answer may predate it)."""
    author = item.get("author_login")
    thread = [c for c in data.comments.get(item["number"], []) if c["author_login"] and not c["author_is_bot"]]
    participants = tuple(sorted({c["author_login"] for c in thread}))
    maintainers = tuple(sorted({c["author_login"] for c in thread if is_maintainer(c)}))
    opened_today = any(m["number"] == item["number"] and m["set_name"] in ("new_issues", "new_prs")
                       for m in data.members)
    answers = [c for c in thread if c["author_login"] != author and c.get("created_at")]
    first = None
    if opened_today and answers and item.get("created_at"):
        first = round(max(0.0, (answers[0]["created_at"] - item["created_at"]).total_seconds() / 3600), 1)
    return thread, participants, maintainers, first


def thread_digest(data: DayData, item: dict) -> ThreadDigest:
    author = item.get("author_login")
    thread, participants, maintainers, first = thread_people(data, item)

    def side(c: dict) -> str:
        return "author" if c["author_login"] == author else "maintainer" if is_maintainer(c) else "community"

    latest: dict[str, dict] = {}
    # newest first: a side's latest comment with words is the first one found, and once a side is found its
    # older comments need no excerpt (a hot thread's every comment was excerpted to keep the last of each side)
    for c in reversed(thread):
        s = side(c)
        if s not in latest and c.get("body") and excerpt(c["body"]):
            latest[s] = c
    excerpts = tuple(
        SideExcerpt(s, author_name(c["author_login"]), excerpt(c["body"]))
        for s, c in sorted(latest.items(), key=lambda kv: (kv[1]["created_at"], kv[0]))
    )
    return ThreadDigest(participants, maintainers, first, excerpts)


def side_quote(e: SideExcerpt, t: Catalog) -> Comment:
    """An excerpt as 💬 prints it: the author and the maintainers are named with their side."""
    label = {"author": "discussions.side_author", "maintainer": "discussions.side_maintainer"}
    return Comment(t(label[e.side], login=e.login) if e.side in label else e.login, e.text)


def _discussions(data: DayData, w: Wording) -> _Body:
    """The items people discussed in the window (mart_section_picks: at least the taxonomy's
    discussion_min_comments comments from discussion_min_people people), hottest first. A source without comment threads cannot tell a discussion
    from a monologue: one line says so and nothing is listed."""
    t = w.t
    least = {"comments": w.picks["discussion_min_comments"], "people": w.picks["discussion_min_people"]}
    if not has_comment_threads(data):
        return _Body(t("discussions.no_threads"))
    if not data.hot:
        return _Body(t("discussions.none", comments=least["comments"], people=least["people"]))
    entries = []
    for i in data.hot:
        digest = thread_digest(data, i)
        meta: list = [t("discussions.meta", comments=i["discussion_comments"], participants=i["discussion_people"],
                        state=state_label(i, t))]
        if digest.maintainers:
            meta += [t("discussions.maintainers"), *_listed([(m, None) for m in digest.maintainers],
                                                            t("language.list_sep"), None)]
        if digest.first_response_hours is not None:
            meta.append(t("discussions.first_response", hours=f"{digest.first_response_hours:.1f}"))
        entries.append(_entry(i, w, meta, tuple(side_quote(e, t) for e in digest.excerpts)))
    return _Body(t("discussions.lead", comments=least["comments"], people=least["people"]),
                 (Group("", tuple(entries)),))


def review_verdicts(data: DayData, number: int) -> dict[str, list[str]]:
    """The window's approvals and change requests of a PR, each reviewer's latest verdict."""
    latest: dict[str, str] = {}
    for c in data.comments.get(number, []):
        state = (c.get("review_state") or "").upper()
        if c["comment_kind"] == "review" and c["author_login"] and state in ("APPROVED", "CHANGES_REQUESTED"):
            latest[c["author_login"]] = state
    return {s: sorted(login for login, v in latest.items() if v == s) for s in ("APPROVED", "CHANGES_REQUESTED")}


def trend_arrow(topic: dict) -> str:
    """↑ / ↓ when the topic's surprise against its weekday-aware baseline is outside the noise rule
    (mart_topic_daily.trend); none when the baseline is incomplete or the change is within noise: an
    arrow against missing days, or for a wobble, would say more than the data does."""
    return {"up": "↑", "down": "↓"}.get(topic.get("trend") or "", "")


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
    return _entry(head, w, meta, gist="")


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
        return w.t("hot.day_topic", name=_name(tp["name"], w, tp["topic"]), count=tp["count"])
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
    entries = [_entry(data.items[n], w, "", gist="") for n in story["shown"] if n in data.items]
    more = int(story["items"]) - len(entries)
    return Group(story_headline(story, t) + (f" {t('hot.more', count=more)}" if more > 0 else ""),
                 tuple(entries), why=plain_inline(story_why(story, t, w.picks["story_history_days"]), LEAD_CHARS), why_label=t("hot.why_label"))


def _topic_group(data: DayData, tp: dict, w: Wording, told: set[int]) -> Group:
    """A topic's group; a thread holding an item a story shows (``told``) is told there, not again here
    (mart_section_picks leaves it out too)."""
    t = w.t
    threads = [th for th in tp["threads"] if not told & set(th["numbers"])]
    entries = [e for e in (_thread_entry(data, th, w) for th in threads) if e is not None]
    # the arrow separates name and count; without one (incomplete baseline, or within noise) a middle dot does
    heading = t("topics.heading", name=_name(tp["name"], w, tp["topic"]), arrow=trend_arrow(tp) or NO_ARROW,
                count=tp["count"], note=baseline_note(tp, t))
    return Group(heading, tuple(entries), why=plain_inline(topic_why(tp, t), LEAD_CHARS),
                 why_label=t("topics.why_label"))


def _topics(data: DayData, w: Wording) -> _Body:
    """🔥: the day's stories (mart_hot_stories), then its leading topics with their trends in the groups left; a day
    without a story lists topics only, and a day with neither says so."""
    t = w.t
    topics = hot_topics(data, w.picks["hot_groups"])
    if not data.stories and not topics:
        return _Body(t("topics.none"))
    told = {n for s in data.stories for n in s["shown"]}
    # every listed topic keeps its heading (its count and trend), even when the story tells all its threads
    groups = [_story_group(data, s, w) for s in data.stories] + [_topic_group(data, tp, w, told) for tp in topics]
    window = next((tp["baseline_window"] for tp in data.topics if tp.get("baseline_window")), None)
    days = t("topics.days", window=window) if window else t("topics.days_unknown")
    if not data.stories:
        return _Body(t("topics.lead", days=days), tuple(groups))
    # the catalog's lead_topics starts with the language's own sentence gap
    lead = t("hot.lead") + (t("hot.lead_topics", days=days) if topics else "")
    return _Body(lead, tuple(groups))


def substance(item: dict, w: Wording) -> list:
    """What a key change's own description says beyond its title and purpose sentence (the entry's gist): the
    figure its test result reports and the issues it closes, each linked, with its title when the issue is an
    item of the day. Nothing when the description gives neither: the entry is then its title alone."""
    t = w.t
    out: list = []
    if item.get("figure"):
        out += [t("key_changes.reports"), Quote(plain_inline(item["figure"], FIGURE_CHARS + 2))]
    fixes = [f for f in item.get("fixes") or [] if f.get("number")]
    if fixes:
        out.append(t("key_changes.fixes"))
        for index, f in enumerate(fixes):
            kind = f.get("kind") or "issue"  # an item outside the day: a closing keyword names an issue
            ref = item_ref(kind, f["number"], t)
            url = w.url_for(kind, f["number"])
            out += [t("language.list_sep")] if index else []
            out.append(Link(ref, url, url) if url else ref)
            if f.get("title"):
                out += [" “", Quote(plain_inline(f["title"], FIXED_TITLE_CHARS)), "”"]
    return out


def _key_changes(data: DayData, w: Wording) -> _Body:
    t = w.t
    if not data.key_changes:
        return _Body(t("key_changes.none"))
    entries = []
    for i in data.key_changes:
        size = ""
        if i.get("additions") is not None:
            size = t("key_changes.size", additions=i["additions"], deletions=i["deletions"] or 0,
                     files=i["changed_files"] or 0)
        reason = plain_inline(topic_line(i, w), 120)
        meta = [f"{size}{t('key_changes.by')} ", Quote(author_name(i["author_login"])),
                f" · {reason}" if reason else "", touches(i, w)]
        meta += substance(i, w)
        verdicts = review_verdicts(data, i["number"])
        for state, key in (("APPROVED", "key_changes.approved"), ("CHANGES_REQUESTED", "key_changes.changes_requested")):
            if verdicts[state]:
                meta += [t(key), *_listed([(r, None) for r in verdicts[state]], t("language.list_sep"), None)]
        entries.append(_entry(i, w, meta))
    return _Body(t("key_changes.lead"), (Group("", tuple(entries)),))


def _move(row: dict, move: str, w: Wording) -> list:
    """One move in words; a maintainer's login stays a quote."""
    t = w.t
    if move in ("linked_pr_merged", "linked_pr_opened"):
        prs = row["linked_prs_merged"] if move == "linked_pr_merged" else row["linked_prs_opened"]
        refs = t("language.list_sep").join(item_ref("pr", n, t) for n in prs or [])
        return [t(f"follow_ups.move.{move}", prs=refs)]
    if move == "maintainer_response":
        return [t("follow_ups.move.maintainer_response"), Quote(author_name(row["responder"]))]
    if move == "comment_burst":
        return [t("follow_ups.move.comment_burst", comments=int(row["comments"] or 0))]
    return [t(f"follow_ups.move.{move}")]


def _follow_ups(data: DayData, w: Wording) -> _Body:
    t = w.t
    rows = list(data.follow_ups)
    if not rows:
        return _Body(t("follow_ups.none", days=w.picks["follow_up_days"]))
    entries = []
    for row in rows[:w.picks["follow_ups_shown"]]:  # one line each, the strongest moves first (follow_rank)
        moved: list = []
        for index, move in enumerate(row["moves"]):
            moved.extend(([t("follow_ups.sep")] if index else []) + _move(row, move, w))
        day = row["first_reported"]
        section = t(f"section.{row['first_section']}", focus=w.focus.name(w.names))
        meta = [*moved, t("follow_ups.first_reported", section=section),
                Link(day, w.day_href(day, "md"), w.day_href(day, "html"))]
        entries.append(_entry(row, w, meta, gist=""))
    more = len(rows) - len(entries)
    return _Body(t("follow_ups.lead", count=len(rows), days=w.picks["follow_up_days"], focus=w.focus.short),
                 (Group("", tuple(entries)),),
                 t("follow_ups.more_label") if more > 0 else "", t("follow_ups.more", count=more) if more > 0 else "")


def _hours(x) -> str:
    return "—" if x is None else f"{float(x):.1f} h"


# mart_activity_daily columns shown under the activity paragraph, with their format (labels: the catalog's
# activity.facts); the rest of the row is kept for the narrative's facts pack, not printed
ACTIVITY_FACTS = (
    ("contributors", str), ("issue_authors", str), ("pr_authors", str),
    ("median_hours_to_merge", _hours), ("p90_hours_to_merge", _hours), ("first_time_contributors", str),
    ("opened_unanswered", str), ("median_hours_to_first_response", _hours), ("stale_closures", str),
    ("stale_closures_by_bot", str), ("bot_events", str),
)


def has_comment_threads(data: DayData) -> bool:
    """False for a source without comment threads (the embedded sample), which must not
    read as "nobody commented"."""
    return dict(data.activity["extra"]).get("response_basis") != "no comment data"


def _listed(pairs, sep: str, suffix: Callable[[object], str] | None, limit: int = 80) -> list:
    """``[(untrusted name, value)]`` as parts: each name quoted, then ``suffix`` of its value."""
    out: list = []
    for index, (name, value) in enumerate(pairs):
        out.extend([sep] if index else [])
        out.extend([Quote(plain_inline(name, limit)), suffix(value) if suffix else ""])
    return out


def _activity(data: DayData, w: Wording) -> _Body:
    t, a, c = w.t, data.activity, data.counts
    daily = dict(a["extra"])
    talk = (t("activity.talk", comments=a["comments"], reviews=a["reviews"]) if has_comment_threads(data)
            else t("activity.talk_none"))
    top = a["top_authors"]
    text = [
        t("activity.authors", pr_authors=a["pr_authors"], new_prs=c["new_prs"]),
        *([t("activity.top"), *_listed(top, t("language.list_sep"), lambda n: t("activity.top_count", count=n))]
          if top else []),
        t("activity.rest", merge_rate=_pct(a["merge_rate"]), closed_issues=c["closed_issues"],
          stale_closed=a["stale_closed"], talk=talk, humans=a["humans"]),
    ]
    facts = tuple(
        Item(None, None, "", None, f"{t(f'activity.facts.{column}')}: {fmt(daily[column])}")
        for column, fmt in ACTIVITY_FACTS if daily.get(column) is not None
    )
    return _Body(text, (Group("", facts, compact=True),) if facts else ())


def _notable(data: DayData, w: Wording) -> _Body:
    t = w.t
    if not data.notable:
        return _Body(t("notable.none"))
    entries = []
    for i in data.notable:
        labels = _listed([(x, None) for x in i["labels"] or []], ",", None, 40) or [t("item.no_labels")]
        reason = plain_inline(topic_line(i, w), 120)
        meta = [*labels, t("notable.comments", comments=int(i["comments_total"] or 0)),
                f" · {reason}" if reason else "", touches(i, w)]
        entries.append(_entry(i, w, meta))
    return _Body(t("notable.lead"), (Group("", tuple(entries)),))


BUILDERS = {
    "summary": _summary, "focus": _focus, "discussions": _discussions, "topics": _topics,
    "key_changes": _key_changes, "follow_ups": _follow_ups, "activity": _activity, "notable": _notable,
}
# which chart a section shows (report/charts.py), and whether above its body
CHARTS = {"summary": ("counts", False), "discussions": ("hotness", False), "topics": ("topics", True)}


def build_sections(data: DayData, w: Wording, charts: dict[str, Chart]) -> tuple[Section, ...]:
    sections = []
    for section_id, (icon, source) in REGISTRY.items():
        body = BUILDERS[section_id](data, w)
        # only the focus title names something: the area, in the taxonomy's name for this language
        title = w.t(f"section.{section_id}", focus=w.focus.name(w.names))
        chart, first = CHARTS.get(section_id, (None, False))
        section = Section(
            id=section_id, icon=icon, title=title, source=source,
            lead=plain_inline(joined(_parts(body.lead)), LEAD_CHARS), lead_parts=_parts(body.lead),
            groups=body.groups, tail_label=body.tail_label, tail=plain_inline(body.tail, LEAD_CHARS),
            chart=charts[chart] if chart else None, chart_first=first,
        )
        sections.append(replace(section, markdown=doc_markdown(section, w.t("language.colon"))))
    return tuple(sections)
