"""Facts packs: what the LLM narrative of each section may be written from.

One function per section maps the very rows its deterministic section is built
from (``report.day.data.DayData``, which every ``DayReport`` carries) to the pack shape
documented in ``vllm_digest.report.narrative.narrate``. The grounding validator accepts only item
numbers and figures that appear in the pack, so whatever is left out here
cannot be said in the narrative. Every text field is plain one-line text
(``plain_inline``); the prompt fences the whole pack as untrusted data.

Only computed values are numbers in the pack: counts, metrics, sizes, scores and
item numbers the warehouse knows. A "#N" inside a title or body becomes a
``related`` number only when N is an item of this repository in ``core_items``
(``sql/report_known_refs.sql`` resolves them); any other figure in someone's text stays text.

Every item a section discusses carries what its own description and thread say (``substance``): its state
with the time, the author's purpose (whole sentences, about 600 characters), its Changes list, its
``claims`` (each figure the author reports, in the sentence or table row that says what it means: the
narrative may repeat one only as that item's author's, which the validator checks), what was tested, the
items it closes with their titles and states, its reviews (maintainer or not) and, for an item with comments
in the window, a digest of its thread. A day's prompts are kept within ``PACK_TOKENS`` each by leaving out the
lowest-ranked items' details first (``fit_budget``), never by cutting a sentence.
"""

from __future__ import annotations

import json
import re

from vllm_digest.core.taxonomy.loader import FocusArea
from vllm_digest.core.text.gist import excerpt
from vllm_digest.core.text.limits import CHANGE_CHARS, CLAIM_CHARS, PACK_TOKENS, PURPOSE_CHARS, WHAT_CHARS
from vllm_digest.core.text.markdown_safe import plain_inline
from vllm_digest.report.day.data import DayData
from vllm_digest.report.day.model import DayReport
from vllm_digest.report.narrative.prompts import estimate_tokens
from vllm_digest.report.sections.shared import (
    SUMMARY_TOPICS,
    author_name,
    employees_known,
    employer_tally,
    focus_tally,
    has_comment_threads,
    is_maintainer,
    item_state,
    review_verdicts,
    thread_digest,
)

_REF = re.compile(r"#(\d+)\b")


def _brief(row: dict, known: set[int]) -> dict:
    """An item as a topic or summary mentions it: enough to name it, and its state with the time; ``known``
    holds the cited numbers that are real items of the repository."""
    out = {
        "number": row["number"],
        "kind": row["kind"],
        "title": plain_inline(row["title"], 200),
        "labels": [plain_inline(x, 80) for x in row["labels"] or []],
    }
    out["state"], since = pack_state(row)
    if since:
        out["state_since"] = since
    return _with_related(out, out["title"], known)


def _with_related(out: dict, text: str, known: set[int]) -> dict:
    # items the item's own text cites (a revert of #34854) may be cited in turn, if they are real
    related = sorted(({int(n) for n in _REF.findall(text)} & known) - {out["number"]})
    if related:
        out["related"] = related
    else:
        out.pop("related", None)
    return out


_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")


def pack_state(row: dict) -> tuple[str, str | None]:
    """An item's state as the warehouse last saw it, in the pack's four words, and since when (UTC, to the
    minute): merged, closed without merge (a PR), closed (an issue), open (since it was opened)."""
    state = item_state(row)
    if state == "merged":
        at = row.get("merged_at")
    elif state == "closed":
        state, at = ("closed without merge" if row["kind"] == "pr" else "closed"), row.get("closed_at")
    else:
        at = row.get("created_at")
    return state, (at.strftime("%Y-%m-%dT%H:%MZ") if hasattr(at, "strftime") else None)


def whole_sentences(text: str, limit: int) -> str:
    """As many of ``text``'s sentences as fit in ``limit`` characters, each whole ("" when the first does not)."""
    out = ""
    for sentence in _SENTENCE_END.split(" ".join((text or "").split())):
        if len(out) + len(sentence) + 1 > limit:
            break
        out = f"{out} {sentence}".strip()
    return out


def reviews(data: DayData, number: int) -> list[dict]:
    """The window's approvals and change requests (each reviewer's latest verdict, as 🛠️ prints them), and
    whether GitHub says the reviewer maintains the repository (author_association OWNER, MEMBER or COLLABORATOR)."""
    verdicts = review_verdicts(data, number)
    maintainers = {c["author_login"] for c in data.comments.get(number, []) if is_maintainer(c)}
    return sorted(({"reviewer": author_name(login), "verdict": word, "maintainer": login in maintainers}
                   for state, word in (("APPROVED", "approved"), ("CHANGES_REQUESTED", "changes requested"))
                   for login in verdicts[state]), key=lambda r: r["reviewer"])


def thread(data: DayData, row: dict) -> dict | None:
    """A digest of an item's comments in the window (None without any): who spoke and as what, the excerpts
    with the maintainers' first, and the last word before the item was merged or closed in the window."""
    digest = thread_digest(data, row)
    if not digest.participants:
        return None
    author = row.get("author_login")
    roles = {p: "author" if p == author else "maintainer" if p in digest.maintainers else "community"
             for p in digest.participants}
    rank = {"maintainer": 0, "author": 1, "community": 2}
    out: dict = {
        "participants": [{"login": author_name(p), "role": roles[p]} for p in sorted(digest.participants,
                                                                                     key=lambda p: (rank[roles[p]], p))],
        "excerpts": [{"author": e.login, "side": e.side, "text": e.text}
                     for e in sorted(digest.excerpts, key=lambda e: rank[e.side])],
    }
    ended = row.get("merged_at") or row.get("closed_at")
    before = [c for c in data.comments.get(row["number"], [])
              if ended and c.get("created_at") and c["created_at"] <= ended and c["author_login"]
              and not c["author_is_bot"] and (c.get("body") or "").strip()]
    if before:
        last = before[-1]
        out["last_word_before_" + ("merge" if row.get("merged_at") else "close")] = {
            "author": author_name(last["author_login"]), "maintainer": is_maintainer(last),
            "text": excerpt(last["body"])}
    return out


def substance(row: dict, data: DayData) -> dict:
    """What an item's own description and thread say, beyond its title and gist (see the module docstring);
    only what the warehouse holds: a key the source gives nothing for is left out."""
    out: dict = {}
    gist = plain_inline(row.get("what"), WHAT_CHARS)
    purpose = whole_sentences(plain_inline(" ".join((row.get("purpose") or "").splitlines()), 4 * PURPOSE_CHARS),
                              PURPOSE_CHARS)
    if purpose and purpose != gist:
        out["purpose"] = purpose
    for key, limit in (("changes", CHANGE_CHARS), ("claims", CLAIM_CHARS)):
        lines = [t for t in (plain_inline(x, limit + 2) for x in row.get(key) or []) if t]
        if lines:
            out[key] = lines
    tests = {}
    plan = whole_sentences(plain_inline(" ".join((row.get("test_plan") or "").splitlines()), 4 * PURPOSE_CHARS),
                           PURPOSE_CHARS // 2)
    if plan:
        tests["plan"] = plan
    ran = [t for t in (plain_inline(x, CHANGE_CHARS) for x in row.get("test_commands") or []) if t]
    if ran:
        tests["ran"] = ran
    if tests:
        out["tests"] = tests
    fixes = []
    report_day = data.day
    for f in row.get("fixes_all") or []:
        if not f.get("number"):
            continue
        fixed = {"number": int(f["number"])}
        if f.get("title"):  # an item the warehouse holds: its title and state as it last saw them
            fixed["title"] = plain_inline(f["title"], 200)
            fixed["kind"] = f["kind"]
            fixed["state"] = pack_state(f)[0]
            if str(f.get("seen_on")) != report_day:  # seen on an earlier day: its state may have moved since
                fixed["state_seen_on"] = str(f["seen_on"])
        fixes.append(fixed)
    if fixes:
        out["fixes"] = fixes
    verdicts = reviews(data, row["number"])
    if verdicts:
        out["reviews"] = verdicts
    return out


def _item(row: dict, known: set[int], data: DayData | None = None, **extra) -> dict:
    """An item as a section discusses it: who, what state, how big, the body's first sentence, and with the
    day's ``data`` what its description and thread say (``substance``)."""
    out = _brief(row, known)
    out["author"] = author_name(row["author_login"])
    out["comments"] = int(row["comments_total"] or 0)
    if row["kind"] == "pr" and row.get("additions") is not None:
        out["additions"] = int(row["additions"])
        out["deletions"] = int(row["deletions"] or 0)
        out["files"] = int(row["changed_files"] or 0)
    # the body's one-line "what it does" as core_item_texts parsed it ("" without a description)
    gist = plain_inline(row.get("what"), WHAT_CHARS)
    if gist:
        out["gist"] = gist
    fixed: set[int] = set()
    if data is not None:
        out.update(substance(row, data))
        # an item it closes is a fact when the warehouse holds it (that day, or cited as a real #N)
        fixed = {f["number"] for f in out.get("fixes", []) if f.get("title") or f["number"] in known}
        if "comment_excerpts" not in extra and has_comment_threads(data):
            digest = thread(data, row)
            if digest:
                out["thread"] = digest
    out.update(extra)
    out = _with_related(out, f"{out['title']} {gist}", known)
    related = sorted((set(out.get("related", [])) | fixed) - {out["number"]})
    if related:
        out["related"] = related
    return out


def _pack(report: DayReport, **parts) -> dict:
    return {"repo": report.repo, "day": report.day, **{k: v for k, v in parts.items() if v}}


def _names(report: DayReport) -> str:
    """Which of the taxonomy's names the report's language prints."""
    return report.catalog("language.names")


def _topic(t: dict, names: str) -> dict:
    """A listed topic as the report chose it: its evidence, its arrow (trend: up, down, noise or
    incomplete, by the noise rule of mart_topic_daily), the parts of its score and its threads."""
    sc = t["score"]
    out = {"name": t["name"][names] or t["topic"], "items": t["count"], "trend": t["trend"],
           "numbers": list(t["numbers"]),
           "why": {"rank": sc["rank"], "score": sc["total"], "surprise": sc["surprise"],
                   "story_points": sc["story_points"], "volume_factor": sc["volume_factor"],
                   "day_items": sc["day_items"], "generic": sc["generic"], "primary_items": sc["primary_items"]},
           "threads": [{"numbers": list(th["numbers"]), "points": th["points"], "parts": th["parts"]}
                       for th in t["threads"]]}
    if t["baseline_incomplete"]:
        out["baseline_incomplete"] = True
    elif t.get("expected") is not None:
        out["expected"] = round(float(t["expected"]), 2)
    return out


def _topic_members(data: DayData, topics: list[dict]) -> list[dict]:
    seen: list[int] = []
    for t in topics:
        seen.extend(n for n in t["numbers"] if n in data.items and n not in seen)
    return [_brief(data.items[n], data.known_refs) for n in seen]


def summary_facts(report: DayReport, data: DayData, focus_area: FocusArea) -> dict:
    focus = focus_tally(data.focus, focus_area.highlight)
    topics = data.topics[:SUMMARY_TOPICS]
    return _pack(
        report,
        counts={**report.counts, "focus_items": focus["items"],
                # left out when no author's employer is known, rather than stated as 0
                **({"focus_by_vendor_employees": focus["by_vendor_employees"]} if employees_known(data.focus) else {})},
        metrics=_rate(data),
        topics=[_topic(t, _names(report)) for t in topics],
        items=_topic_members(data, topics),
    )


def focus_facts(report: DayReport, data: DayData, focus_area: FocusArea) -> dict:
    focus = data.focus
    if not focus:
        return _pack(report)
    tally = focus_tally(focus, focus_area.highlight)
    names = _names(report)
    counts = {"focus_items": tally["items"], "merged": tally["merged"]}
    if employees_known(focus):
        counts["by_vendor_employees"] = tally["by_vendor_employees"]
        # what the profiles do not say stays unknown, never "not an employee"
        counts["employer_unknown"] = employer_tally(focus)["unknown"]
    if focus_area.highlight:
        # the product the focus area counts on its own, and how many items mention it
        counts["highlight_related"] = tally["highlight"]
    return _pack(
        report,
        highlight=focus_area.highlight,
        # whom is_vendor_employee means: the one employer the pack gives (report/narrative/affiliations.py)
        vendor=focus_area.vendor,
        counts=counts,
        items=[_item(i, data.known_refs, data, theme=i["theme_name"][names] or i["theme"],
                     is_vendor_employee=i["vendor"]) for i in focus],
    )


# what a source without comment threads cannot know; left out rather than stated as 0
_THREAD_FIGURES = ("comments", "reviews", "commenters", "reviewers", "bot_comments")
NO_THREADS_NOTE = "this source holds no comment threads or reviews; comments is the item's total count"


def discussions_facts(report: DayReport, data: DayData, focus_area: FocusArea) -> dict:
    """Each hot thread's digest, the very one 💬 prints (``report.sections.shared.thread_digest``): participants,
    maintainers, time to first response, the latest maintainer comment, one excerpt per side that spoke."""
    threads = has_comment_threads(data)
    items = []
    for i in data.hot:
        extra: dict = {}
        if threads:
            digest = thread_digest(data, i)
            # the discussion's size as 💬 prints it (mart_item_hotness: people's comments and their authors)
            extra["comments_in_window"] = i["discussion_comments"]
            extra["participants"] = i["discussion_people"]
            extra["comment_excerpts"] = [{"author": e.login, "side": e.side, "text": e.text} for e in digest.excerpts]
            if digest.maintainers:
                extra["maintainers"] = [author_name(m) for m in digest.maintainers]
            if digest.first_response_hours is not None:
                extra["first_response_hours"] = digest.first_response_hours
            if digest.latest_maintainer:
                extra["latest_maintainer_comment"] = {"author": digest.latest_maintainer.login,
                                                      "text": digest.latest_maintainer.text}
        items.append(_item(i, data.known_refs, data, score=round(float(i["score"]), 2), **extra))
    return _pack(report, items=items, notes=None if threads else [NO_THREADS_NOTE])


def topics_facts(report: DayReport, data: DayData, focus_area: FocusArea) -> dict:
    topics = data.topics
    return _pack(report, topics=[_topic(t, _names(report)) for t in topics], items=_topic_members(data, topics))


def selection(item: dict) -> dict:
    """Why the fitted selection model chose an item, as the HTML's <details> shows it: the probability and
    the score's parts (feature -> points), largest first."""
    why = item["why"]
    return {"probability": round(why["probability"], 3),
            "parts": {p["feature"]: round(p["points"], 2) for p in why["parts"]}}


def _topic_list(item: dict, report: DayReport) -> str:
    """An item's topics by their display names in the report's language (never their keys: the model would
    repeat them to the reader)."""
    return ", ".join(n[_names(report)] for n in item["reason"])


def key_changes_facts(report: DayReport, data: DayData, focus_area: FocusArea) -> dict:
    # each PR's reviews (with whether the reviewer is a maintainer) are in its substance
    items = [_item(i, data.known_refs, data, topics=_topic_list(i, report), status=i["status"], selection=selection(i))
             for i in data.key_changes]
    return _pack(report, items=items)


def activity_facts(report: DayReport, data: DayData, focus_area: FocusArea) -> dict:
    a = data.activity
    counts = {**report.counts, "pr_authors": a["pr_authors"], "stale_closed": a["stale_closed"],
              "comments": a["comments"], "reviews": a["reviews"], "people": a["humans"]}
    # rounded so that float noise cannot change the cache key of the same day
    metrics = {**{
        k: round(v, 4) if isinstance(v, float) else v
        for k, v in a["extra"] if isinstance(v, (int, float)) and not isinstance(v, bool)
    }, **_rate(data)}
    notes = None
    if not has_comment_threads(data):
        counts = {k: v for k, v in counts.items() if k not in _THREAD_FIGURES}
        metrics = {k: v for k, v in metrics.items() if k not in _THREAD_FIGURES}
        notes = [NO_THREADS_NOTE]
    return _pack(report, counts=counts, metrics=metrics, notes=notes,
                 top_authors=[{"author": plain_inline(n, 80), "prs": k} for n, k in a["top_authors"]])


def notable_facts(report: DayReport, data: DayData, focus_area: FocusArea) -> dict:
    return _pack(report, items=[_item(i, data.known_refs, data, topics=_topic_list(i, report),
                                      selection=selection(i)) for i in data.notable])


def _rate(data: DayData) -> dict:
    rate = data.activity["merge_rate"]
    return {} if rate is None else {"merge_rate": round(rate, 4)}


FACTS = {
    "summary": summary_facts,
    "focus": focus_facts,
    "discussions": discussions_facts,
    "topics": topics_facts,
    "key_changes": key_changes_facts,
    "activity": activity_facts,
    "notable": notable_facts,
}


# what fit_budget leaves out of an item, least telling first: the lowest-ranked item loses all of these before
# the next one up loses any
_TRIM_ORDER = ("thread", "tests", "reviews", "changes", "purpose", "claims", "comment_excerpts", "fixes")
TRIMMED_NOTE = "details of the lowest-ranked items were left out to keep the prompt short"


def pack_tokens(facts: dict) -> int:
    """The tokens a pack costs in its prompt (``prompts.estimate_tokens`` of the JSON the prompt prints)."""
    return estimate_tokens(json.dumps(facts, ensure_ascii=False, sort_keys=True, indent=1, default=str))


def fit_budget(facts: dict, budget: int = PACK_TOKENS) -> dict:
    """``facts`` within ``budget`` tokens: the details of the last (lowest-ranked) item go first, in
    ``_TRIM_ORDER``, then the next item's; an item itself, its title and its computed figures always stay, and
    nothing is cut inside a sentence. A pack within the budget comes back as it was."""
    if pack_tokens(facts) <= budget or not facts.get("items"):
        return facts
    items = [dict(i) for i in facts["items"]]
    out = {**facts, "items": items, "notes": [*(facts.get("notes") or []), TRIMMED_NOTE]}
    for item in reversed(items):
        for key in _TRIM_ORDER:
            if key in item:
                del item[key]
                if pack_tokens(out) <= budget:
                    return out
    return out


def facts_packs(report: DayReport, focus_area: FocusArea) -> dict[str, dict]:
    """Each section's pack for one day in one language, from the rows the report was built from, each within
    the prompt budget."""
    return {name: fit_budget(build(report, report.data, focus_area)) for name, build in FACTS.items()}
