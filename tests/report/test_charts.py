"""Chart geometry: bars and lines scale to the row's peak, absent days stay
blank, and no data gives an empty chart with its no-data text."""

from vllm_digest.core.i18n import load_catalog
from vllm_digest.report.charts import (
    VIEW_H, VIEW_W, counts_chart, day_slots, hotness_chart, num, rects_html, topic_chart,
)
from vllm_digest.report.day.model import Rect

COUNTS = {"new_issues": 4, "closed_issues": 0, "new_prs": 8, "merged_prs": 2, "closed_unmerged_prs": 1}
EN, ZH = load_catalog("en"), load_catalog("zh")


def _history(*days):
    return [{"day": d, **{k: v * (i + 1) for k, v in COUNTS.items()}} for i, d in enumerate(days)]


def test_day_slots_end_at_the_day():
    slots = day_slots("2026-03-01")
    assert (len(slots), slots[0], slots[-1]) == (30, "2026-01-31", "2026-03-01")


def test_counts_bars_scale_to_the_peak_and_skip_absent_days():
    # 03-20 is absent: its column stays empty
    history = _history("2026-03-19", "2026-03-21")
    chart = counts_chart(history, "2026-03-21", COUNTS, EN)
    assert not chart.empty and chart.days_present == 2
    prs = next(r for r in chart.rows if r.label == "New PRs")
    assert [b.title for b in prs.bars] == ["2026-03-19: 8", "2026-03-21: 16"]
    assert [b.current for b in prs.bars] == [False, True]
    assert prs.bars[1].y == "4" and prs.bars[1].h == num(VIEW_H - 4)  # the peak fills the box
    assert prs.bars[0].h == num((VIEW_H - 4) / 2)
    # columns 27 and 29 of 30 (0-based), one slot of 10 units each
    assert [float(b.x) for b in prs.bars] == [271.5, 291.5]
    closed = next(r for r in chart.rows if r.label == "Closed issues")
    assert {b.h for b in closed.bars} == {"0"} and closed.peak == "0"
    assert [t.value for t in chart.today] == ["4", "0", "8", "2", "1"]


def test_counts_without_history_is_empty_with_text():
    chart = counts_chart([], "2026-03-21", COUNTS, EN)
    assert chart.empty and chart.rows == ()
    assert chart.no_data == "No daily counts yet." and counts_chart([], "2026-03-21", COUNTS, ZH).no_data


def test_topic_line_has_one_point_per_day_present():
    topics = [{"topic": "t1", "name": {"zh": "话题<1>", "en": ""}, "count": 6, "rising": True,
               "baseline_incomplete": False, "ratio": 2.0, "trend": "up"}]
    history = {"t1": [("2026-03-19", 3), ("2026-03-21", 6), ("2025-01-01", 99)]}
    chart = topic_chart(topics, history, "2026-03-21", ZH)
    row = chart.rows[0]
    assert row.points == f"275,{num(VIEW_H - (VIEW_H - 4) / 2)} 295,4"
    assert row.area.startswith("M275,40 L275,") and row.area.endswith(" L295,40 Z")
    assert [m.title for m in row.markers] == ["2026-03-19: 3", "2026-03-21: 6"]
    assert (row.arrow, row.peak) == ("↑", "6")  # the 2025 point lies outside the 30 days
    # labels are plain text in the catalog's taxonomy names, the id when a name is empty; the template escapes them
    assert row.label == "话题<1>" and topic_chart(topics, history, "2026-03-21", EN).rows[0].label == "t1"
    assert topic_chart([], {}, "2026-03-21", EN).empty


def test_hotness_segments_stack_on_one_scale():
    parts = [
        {"number": 7, "score": 10.0, "parts": {"comments": 6.0, "participants": 4.0, "reviews": 0.0}},
        {"number": 8, "score": 5.0, "parts": {"comments": 1.0, "opened": 2.0, "closed": 2.0}},
    ]
    items = {7: {"kind": "pr", "title": "a"}, 8: {"kind": "issue", "title": "b"}}

    def url_for(kind, n):
        return f"https://github.com/o/r/{'pull' if kind == 'pr' else 'issues'}/{n}"

    chart = hotness_chart(parts, items, url_for, EN)
    top, second = chart.rows
    assert [(s.x, s.w) for s in top.segments] == [("0", "180"), ("180", "120")]
    assert sum(float(s.w) for s in top.segments) == VIEW_W
    assert sum(float(s.w) for s in second.segments) == VIEW_W / 2
    assert (top.url, top.ref, second.ref) == ("https://github.com/o/r/pull/7", "PR #7", "Issue #8")
    assert top.segments[1].title == "participants: 4"
    assert hotness_chart(parts, items, url_for, ZH).rows[0].segments[1].title == "参与者: 4"
    assert hotness_chart([], {}, None, EN).empty


def test_rects_html_prints_each_rect_escaped_as_the_template_did():
    """A row's <rect> lines come whole from charts.rects_html: attributes in the template's order, the day's
    own bar opaque, and colours and tooltips escaped (a catalog's label may hold & or a quote)."""
    bar, today = Rect(x="1.5", y="4", w="7", h="36", title="2026-03-20: 8"), Rect(
        x="11.5", y="0", w="7", h="40", title="2026-03-21: <9>", current=True)
    assert rects_html((bar, today), "counts", "#2563eb") == (
        '<rect x="1.5" y="4" width="7" height="36" fill="#2563eb" fill-opacity="0.45"><title>2026-03-20: 8</title></rect>\n'
        '<rect x="11.5" y="0" width="7" height="40" fill="#2563eb" fill-opacity="1"><title>2026-03-21: &lt;9&gt;</title></rect>\n')
    assert rects_html((bar,), "topics", '"red"') == (
        '<rect x="1.5" y="4" width="7" height="36" fill="&#34;red&#34;"><title>2026-03-20: 8</title></rect>\n')
    segment = Rect(x="0", w="180", color="#16a34a", title="Q&A: 6")
    assert rects_html((segment,), "hotness", height="10") == (
        '<rect x="0" y="0" width="180" height="10" fill="#16a34a"><title>Q&amp;A: 6</title></rect>\n')
    assert rects_html((), "counts", "#fff") == ""
    chart = counts_chart(_history("2026-03-19", "2026-03-21"), "2026-03-21", COUNTS, EN)
    assert all(row.rects_html.count("<rect ") == len(row.bars) for row in chart.rows)


def test_languages_share_a_days_geometry_and_label_it_their_own_way():
    """The counts and topics rows' bars and lines are drawn once a day (charts._count_bars, _topic_line) and
    shared by the day's languages; the labels beside them stay each language's."""
    history = _history("2026-03-19", "2026-03-21")
    en, zh = (counts_chart(history, "2026-03-21", COUNTS, t) for t in (EN, ZH))
    assert [r.bars for r in en.rows] == [r.bars for r in zh.rows] and en.rows[0].bars is zh.rows[0].bars
    assert [r.rects_html for r in en.rows] == [r.rects_html for r in zh.rows]
    assert en.rows[0].label != zh.rows[0].label
    topics = [{"topic": "t", "name": {"en": "Tool calling", "zh": "工具调用"}, "count": 6, "trend": "up"}]
    lines = {"t": [("2026-03-19", 3), ("2026-03-21", 6)]}
    a, b = (topic_chart(topics, lines, "2026-03-21", t).rows[0] for t in (EN, ZH))
    assert (a.points, a.area, a.markers, a.rects_html) == (b.points, b.area, b.markers, b.rects_html)
    assert a.rects_html.count("<rect ") == 2 and a.label != b.label
