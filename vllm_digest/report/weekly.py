"""The weekly digest: one page per whole week (Monday to Sunday) and language, read from the daily marts.

It fetches nothing and ranks nothing of its own: the counts are sums of ``mart_daily_counts``, the
topics are ordered by the surprise ``mart_topic_daily`` scored each day, the key changes are the ones
the daily reports featured (``mart_section_picks``) and merged within the week, and the follow-up outcomes
count what ``mart_follow_ups`` recorded for the items the week's reports featured. Each query
(``sql/report_weekly_*.sql``) runs once for all the weeks of a run.

Files: ``reports/<owner>/<name>/weekly/<monday>.<lang>.md`` and ``.html``, and ``<monday>.json`` that the
site's index and feed read. Links to the daily reports are relative (``../<day>.<lang>.html``), so they
work on disk and on the published site, which keeps the same layout.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Sequence

import duckdb

from vllm_digest.core.calendar import week_days, window_for_day
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.files import atomic_write_text
from vllm_digest.core.sqlmodel.run_days import load_run_days, repo_days
from vllm_digest.core.taxonomy.loader import taxonomy_from_settings
from vllm_digest.core.text.markdown_safe import md_inline, plain_inline
from vllm_digest.core.vocabulary import SET_NAMES
from vllm_digest.report.build import item_url, local_label
from vllm_digest.report.charts import COUNT_COLORS
from vllm_digest.report.day.queries import rows
from vllm_digest.report.render import environment, page_links, relative_href, render_html_template, report_dir
from vllm_digest.report.sections.shared import author_name

WEEKLY_DIR = "weekly"
# the weekly queries: report_weekly_<name>.sql
WEEKLY_QUERIES = ("counts", "topics", "key_changes", "follow_ups")
# the moves of mart_follow_ups, in its follow_rank order (the weekly outcomes list them so)
MOVES = ("merged", "closed", "reopened", "linked_pr_merged", "linked_pr_opened", "maintainer_response", "comment_burst")
# The tables the weekly digest reads: its asset declares them as inputs.
WEEKLY_TABLES_READ = ("mart_daily_counts", "mart_topic_daily", "mart_section_picks", "mart_follow_ups", "mart_five_sets")


@dataclasses.dataclass(frozen=True)
class CountRow:
    key: str
    label: str
    color: str
    this: int
    previous: int

    @property
    def delta(self) -> str:
        d = self.this - self.previous
        return f"+{d}" if d > 0 else str(d)


@dataclasses.dataclass(frozen=True)
class Line:
    """One line of a list: our text, with an optional link and an untrusted title (plain and Markdown-safe)."""

    text: str
    title: str = ""
    text_md: str = ""  # the text with its untrusted parts made Markdown-safe (empty: text is all ours)
    title_md: str = ""
    url: str = ""
    ref: str = ""


@dataclasses.dataclass(frozen=True)
class WeekReport:
    repo: str
    display_name: str
    week: str  # the Monday
    last_day: str  # the Sunday
    language: str
    window_label: str
    window_start: str  # ISO 8601 with the offset of the configured timezone
    window_end: str
    days_held: int
    previous_days_held: int
    complete: bool
    counts: tuple[CountRow, ...]
    topics: tuple[Line, ...]
    key_changes: tuple[Line, ...]
    featured: int
    moved: int
    outcome_lead: str
    outcomes: tuple[Line, ...]
    days: tuple[tuple[str, str, str], ...]  # (day, md href, html href) of the week's daily reports
    catalog: Any = dataclasses.field(default=None, repr=False, compare=False)


def weekly_dir(settings: Settings, repo: RepoRef) -> Path:
    return report_dir(settings, repo) / WEEKLY_DIR


def query_weeks(con: duckdb.DuckDBPyConnection, repo: str, weeks: Sequence[str],
                picks: dict) -> dict[str, dict[str, list[dict]]]:
    """Every weekly query once for all ``weeks``: week -> query -> its rows; ``picks``: the taxonomy's
    selection parameters (``Taxonomy.picks``: as many topics a week as the daily section lists at most, and the
    merged key changes a week lists)."""
    # the run's days are the weeks' days; each query groups them back into their weeks (Mondays)
    load_run_days(con, repo_days(repo, [d for w in sorted(weeks) for d in week_days(w)]))
    values = {"repo": repo, "topic_limit": picks["topic_limit"], "weekly_changes": picks["weekly_changes"]}
    out: dict[str, dict[str, list[dict]]] = {w: {q: [] for q in WEEKLY_QUERIES} for w in weeks}
    for name in WEEKLY_QUERIES:
        for r in rows(con, f"weekly_{name}", values):
            out[r["week"].isoformat()][name].append(r)
    return out


def _counts(found: list[dict], t) -> tuple[tuple[CountRow, ...], dict, dict]:
    by = {r["which"]: r for r in found}
    this, prev = by.get("this", {}), by.get("previous", {})
    rows_ = tuple(CountRow(k, t(f"report.count.{k}"), COUNT_COLORS[k], int(this.get(k) or 0), int(prev.get(k) or 0))
                  for k in SET_NAMES)
    return rows_, this, prev


def build_week(settings: Settings, repo: RepoRef, week: str, found: dict[str, list[dict]], language: str) -> WeekReport:
    t = settings.catalog(language)
    names = t("language.names")
    days = week_days(week)
    counts, this, prev = _counts(found["counts"], t)
    topics = tuple(
        Line(t("weekly.topic", name=plain_inline(r.get(f"topic_{names}") or r["topic_id"], 80),
               items=r["items"], listed_days=r["listed_days"], days=r["days_with_items"],
               surprise="—" if r["peak_surprise"] is None else f"{float(r['peak_surprise']):+.1f}"))
        for r in found["topics"]
    )
    changes = tuple(
        Line(t("weekly.change", merged_on=r["merged_on"].isoformat(), author=author_name(r["author_login"])),
             text_md=t("weekly.change", merged_on=r["merged_on"].isoformat(),
                       author=md_inline(author_name(r["author_login"]), 80)),
             title=plain_inline(r["title"], 200), title_md=md_inline(r["title"], 200),
             url=item_url(settings, repo, "pr", r["number"]), ref=t("item.pr", number=r["number"]))
        for r in found["key_changes"]
    )
    outcome = {r["outcome"]: int(r["items"]) for r in found["follow_ups"]}
    outcomes = tuple(Line(t("weekly.outcome", move=t(f"weekly.move.{m}"), items=outcome[m]))
                     for m in MOVES if outcome.get(m))
    start, end = window_for_day(days[0], settings).start, window_for_day(days[-1], settings).end
    return WeekReport(
        repo=repo.full_name,
        display_name=settings.display_name(repo),
        week=week,
        last_day=days[-1],
        language=language,
        window_label=f"{local_label(start, settings)} ~ {local_label(end, settings)}",
        window_start=start.astimezone(settings.tz).isoformat(),
        window_end=end.astimezone(settings.tz).isoformat(),
        days_held=int(this.get("days_held") or 0),
        previous_days_held=int(prev.get("days_held") or 0),
        complete=bool(this.get("complete", True)) and int(this.get("days_held") or 0) == len(days),
        counts=counts,
        topics=topics,
        key_changes=changes,
        featured=outcome.get("featured", 0),
        moved=outcome.get("moved", 0),
        outcome_lead=t("weekly.outcome_lead", featured=outcome.get("featured", 0), moved=outcome.get("moved", 0)),
        outcomes=outcomes,
        days=tuple((d, f"../{d}.{language}.md", f"../{d}.{language}.html") for d in days),
        catalog=t,
    )


def build_weeks(con: duckdb.DuckDBPyConnection, settings: Settings, repo: RepoRef,
                weeks: Sequence[str]) -> list[tuple[WeekReport, ...]]:
    """Every week of ``weeks``, each in ``settings.languages`` order."""
    found = query_weeks(con, repo.full_name, weeks, taxonomy_from_settings(settings).picks)
    return [tuple(build_week(settings, repo, w, found[w], lang) for lang in settings.languages) for w in sorted(weeks)]


def render_week_markdown(week: WeekReport) -> str:
    return environment(False).get_template("weekly.md.j2").render(week=week, t=week.catalog.tree)


def week_json(weeks: tuple[WeekReport, ...]) -> str:
    """``<monday>.json``: what the site lists of a week (its counts, wholeness and the outcome line)."""
    first = weeks[0]
    doc = {
        "repo": first.repo,
        "week": first.week,
        "last_day": first.last_day,
        "window": {"start": first.window_start, "end": first.window_end},
        "days_held": first.days_held,
        "complete": first.complete,
        "counts": {c.key: c.this for c in first.counts},
        "previous_counts": {c.key: c.previous for c in first.counts},
        "featured": first.featured,
        "moved": first.moved,
    }
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def write_week(settings: Settings, repo: RepoRef, weeks: tuple[WeekReport, ...]) -> dict[str, Path]:
    folder = weekly_dir(settings, repo)
    written: dict[str, Path] = {}
    for week in weeks:
        lang = week.language
        written[f"{lang}.md"] = atomic_write_text(folder / f"{week.week}.{lang}.md", render_week_markdown(week))
        links = page_links(settings, repo, week.week, lang)
        links["index"] = relative_href(settings.site_dir / "index.html", folder)
        html = render_html_template("weekly.html.j2", week=week, t=week.catalog.tree, links=links)
        written[f"{lang}.html"] = atomic_write_text(folder / f"{week.week}.{lang}.html", html)
    written["json"] = atomic_write_text(folder / f"{weeks[0].week}.json", week_json(weeks))
    return written
