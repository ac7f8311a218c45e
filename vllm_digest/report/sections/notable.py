"""💡 Notable issues: the fitted model's selected issues, with their labels, comments and topics."""

from __future__ import annotations

from vllm_digest.core.text.markdown_safe import plain_inline
from vllm_digest.report.day.data import DayData
from vllm_digest.report.day.model import Group
from vllm_digest.report.sections.entries import Body, Wording, entry, quoted_list, topic_line, touches


def notable_body(data: DayData, w: Wording) -> Body:
    t = w.t
    if not data.notable:
        return Body(t("notable.none"))
    entries = []
    for i in data.notable:
        labels = quoted_list([(x, None) for x in i["labels"] or []], ",", None, 40) or [t("item.no_labels")]
        reason = plain_inline(topic_line(i, w), 120)
        meta = [*labels, t("notable.comments", comments=int(i["comments_total"] or 0)),
                f" · {reason}" if reason else "", touches(i, w)]
        entries.append(entry(i, w, meta))
    return Body(t("notable.lead"), (Group("", tuple(entries)),))
