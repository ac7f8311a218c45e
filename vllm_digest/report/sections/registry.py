"""The eight sections in their order: each one's icon, the table it is written from, its builder and its chart;
``build_sections`` makes the frozen ``Section``s of one day in one language."""

from __future__ import annotations

from dataclasses import replace

from vllm_digest.core.text.limits import LEAD_CHARS
from vllm_digest.core.text.markdown_safe import plain_inline
from vllm_digest.report.day.data import DayData
from vllm_digest.report.day.model import Chart, Section, joined
from vllm_digest.report.sections.activity import activity_body
from vllm_digest.report.sections.discussions import discussions_body
from vllm_digest.report.sections.entries import Wording, as_parts
from vllm_digest.report.sections.focus import focus_body
from vllm_digest.report.sections.follow_ups import follow_ups_body
from vllm_digest.report.sections.key_changes import key_changes_body
from vllm_digest.report.sections.markdown import doc_markdown
from vllm_digest.report.sections.notable import notable_body
from vllm_digest.report.sections.summary import summary_body
from vllm_digest.report.sections.topics import topics_body


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


BUILDERS = {
    "summary": summary_body, "focus": focus_body, "discussions": discussions_body, "topics": topics_body,
    "key_changes": key_changes_body, "follow_ups": follow_ups_body, "activity": activity_body, "notable": notable_body,
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
            lead=plain_inline(joined(as_parts(body.lead)), LEAD_CHARS), lead_parts=as_parts(body.lead),
            groups=body.groups, tail_label=body.tail_label, tail=plain_inline(body.tail, LEAD_CHARS),
            chart=charts[chart] if chart else None, chart_first=first,
        )
        sections.append(replace(section, markdown=doc_markdown(section, w.t("language.colon"))))
    return tuple(sections)
