"""📊 Summary: the day's five counts and merge rate, its leading topics, and the focus area in one sentence."""

from __future__ import annotations

from vllm_digest.report.day.data import DayData
from vllm_digest.report.sections.entries import Body, Wording, local_name, percent
from vllm_digest.report.sections.shared import SUMMARY_TOPICS, employees_known, employer_tally


def summary_body(data: DayData, w: Wording) -> Body:
    t, area, c = w.t, w.focus, data.counts
    focus = data.focus
    known = employees_known(focus)
    topics = data.topics[:SUMMARY_TOPICS]
    text = t("summary.counts", **c, merge_rate=percent(data.activity["merge_rate"]))
    if topics:
        listed = t("language.list_sep").join(
            t("summary.topic", name=local_name(tp["name"], w, tp["topic"]), count=tp["count"]) for tp in topics
        )
        text += t("summary.topics", topics=listed)
    text += (
        t("summary.focus_none", focus=area.short) if not focus
        else t("summary.focus", focus=area.short, items=len(focus), vendor=area.vendor, **employer_tally(focus))
        if known
        else t("summary.focus_unknown", focus=area.short, items=len(focus), vendor=area.vendor)
    )
    return Body(text)
