"""Inline SVG charts for the HTML report, as plain geometry.

Every chart is a list of rows; each row is one small SVG drawn in a fixed
``VIEW_W x VIEW_H`` box that the page stretches to its width
(``preserveAspectRatio="none"``), with its label and value printed beside it
in HTML. Text never goes inside the SVG, so it stays legible on a phone
however the box is scaled. This module only computes numbers and plain
labels (from the language's catalog); the template places them and autoescaping takes care of the text,
but for each row's <rect> lines (``rects_html``), escaped here once: a page printed ~2,000 of their
attributes, each through Jinja's attribute lookup and escape, a third of its rendering time.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Callable, Iterable

from markupsafe import Markup, escape

from vllm_digest.core.i18n import Catalog
from vllm_digest.core.text.markdown_safe import plain_inline
from vllm_digest.core.vocabulary import SET_NAMES
from vllm_digest.report.day.data import DayData
from vllm_digest.report.day.model import Chart, ChartRow, Rect, Swatch
from vllm_digest.report.day.queries import HISTORY_DAYS
from vllm_digest.report.sections.shared import item_ref, trend_arrow

VIEW_W, VIEW_H = 300, 40
# headroom above the tallest bar, so its top edge and tooltip target stay visible
TOP_PAD = 4
SLOT = VIEW_W / HISTORY_DAYS
BAR = SLOT * 0.7

# one colour per count, in SET_NAMES order (labels: the catalog's chart.series)
COUNT_COLORS = dict(zip(SET_NAMES, ("#2563eb", "#7c3aed", "#0891b2", "#16a34a", "#dc2626")))
# keys of data.hotness_components()["parts"], in stacking order (labels: the catalog's chart.hotness_parts)
HOTNESS_H = 10
HOTNESS_COLORS = {
    "comments": "#2563eb", "participants": "#f59e0b", "reviews": "#16a34a",
    "reactions": "#db2777", "opened": "#0891b2", "closed": "#6b7280",
}
TOPIC_COLOR = "#ea580c"


# a chart's coordinates repeat (30 slots, the same heights day after day, both languages): a year's
# reports format ~550,000 of them, ~1,000 distinct
@functools.lru_cache(maxsize=4096)
def num(x: float) -> str:
    """A compact number for SVG attributes and labels: ``12``, ``7.5``, ``0.33``."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def rects_html(rects: Iterable[Rect], kind: str, fill: str = "", height: str = "") -> Markup:
    """A row's <rect> lines as the page prints them, each ending in a newline: ``counts`` bars (in the row's
    ``fill``, the report's own day opaque), ``topics`` markers (in ``fill``), ``hotness`` segments (each in its
    own colour, ``height`` tall). Coordinates are ``num`` output (digits, ``.``, ``-``) and print as they are;
    colours and tooltips are escaped like any value the template prints."""
    fill = escape(fill)
    if kind == "counts":
        lines = (f'<rect x="{r.x}" y="{r.y}" width="{r.w}" height="{r.h}" fill="{fill}" '
                 f'fill-opacity="{"1" if r.current else "0.45"}"><title>{escape(r.title)}</title></rect>\n' for r in rects)
    elif kind == "topics":
        lines = (f'<rect x="{r.x}" y="{r.y}" width="{r.w}" height="{r.h}" fill="{fill}">'
                 f'<title>{escape(r.title)}</title></rect>\n' for r in rects)
    else:
        height = escape(height)
        lines = (f'<rect x="{r.x}" y="0" width="{r.w}" height="{height}" fill="{escape(r.color)}">'
                 f'<title>{escape(r.title)}</title></rect>\n' for r in rects)
    return Markup("".join(lines))


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
        bars.append(Rect(
            x=num(i * SLOT + (SLOT - BAR) / 2), y=num(y), w=num(BAR), h=num(VIEW_H - y),
            title=f"{day}: {values[day]}", current=day == current,
        ))
    return bars


# A day's languages draw the same bars and lines (only the labels beside them differ): each row's geometry is
# drawn once a day, keyed by its values, and shared (Rect is frozen).
@functools.lru_cache(maxsize=64)
def _count_bars(values: tuple[tuple[str, int], ...], day: str, color: str) -> tuple[tuple[Rect, ...], Markup]:
    bars = tuple(_bars(dict(values), day_slots(day), day))
    return bars, rects_html(bars, "counts", color)


def _chart(kind: str, t: Catalog, rows: list[ChartRow], height: int = VIEW_H, caption: str | None = None,
           **extra) -> Chart:
    return Chart(kind=kind, caption=caption if caption is not None else t(f"chart.{kind}"),
                 no_data=t(f"chart.{kind}_none"), peak_label=t("chart.peak"), rows=tuple(rows),
                 view=f"0 0 {VIEW_W} {height}", **extra)


def count_series(t: Catalog) -> tuple[Swatch, ...]:
    """The five counts' labels and colours, as every counts chart and table shows them."""
    return tuple(Swatch(t(f"chart.series.{key}"), color) for key, color in COUNT_COLORS.items())


def counts_chart(history: list[dict], day: str, counts: dict[str, int], t: Catalog,
                 caption: str | None = None) -> Chart:
    """The five counts of the trailing days, one bar strip per count; absent days stay blank.
    ``today`` carries the day's own counts with the same labels and colours, for the page header."""
    slots = day_slots(day)
    present = [r for r in history if r["day"] in slots]
    series = count_series(t)
    rows = []
    if present:
        for key, swatch in zip(COUNT_COLORS, series):
            values = {r["day"]: int(r[key] or 0) for r in present}
            bars, rects = _count_bars(tuple(values.items()), day, swatch.color)
            rows.append(ChartRow(
                label=swatch.label, color=swatch.color, value=str(values.get(day, 0)),
                peak=str(max(values.values())), bars=bars, rects_html=rects,
            ))
    today = tuple(Swatch(s.label, s.color, str(counts[key])) for key, s in zip(COUNT_COLORS, series))
    return _chart("counts", t, rows, caption=caption, axis=(slots[0], slots[-1]), days_present=len(present),
                  today=today)


def _line(values: dict[str, int], slots: list[str]) -> dict:
    top = max(values.values(), default=0)
    points = [(i * SLOT + SLOT / 2, _y(values[d], top), d) for i, d in enumerate(slots) if d in values]
    line = " ".join(f"{num(x)},{num(y)}" for x, y, _ in points)
    area = (f"M{num(points[0][0])},{VIEW_H} L" + " L".join(f"{num(x)},{num(y)}" for x, y, _ in points)
            + f" L{num(points[-1][0])},{VIEW_H} Z")
    markers = tuple(Rect(x=num(x - 1.5), y=num(max(0.0, y - 1.5)), w="3", h="3", title=f"{d}: {values[d]}")
                    for x, y, d in points)
    return {"points": line, "area": area, "markers": markers}


@functools.lru_cache(maxsize=64)
def _topic_line(values: tuple[tuple[str, int], ...], day: str) -> dict:
    """A topic row's line, area and markers (see _count_bars), for ChartRow(**...): the cached dict is only unpacked."""
    line = _line(dict(values), day_slots(day))
    return {**line, "rects_html": rects_html(line["markers"], "topics", TOPIC_COLOR)}


def topic_chart(topics: list[dict], history: dict[str, list[tuple[str, int]]], day: str, t: Catalog) -> Chart:
    """Each of the day's top topics as a line of its item counts over the trailing days."""
    slots = day_slots(day)
    names = t("language.names")
    rows = []
    for topic in topics:
        values = {d: n for d, n in history.get(topic["topic"], []) if d in slots}
        values.setdefault(day, topic["count"])
        rows.append(ChartRow(
            label=plain_inline(topic["name"][names] or topic["topic"], 60),
            color=TOPIC_COLOR, value=str(topic["count"]), arrow=trend_arrow(topic),
            peak=str(max(values.values())), **_topic_line(tuple(values.items()), day),
        ))
    return _chart("topics", t, rows, axis=(slots[0], slots[-1]))


def hotness_chart(parts: list[dict], items: dict[int, dict], url_for: Callable[[str, int], str] | None,
                  t: Catalog) -> Chart:
    """The top items' hotness as stacked bars of its stored components, on one shared scale."""
    top = max((p["score"] for p in parts), default=0.0)
    rows = []
    for p in parts:
        item = items.get(p["number"], {})
        kind = item.get("kind", "issue")
        x = 0.0
        segments = []
        for key, color in HOTNESS_COLORS.items():
            value = p["parts"].get(key, 0.0)
            if value <= 0:
                continue
            w = value / top * VIEW_W
            segments.append(Rect(x=num(x), w=num(w), color=color,
                                    title=f"{t(f'chart.hotness_parts.{key}')}: {num(value)}"))
            x += w
        rows.append(ChartRow(
            label=plain_inline(item.get("title"), 120), color="", value=num(p["score"]),
            number=p["number"], url=url_for(kind, p["number"]), ref=item_ref(kind, p["number"], t),
            segments=tuple(segments), rects_html=rects_html(segments, "hotness", height=str(HOTNESS_H)),
        ))
    legend = tuple(Swatch(t(f"chart.hotness_parts.{key}"), color) for key, color in HOTNESS_COLORS.items())
    return _chart("hotness", t, rows, height=HOTNESS_H, bar_h=str(HOTNESS_H), legend=legend)


def build_charts(data: DayData, t: Catalog, url_for: Callable[[str, int], str]) -> dict[str, Chart]:
    """The three charts of a day's HTML report in one language, from what data.gather() read."""
    return {
        "counts": counts_chart(data.count_history, data.day, data.counts, t),
        "topics": topic_chart(data.topics, data.topic_history, data.day, t),
        "hotness": hotness_chart(data.hotness_parts, data.items, url_for, t),
    }
