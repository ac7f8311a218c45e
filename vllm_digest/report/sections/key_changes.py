"""🛠️ Key changes: the fitted model's selected PRs, each with its size, author, topics, code areas, the figure
its test result reports, the issues it closes and its reviews' verdicts."""

from __future__ import annotations

from vllm_digest.core.text.limits import FIGURE_CHARS, FIXED_TITLE_CHARS
from vllm_digest.core.text.markdown_safe import plain_inline
from vllm_digest.report.day.data import DayData
from vllm_digest.report.day.model import Group, Link, Quote
from vllm_digest.report.sections.entries import Body, Wording, entry, quoted_list, topic_line, touches
from vllm_digest.report.sections.shared import author_name, item_ref, review_verdicts


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


def key_changes_body(data: DayData, w: Wording) -> Body:
    t = w.t
    if not data.key_changes:
        return Body(t("key_changes.none"))
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
                meta += [t(key), *quoted_list([(r, None) for r in verdicts[state]], t("language.list_sep"), None)]
        entries.append(entry(i, w, meta))
    return Body(t("key_changes.lead"), (Group("", tuple(entries)),))
