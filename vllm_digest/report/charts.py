"""Inline SVG charts for the HTML report, as plain geometry.

Every chart is a list of rows; each row is one small SVG drawn in a fixed
``VIEW_W x VIEW_H`` box that the page stretches to its width
(``preserveAspectRatio="none"``), with its label and value printed beside it
in HTML. Text never goes inside the SVG, so it stays legible on a phone
however the box is scaled. This module only computes numbers and plain
labels; the template places them and autoescaping takes care of the text.
"""

from __future__ import annotations

import datetime as dt

from vllm_digest.report.queries import HISTORY_DAYS
from vllm_digest.report.markdown_safe import plain_inline
from vllm_digest.report.sections import item_ref, trend_arrow

VIEW_W, VIEW_H = 300, 40
# headroom above the tallest bar, so its top edge and tooltip target stay visible
TOP_PAD = 4
SLOT = VIEW_W / HISTORY_DAYS
BAR = SLOT * 0.7

COUNT_SERIES = (
    ("new_issues", {"zh": "新 Issue", "en": "New issues"}, "#2563eb"),
    ("closed_issues", {"zh": "关闭 Issue", "en": "Closed issues"}, "#7c3aed"),
    ("new_prs", {"zh": "新 PR", "en": "New PRs"}, "#0891b2"),
    ("merged_prs", {"zh": "合并 PR", "en": "Merged PRs"}, "#16a34a"),
    ("closed_unmerged_prs", {"zh": "关闭未合并 PR", "en": "Closed unmerged PRs"}, "#dc2626"),
)
# keys of data.hotness_components()["parts"], in stacking order
HOTNESS_H = 10
HOTNESS_SERIES = (
    ("comments", {"zh": "评论", "en": "comments"}, "#2563eb"),
    ("participants", {"zh": "参与者", "en": "participants"}, "#f59e0b"),
    ("reviews", {"zh": "评审", "en": "reviews"}, "#16a34a"),
    ("reactions", {"zh": "表情回应", "en": "reactions"}, "#db2777"),
    ("opened", {"zh": "本期新开", "en": "opened"}, "#0891b2"),
    ("closed", {"zh": "本期关闭/合并", "en": "closed/merged"}, "#6b7280"),
)
TOPIC_COLOR = "#ea580c"
NO_DATA = {
    "counts": {"zh": "暂无每日计数数据。", "en": "No daily counts yet."},
    "topics": {"zh": "本周期没有话题数据。", "en": "No topic data for this window."},
    "hotness": {"zh": "本周期没有热度数据。", "en": "No hotness data for this window."},
}


def num(x: float) -> str:
    """A compact number for SVG attributes and labels: ``12``, ``7.5``, ``0.33``."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def day_slots(day: str, days: int = HISTORY_DAYS) -> list[str]:
    """The ``days`` ISO dates ending at ``day``, oldest first: one chart column each."""
    end = dt.date.fromisoformat(day)
    return [(end - dt.timedelta(days=days - 1 - i)).isoformat() for i in range(days)]


def _y(value: float, top: float) -> float:
    return VIEW_H - (value / top) * (VIEW_H - TOP_PAD) if top else VIEW_H


def _bars(values: dict[str, int], slots: list[str], current: str) -> list[dict]:
    top = max(values.values(), default=0)
    bars = []
    for i, day in enumerate(slots):
        if day not in values:
            continue
        y = _y(values[day], top)
        bars.append({
            "x": num(i * SLOT + (SLOT - BAR) / 2), "y": num(y), "w": num(BAR), "h": num(VIEW_H - y),
            "title": f"{day}: {values[day]}", "current": day == current,
        })
    return bars


def _axis(slots: list[str]) -> dict:
    return {"start": slots[0], "end": slots[-1]}


def _chart(kind: str, rows: list[dict], height: int = VIEW_H, **extra) -> dict:
    return {"kind": kind, "empty": not rows, "no_data": NO_DATA[kind], "rows": rows,
            "view": f"0 0 {VIEW_W} {height}", **extra}


def counts_chart(history: list[dict], day: str, counts: dict[str, int]) -> dict:
    """The five counts of the trailing days, one bar strip per count; absent days stay blank.
    ``today`` carries the day's own counts with the same labels and colours, for the page header."""
    slots = day_slots(day)
    present = [r for r in history if r["day"] in slots]
    rows = []
    if present:
        for key, label, color in COUNT_SERIES:
            values = {r["day"]: int(r[key] or 0) for r in present}
            rows.append({
                "label": label, "color": color, "value": str(values.get(day, 0)),
                "peak": str(max(values.values())), "bars": _bars(values, slots, day),
            })
    today = [{"label": label, "color": color, "value": str(counts[key])} for key, label, color in COUNT_SERIES]
    return _chart("counts", rows, axis=_axis(slots), days_present=len(present), today=today)


def _line(values: dict[str, int], slots: list[str]) -> dict:
    top = max(values.values(), default=0)
    points = [(i * SLOT + SLOT / 2, _y(values[d], top), d) for i, d in enumerate(slots) if d in values]
    line = " ".join(f"{num(x)},{num(y)}" for x, y, _ in points)
    area = (f"M{num(points[0][0])},{VIEW_H} L" + " L".join(f"{num(x)},{num(y)}" for x, y, _ in points)
            + f" L{num(points[-1][0])},{VIEW_H} Z")
    markers = [{"x": num(x - 1.5), "y": num(max(0.0, y - 1.5)), "w": "3", "h": "3", "title": f"{d}: {values[d]}"}
               for x, y, d in points]
    return {"points": line, "area": area, "markers": markers}


def topic_chart(topics: list[dict], history: dict[str, list[tuple[str, int]]], day: str) -> dict:
    """Each of the day's top topics as a line of its item counts over the trailing days."""
    slots = day_slots(day)
    rows = []
    for t in topics:
        values = {d: n for d, n in history.get(t["topic"], []) if d in slots}
        values.setdefault(day, t["count"])
        rows.append({
            "label": {lang: plain_inline(t["name"][lang] or t["topic"], 60) for lang in ("zh", "en")},
            "color": TOPIC_COLOR, "value": str(t["count"]), "arrow": trend_arrow(t),
            "peak": str(max(values.values())), **_line(values, slots),
        })
    return _chart("topics", rows, axis=_axis(slots))


def hotness_chart(parts: list[dict], items: dict[int, dict], url_for) -> dict:
    """The top items' hotness as stacked bars of its stored components, on one shared scale."""
    top = max((p["score"] for p in parts), default=0.0)
    rows = []
    for p in parts:
        item = items.get(p["number"], {})
        kind = item.get("kind", "issue")
        x = 0.0
        segments = []
        for key, label, color in HOTNESS_SERIES:
            value = p["parts"].get(key, 0.0)
            if value <= 0:
                continue
            w = value / top * VIEW_W
            segments.append({"x": num(x), "w": num(w), "color": color,
                             "title": {lang: f"{label[lang]}: {num(value)}" for lang in label}})
            x += w
        rows.append({
            "number": p["number"], "url": url_for(kind, p["number"]),
            "ref": item_ref(kind, p["number"]),
            "title": plain_inline(item.get("title"), 120), "value": num(p["score"]), "segments": segments,
        })
    legend = [{"label": label, "color": color} for _, label, color in HOTNESS_SERIES]
    return _chart("hotness", rows, height=HOTNESS_H, bar_h=str(HOTNESS_H), legend=legend)


def build_charts(context: dict, data: dict, url_for) -> dict:
    """The three charts of a day's HTML report, from what data.gather() read."""
    return {
        "counts": counts_chart(data["count_history"], context["day"], context["counts"]),
        "topics": topic_chart(data["topics"], data["topic_history"], context["day"]),
        "hotness": hotness_chart(data["hotness_parts"], data["items"], url_for),
    }
