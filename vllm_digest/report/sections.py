"""The seven analysis sections, written from the warehouse without an LLM.

Each section is first built as a *doc* per language -- a lead sentence, groups
of entries, an optional closing line -- of plain (untrusted-safe, one-line)
text. The Markdown string is rendered from that doc here, with md_inline on
every untrusted field; the HTML template renders the same doc with
autoescaping. So both formats say the same thing and templates compute nothing.

A line that mixes our words with someone's (a login in "by alice · merged",
labels, the most active authors) is also kept as *parts*: plain strings are
ours, ``{"quote": text}`` is untrusted, so the HTML page can isolate each quote
in ``<bdi>`` and a right-to-left login cannot reorder the words around it.
"""

from __future__ import annotations

from vllm_digest.report.gist import excerpt, first_sentence
from vllm_digest.report.markdown_safe import md_inline, plain_inline

FOCUS_TITLE = {"zh": "AMD/ROCm 生态相关动态", "en": "AMD/ROCm ecosystem"}
LANGS = ("zh", "en")

STATE = {
    "open": {"zh": "进行中", "en": "open"},
    "closed": {"zh": "已关闭", "en": "closed"},
    "merged": {"zh": "已合并", "en": "merged"},
}
KIND = {"pr": "PR", "issue": "Issue"}
LEAD_CHARS = 2000
# GitHub attributes what a deleted account wrote to its stand-in user "ghost"; some payloads carry no
# user at all for such an author. The warehouse keeps the null (nothing was received); the report
# prints the stand-in, so such an item reads like any other ("by ghost"), never "by " and a blank.
NO_USER_LOGIN = "ghost"


def author_name(login: str | None) -> str:
    """An author as the report prints it: one line of plain text, GitHub's stand-in when unknown."""
    return plain_inline(login or NO_USER_LOGIN, 80)


def item_state(item: dict) -> str:
    return "merged" if item.get("merged_at") else (item.get("state") or "open")


def state_label(item: dict, lang: str) -> str:
    state = item_state(item)
    return STATE.get(state, {}).get(lang, state)


def item_ref(kind: str, number: int) -> str:
    """``PR #12`` / ``Issue #12``, as every section and chart names an item."""
    return f"{KIND.get(kind, 'Issue')} #{number}"


def quote(text: str | None, limit: int) -> dict:
    """An untrusted piece of a line of ours."""
    return {"quote": plain_inline(text, limit)}


def joined(parts: str | list) -> str:
    """A line given as parts, as one string (Markdown, JSON and feeds print it so)."""
    if isinstance(parts, str):
        return parts
    return "".join(p["quote"] if isinstance(p, dict) else p for p in parts)


def _parts(parts: str | list) -> list:
    return ([parts] if parts else []) if isinstance(parts, str) else [p for p in parts if p]


def _entry(item: dict, url_for, meta: str | list, lang: str, quotes=None, gist: str | None = None) -> dict:
    return {
        "number": item["number"],
        "kind": item["kind"],
        "ref": item_ref(item["kind"], item["number"]),
        "url": url_for(item["kind"], item["number"]),
        "title": plain_inline(item["title"], 200),
        "gist": first_sentence(item.get("body")) if gist is None else plain_inline(gist, 200),
        "meta": joined(meta),
        "meta_parts": _parts(meta),
        "quotes": quotes or [],
    }


def _doc(lead: str | list, groups=None, tail_label: str = "", tail: str = "") -> dict:
    # a lead is a sentence or two of ours with at most a few 80-character logins: never near LEAD_CHARS,
    # so its parts need no cut of their own
    return {"lead": plain_inline(joined(lead), LEAD_CHARS), "lead_parts": _parts(lead), "groups": groups or [],
            "tail_label": tail_label, "tail": plain_inline(tail, LEAD_CHARS)}


def doc_markdown(doc: dict) -> str:
    """One doc as Markdown; every line of it is ours up to the first untrusted byte."""
    out = [md_inline(doc["lead"], LEAD_CHARS)] if doc["lead"] else []
    for group in doc["groups"]:
        out.append("")
        if group["heading"]:
            out.append(f"**{md_inline(group['heading'], 200)}**")
        for e in group["entries"]:
            parts = []
            if e.get("url"):
                parts.append(f"[{e['ref']}]({e['url']})")
            if e["title"]:
                parts.append(md_inline(e["title"], 200))
            line = "- " + " ".join(parts)
            if e["gist"]:
                line += f" — {md_inline(e['gist'], 200)}"
            if e["meta"]:
                line += f" ({md_inline(e['meta'], 300)})"
            out.append(line)
            for q in e["quotes"]:
                out.append(f"  - {md_inline(q['author'], 80)}: “{md_inline(q['text'], 160)}”")
    if doc["tail"]:
        out.append("")
        out.append(f"**{doc['tail_label']}**：{md_inline(doc['tail'], LEAD_CHARS)}" if doc["tail_label"] == "小结"
                   else f"**{doc['tail_label']}**: {md_inline(doc['tail'], LEAD_CHARS)}")
    return "\n".join(out)


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{round(100 * x)}%"


def _summary(ctx: dict, data: dict, lang: str) -> dict:
    c = ctx["counts"]
    rate = _pct(data["activity"]["merge_rate"])
    focus = data["focus"]
    vendor = sum(1 for i in focus if i["vendor"])
    topics = data["topics"][:3]
    if lang == "zh":
        text = (
            f"本周期共新增 {c['new_issues']} 个 Issue、关闭 {c['closed_issues']} 个 Issue；"
            f"新增 {c['new_prs']} 个 PR，合并 {c['merged_prs']} 个，"
            f"另有 {c['closed_unmerged_prs']} 个 PR 未合并即关闭（合并率 {rate}）。"
        )
        if topics:
            text += "热门话题：" + "、".join(f"{t['name']['zh'] or t['topic']}（{t['count']} 项）" for t in topics) + "。"
        text += (
            f"AMD/ROCm 相关条目 {len(focus)} 项，其中 AMD 员工提交 {vendor} 项。" if focus
            else "本周期没有 AMD/ROCm 相关条目。"
        )
    else:
        text = (
            f"This window saw {c['new_issues']} new and {c['closed_issues']} closed issues, "
            f"{c['new_prs']} new PRs, {c['merged_prs']} merged and "
            f"{c['closed_unmerged_prs']} closed without merge (merge rate {rate})."
        )
        if topics:
            text += " Top topics: " + ", ".join(f"{t['name']['en'] or t['topic']} ({t['count']} items)" for t in topics) + "."
        text += (
            f" {len(focus)} items concern AMD/ROCm, {vendor} of them by AMD employees." if focus
            else " No item concerns AMD/ROCm."
        )
    return _doc(text)


def focus_tally(focus: list[dict]) -> dict[str, int]:
    """The focus area's closing counts: items, by vendor employees, merged, mentioning Quark."""
    return {
        "items": len(focus),
        "by_amd_employees": sum(1 for i in focus if i["vendor"]),
        "merged": sum(1 for i in focus if item_state(i) == "merged"),
        "quark": sum(1 for i in focus if "quark" in f"{i['title']} {i['body'] or ''}".lower()),
    }


def _focus(ctx, data, lang, url_for) -> dict:
    focus = data["focus"]
    if not focus:
        return _doc(
            "本周期没有与 AMD/ROCm 相关的 Issue 或 PR（含 Quark）。" if lang == "zh"
            else "No issue or PR of this window concerns AMD/ROCm (Quark included)."
        )
    names = {i["theme"]: i["theme_name"] for i in focus}
    counts = {t: sum(1 for i in focus if i["theme"] == t) for t in names}
    # largest theme first; the taxonomy decides what a theme is, not this module
    order = sorted(names, key=lambda t: (-counts[t], t))
    groups = []
    for theme in order:
        members = [i for i in focus if i["theme"] == theme]
        entries = []
        for i in members:
            tag = (" (AMD 员工)" if lang == "zh" else " (AMD employee)") if i["vendor"] else ""
            meta = [quote(author_name(i["author_login"]), 80), f"{tag} · {state_label(i, lang)}"]
            entries.append(_entry(i, url_for, meta, lang))
        groups.append({"heading": names[theme][lang] or theme, "entries": entries})
    tally = focus_tally(focus)
    vendor, merged, quark = tally["by_amd_employees"], tally["merged"], tally["quark"]
    if lang == "zh":
        parts = "、".join(f"{names[t]['zh'] or t} {counts[t]} 项" for t in order)
        tail = (f"共 {len(focus)} 项 AMD/ROCm 相关条目（{parts}）；AMD 员工提交 {vendor} 项；已合并 {merged} 项；"
                + (f"Quark 相关 {quark} 项。" if quark else "本周期没有 Quark 相关条目。"))
        return _doc(f"本周期有 {len(focus)} 项与 AMD/ROCm 相关的 Issue 或 PR，按主题分组如下。", groups, "小结", tail)
    parts = ", ".join(f"{names[t]['en'] or t} {counts[t]}" for t in order)
    tail = (f"{len(focus)} AMD/ROCm items ({parts}); {vendor} by AMD employees; {merged} merged; "
            + (f"{quark} concern Quark." if quark else "none concerns Quark."))
    return _doc(f"{len(focus)} issues and PRs of this window concern AMD/ROCm, grouped by theme.", groups, "Summary", tail)


def thread_voices(data: dict, number: int, quotes: int = 3) -> tuple[list[str], list[dict]]:
    """The window's non-bot participants of an item's thread, and the first few of their comments."""
    thread = data["comments"].get(number, [])
    people = sorted({c["author_login"] for c in thread if c["author_login"] and not c["author_is_bot"]})
    humans = [c for c in thread if not c["author_is_bot"] and c["body"]]
    return people, [{"author": author_name(c["author_login"]), "text": excerpt(c["body"])} for c in humans[:quotes]]


def _discussions(ctx, data, lang, url_for) -> dict:
    hot = data["hot"]
    if not hot:
        return _doc("本周期没有热门讨论。" if lang == "zh" else "No item of this window drew discussion.")
    entries = []
    for i in hot:
        people, quotes = thread_voices(data, i["number"])
        n = int(i["comments_total"] or 0)
        st = state_label(i, lang)
        meta = (f"{n} 条评论 · 本周期 {len(people)} 位参与者 · 状态：{st}" if lang == "zh"
                else f"{n} comments · {len(people)} participants this window · {st}")
        entries.append(_entry(i, url_for, meta, lang, quotes))
    lead = ("按热度（mart_item_hotness）排列的讨论，含旧条目：" if lang == "zh" else "The hottest discussions by mart_item_hotness, old ones included:")
    return _doc(lead, [{"heading": "", "entries": entries}])


def trend_arrow(t: dict) -> str:
    """↑ rising, ↓ below its trailing mean, → otherwise; none when the baseline is incomplete: an
    arrow against missing days would depend on which days happened to be built first."""
    if t["baseline_incomplete"]:
        return ""
    if t["rising"]:
        return "↑"
    if t["ratio"] is not None and t["ratio"] < 1:
        return "↓"
    return "→"


def baseline_note(t: dict, lang: str) -> str:
    """How the topic compares with its trailing days, or how many of them the baseline lacks."""
    window = t.get("baseline_window")  # None: a row built before the column existed
    if t["baseline_incomplete"]:
        if window is None:
            return "（基线不完整）" if lang == "zh" else " (baseline incomplete)"
        held = int(t.get("baseline_days") or 0)
        return (f"（基线不完整：前 {window} 日中仅有 {held} 日的数据）" if lang == "zh"
                else f" (baseline incomplete: {held} of {window} days)")
    if t["ratio"] is None:
        return ""
    if window is None:
        return f"（前期均值的 {t['ratio']:.2f} 倍）" if lang == "zh" else f" ({t['ratio']:.2f}× the trailing mean)"
    return (f"（前 {window} 日均值的 {t['ratio']:.2f} 倍）" if lang == "zh"
            else f" ({t['ratio']:.2f}× the trailing {window}-day mean)")


def _topics(ctx, data, lang, url_for) -> dict:
    if not data["topics"]:
        return _doc("本周期没有识别出话题。" if lang == "zh" else "No topic was found in this window.")
    groups = []
    for t in data["topics"]:
        items = [data["items"][n] for n in t["numbers"] if n in data["items"]]
        note = baseline_note(t, lang)
        # the arrow separates name and count; without one (incomplete baseline) a middle dot does
        name = f"{t['name'][lang] or t['topic']} {trend_arrow(t) or '·'}"
        heading = f"{name} {t['count']} 项{note}" if lang == "zh" else f"{name} {t['count']} items{note}"
        groups.append({"heading": heading, "entries": [_entry(i, url_for, "", lang, gist="") for i in items]})
    window = next((t["baseline_window"] for t in data["topics"] if t.get("baseline_window")), None)
    days = (f"前 {window} 日" if lang == "zh" else f"the trailing {window} days") if window else (
        "前期" if lang == "zh" else "the trailing days")
    lead = (f"按条目数排列的今日话题，箭头为相对{days}的趋势：" if lang == "zh"
            else f"Today's topics by item count; arrows compare with {days}:")
    return _doc(lead, groups)


def _key_changes(ctx, data, lang, url_for) -> dict:
    changes = data["key_changes"]
    if not changes:
        return _doc("本周期没有重点变更。" if lang == "zh" else "No key change in this window.")
    entries = []
    for i in changes:
        size = ""
        if i.get("additions") is not None:
            size = f"+{i['additions']}/-{i['deletions'] or 0}, {i['changed_files'] or 0} files · "
        reason = plain_inline(i.get("reason"), 120)
        meta = [f"{size}{'by' if lang == 'en' else '作者'} ", quote(author_name(i["author_login"]), 80), f" · {reason}" if reason else ""]
        entries.append(_entry(i, url_for, meta, lang))
    lead = "本周期的重点变更（按 mart_key_changes 的得分排序）：" if lang == "zh" else "The key changes of this window, ranked by mart_key_changes:"
    return _doc(lead, [{"heading": "", "entries": entries}])


def _hours(x) -> str:
    return "—" if x is None else f"{float(x):.1f} h"


# mart_activity_daily columns shown under the activity paragraph: (column, zh label, en label, format);
# the rest of the row is kept for the narrative's facts pack, not printed
ACTIVITY_FACTS = (
    ("contributors", "非机器人参与者", "non-bot participants", str),
    ("issue_authors", "Issue 作者", "issue authors", str),
    ("pr_authors", "PR 作者", "PR authors", str),
    ("median_hours_to_merge", "合并耗时中位数", "median time to merge", _hours),
    ("p90_hours_to_merge", "合并耗时 P90", "p90 time to merge", _hours),
    ("first_time_contributors", "首次贡献者", "first-time contributors", str),
    ("opened_unanswered", "新条目中尚无人回应", "new items without a response", str),
    ("median_hours_to_first_response", "首次回应耗时中位数", "median time to first response", _hours),
    ("stale_closures", "带 stale 标签的关闭（含 PR）", "closings of stale-labelled items (issues and PRs)", str),
    ("stale_closures_by_bot", "其中由机器人关闭", "of them closed by a bot", str),
    ("bot_events", "机器人事件", "bot events", str),
)


def _activity_facts(daily: dict, lang: str) -> list[str]:
    facts = []
    for column, zh, en, fmt in ACTIVITY_FACTS:
        if daily.get(column) is not None:
            facts.append(f"{zh if lang == 'zh' else en}: {fmt(daily[column])}")
    return facts


def has_comment_threads(data: dict) -> bool:
    """False for a source without comment threads (the embedded sample), which must not
    read as "nobody commented"."""
    return dict(data["activity"]["extra"]).get("response_basis") != "no comment data"


def _activity(ctx, data, lang) -> dict:
    a = data["activity"]
    daily = dict(a["extra"])
    threads = has_comment_threads(data)
    top = a["top_authors"]
    if lang == "zh":
        talk = (f"窗口内有 {a['comments']} 条评论、{a['reviews']} 次评审" if threads
                else "本数据源不含评论与评审数据")
        text = [f"{a['pr_authors']} 位作者提交了 {ctx['counts']['new_prs']} 个新 PR",
                *(["，最活跃的是 "] + _listed(top, "、", "（{}）") if top else []),
                "；"
                f"合并率 {_pct(a['merge_rate'])}；关闭的 {ctx['counts']['closed_issues']} 个 Issue 中有 {a['stale_closed']} 个带 stale 标签；"
                f"{talk}，共 {a['humans']} 位非机器人参与者。"]
    else:
        talk = (f"{a['comments']} comments and {a['reviews']} reviews in the window" if threads
                else "this source holds no comments or reviews")
        text = [f"{a['pr_authors']} authors opened {ctx['counts']['new_prs']} new PRs",
                *([", most of them "] + _listed(top, ", ", " ({})") if top else []),
                "; "
                f"merge rate {_pct(a['merge_rate'])}; {a['stale_closed']} of {ctx['counts']['closed_issues']} closed issues carried the stale label; "
                f"{talk}; {a['humans']} non-bot people took part."]
    entries = [
        {"number": None, "ref": "", "url": None, "title": fact, "gist": "", "meta": "", "quotes": []}
        for fact in _activity_facts(daily, lang)
    ]
    # "compact": a list of short facts, which the HTML page lays out in columns
    return _doc(text, [{"heading": "", "entries": entries, "compact": True}] if entries else [])


def _listed(pairs, sep: str, suffix: str, limit: int = 80) -> list:
    """``[(untrusted name, value)]`` as parts: each name quoted, then ``suffix`` filled with its value."""
    out: list = []
    for index, (name, value) in enumerate(pairs):
        out.extend([sep] if index else [])
        out.extend([quote(name, limit), suffix.format(value) if suffix else ""])
    return out


def _notable(ctx, data, lang, url_for) -> dict:
    found = data["notable"]
    if not found:
        return _doc("本周期没有值得关注的未解决问题。" if lang == "zh" else "No open issue of this window stands out.")
    entries = []
    for i in found:
        labels = _listed([(x, None) for x in i["labels"] or []], ",", "", 40) or ["无标签" if lang == "zh" else "no labels"]
        reason = plain_inline(i.get("reason"), 120)
        n = int(i["comments_total"] or 0)
        meta = [*labels, f" · {n} 条评论" if lang == "zh" else f" · {n} comments", f" · {reason}" if reason else ""]
        entries.append(_entry(i, url_for, meta, lang))
    lead = "值得关注的问题（按 mart_notable_issues 的得分排序）：" if lang == "zh" else "Issues worth watching, ranked by mart_notable_issues:"
    return _doc(lead, [{"heading": "", "entries": entries}])


NAMES = ("summary", "focus", "discussions", "topics", "key_changes", "activity", "notable")


def build_sections(context: dict, data: dict, url_for) -> dict:
    """``{name: {"zh": markdown, "en": markdown, "doc_zh": doc, "doc_en": doc, "source": table,
    "body_source_zh": "deterministic", "narrative_zh": None, ...}}``."""
    builders = {
        "summary": lambda lang: _summary(context, data, lang),
        "focus": lambda lang: _focus(context, data, lang, url_for),
        "discussions": lambda lang: _discussions(context, data, lang, url_for),
        "topics": lambda lang: _topics(context, data, lang, url_for),
        "key_changes": lambda lang: _key_changes(context, data, lang, url_for),
        "activity": lambda lang: _activity(context, data, lang),
        "notable": lambda lang: _notable(context, data, lang, url_for),
    }
    sources = {
        "summary": "mart_daily_counts", "focus": "mart_focus_items", "discussions": "mart_item_hotness",
        "topics": "mart_topic_daily", "key_changes": "mart_key_changes",
        "activity": "mart_activity_daily", "notable": "mart_notable_issues",
    }
    out = {}
    for name in NAMES:
        section = {"source": sources[name]}
        for lang in LANGS:
            doc = builders[name](lang)
            section[f"doc_{lang}"] = doc
            section[lang] = doc_markdown(doc)
            # report/narration.py may replace the body with a grounded LLM text
            section[f"body_source_{lang}"] = "deterministic"
            section[f"narrative_{lang}"] = None
        out[name] = section
    out["focus"]["title_zh"], out["focus"]["title_en"] = FOCUS_TITLE["zh"], FOCUS_TITLE["en"]
    out["focus"]["count"] = len(data["focus"])
    return out


__all__ = ["build_sections", "doc_markdown", "trend_arrow"]
