"""The day's report as typed, frozen values: what the templates print, and all they print.

``report/build.py`` makes one ``DayReport`` per day and language from the report SQL's rows
(``report/day/data.py``); the narrative may swap a section's body for a grounded LLM text
(``dataclasses.replace``), and ``report/render.py`` prints it with the language's catalog. Every
string here is already plain, one-line text (``plain_inline``) or, where it says so, safe Markdown.

A line that mixes our words with someone's (a login in "by alice · merged", labels, the most active
authors) is kept as *parts*: a ``str`` is ours, a ``Quote`` is untrusted, so the HTML page can isolate
each quote in ``<bdi>`` and a right-to-left login cannot reorder the words around it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Union

from markupsafe import Markup, escape


@dataclass(frozen=True)
class Quote:
    """An untrusted piece of a line of ours."""

    quote: str


@dataclass(frozen=True)
class Link:
    """A link of ours inside a line: to another of our own files, one address per format (a Markdown
    page links to the Markdown file beside it, an HTML page to the HTML one), both relative, so they
    work from a checkout, file:// and the published site alike."""

    text: str
    md_href: str
    html_href: str


Part = Union[str, Quote, Link]


def joined(parts: tuple[Part, ...]) -> str:
    """A line given as parts, as one string (JSON and feeds print it so)."""
    return "".join(p.quote if isinstance(p, Quote) else p.text if isinstance(p, Link) else p for p in parts)


def parts_html(parts: tuple[Part, ...]) -> Markup:
    """A line given as parts, as the HTML page prints it, every part escaped: each quote in <bdi>, so a
    right-to-left or mixed-direction login or label cannot reorder the words around it, each link of ours
    to its HTML address. Built here rather than by a template macro, whose call per line (~50,000 lines in
    a year's pages) cost more than the rest of a section's printing."""
    out = []
    for p in parts:
        if isinstance(p, Quote):
            out.append(f"<bdi>{escape(p.quote)}</bdi>")
        elif isinstance(p, Link):
            out.append(f'<a href="{escape(p.html_href)}">{escape(p.text)}</a>')
        else:
            out.append(escape(p))
    return Markup("".join(out))


@dataclass(frozen=True)
class Comment:
    """One voice of a thread: who, and the first sentence of what they wrote."""

    author: str
    text: str


@dataclass(frozen=True)
class Item:
    """One entry of a section: an issue or PR with its line, or (``number`` None) a fact of ours."""

    number: int | None
    kind: str | None
    ref: str
    url: str | None
    title: str
    gist: str = ""
    meta_parts: tuple[Part, ...] = ()
    quotes: tuple[Comment, ...] = ()
    # why the fitted selection model chose it (key changes, notable): a summary line and one line per part of
    # its score, largest first; the HTML page shows them in a <details>
    why: str = ""
    why_parts: tuple[str, ...] = ()

    @property
    def meta(self) -> str:
        return joined(self.meta_parts)

    @property
    def meta_html(self) -> Markup:
        return parts_html(self.meta_parts)


@dataclass(frozen=True)
class Group:
    heading: str
    items: tuple[Item, ...]
    # a list of short facts, which the HTML page lays out in columns
    compact: bool = False
    # why the group was chosen (a topic's score parts), one line of ours; the HTML page folds it in <details>
    why: str = ""
    why_label: str = ""


@dataclass(frozen=True)
class Rect:
    """A rectangle of a chart in SVG user units, with its tooltip: a day's bar, a point of a line, or a
    part of a stacked bar (which has its own colour and spans the row's height)."""

    x: str
    w: str
    title: str
    y: str = "0"
    h: str = ""
    color: str = ""
    current: bool = False  # the report's own day


@dataclass(frozen=True)
class ChartRow:
    """One small SVG of a chart with its label and value beside it; the fields a kind does not use stay empty."""

    label: str
    color: str
    value: str
    peak: str = ""
    bars: tuple[Rect, ...] = ()  # counts: one per day present
    arrow: str = ""  # topics: the trend, and the line through the days present
    points: str = ""
    area: str = ""
    markers: tuple[Rect, ...] = ()
    number: int | None = None  # hotness: the item and the stacked parts of its score
    url: str | None = None
    ref: str = ""
    segments: tuple[Rect, ...] = ()
    # the row's <rect> lines (bars, markers or segments) as the HTML prints them, escaped once
    # (report/charts.rects_html) rather than attribute by attribute in the template
    rects_html: Markup = Markup("")


@dataclass(frozen=True)
class Swatch:
    """A label with its colour: the header's counts of the day, a legend entry, a column of the site's table."""

    label: str
    color: str
    value: str = ""


@dataclass(frozen=True)
class Chart:
    kind: str  # counts | topics | hotness
    caption: str
    no_data: str
    peak_label: str
    rows: tuple[ChartRow, ...]
    view: str
    axis: tuple[str, str] | None = None  # first and last day of the x axis
    bar_h: str = ""
    legend: tuple[Swatch, ...] = ()
    today: tuple[Swatch, ...] = ()
    days_present: int = 0

    @property
    def empty(self) -> bool:
        return not self.rows


@dataclass(frozen=True)
class Section:
    id: str
    icon: str
    title: str
    source: str  # the table it was written from
    lead: str
    lead_parts: tuple[Part, ...]
    groups: tuple[Group, ...] = ()
    tail_label: str = ""
    tail: str = ""
    # the body as safe Markdown: the deterministic text above, or the narrative's (report/narration.py)
    markdown: str = ""
    # the narrative's body as text blocks for the HTML page (narrative/blocks.py), when it was chosen
    narrative: tuple[Mapping[str, Any], ...] | None = None
    body_source: str = "deterministic"  # or "llm" / "cache"
    chart: Chart | None = None
    chart_first: bool = False  # the chart stands above the body

    @property
    def anchor(self) -> str:
        return self.id.replace("_", "-")

    @property
    def lead_html(self) -> Markup:
        return parts_html(self.lead_parts)


@dataclass(frozen=True)
class Listed:
    """An item of one of the five lists (the appendix)."""

    number: int
    kind: str
    url: str
    title: str
    title_md: str
    labels: tuple[str, ...]
    labels_md: str
    author: str
    author_md: str
    time_label: str
    occurred_at: str
    # the HTML appendix's language-free parts, escaped once a day for every language's page (build._listed):
    # the link and title, and the labels (empty without labels, so the page prints the catalog's word)
    link_html: Markup = Markup("")
    labels_html: Markup = Markup("")


@dataclass(frozen=True)
class Window:
    start: str
    end: str
    start_label: str
    end_label: str
    timezone: str


@dataclass(frozen=True)
class Fetch:
    """How the day was fetched (its manifest): the footer and, when incomplete, a warning up top."""

    source: str  # sample | github
    semantics: str  # events | snapshot
    incomplete_reasons: tuple[str, ...]
    complete: bool
    # the warehouse checks the day fails at ERROR severity (their names): the report says so, delivery holds it
    failed_checks: tuple[str, ...] = ()


@dataclass(frozen=True)
class DayReport:
    """One day of one repository in one language."""

    repo: str
    display_name: str
    day: str
    language: str
    window: Window
    counts: Mapping[str, int]  # the five counts, in SET_NAMES order
    fetch: Fetch
    lists: Mapping[str, tuple[Listed, ...]]  # set name -> its items, newest first
    sections: tuple[Section, ...]
    counts_chart: Chart
    # the day's top story in one line of plain text (sections.day_headline; "" on a day with nothing to tell)
    headline: str = ""
    # the language's messages (i18n.Catalog): the templates' headings and labels
    catalog: Any = field(default=None, repr=False, compare=False)
    # what the report was built from (report/day/data.py): the narrative's facts packs read it
    data: Any = field(default=None, repr=False, compare=False)

    def section(self, section_id: str) -> Section:
        return next(s for s in self.sections if s.id == section_id)
