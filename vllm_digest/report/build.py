"""Build the day's reports, one ``DayReport`` per language, from the report SQL's rows.

``build_reports`` is the one way in: it runs the report queries once for every day of a run
(``queries.DayBatch``), reads each day's rows into a ``DayData`` (``data.gather``) and words it in every
configured language with that language's catalog and the taxonomy's focus area. Templates compute
nothing: every label, link and sentence they print is prepared here, in a stable order, so the same
tables give the same bytes.
"""

from __future__ import annotations

import datetime as dt
from typing import Callable

import duckdb
from markupsafe import Markup, escape

from vllm_digest.core.calendar import DayWindow, utc_offset_label
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.taxonomy.loader import FocusArea, TaxonomyError, taxonomy_from_settings
from vllm_digest.core.text.limits import HEADLINE_CHARS
from vllm_digest.core.text.markdown_safe import md_inline, plain_inline
from vllm_digest.core.vocabulary import SET_NAMES
from vllm_digest.report.charts import build_charts
from vllm_digest.report.day.data import DayData, gather
from vllm_digest.report.day.model import DayReport, Fetch, Listed, Window
from vllm_digest.report.day.queries import DayBatch
from vllm_digest.report.sections.entries import Wording
from vllm_digest.report.sections.registry import build_sections
from vllm_digest.report.sections.shared import author_name
from vllm_digest.report.sections.topics import day_headline
from vllm_digest.warehouse.checks import failing_checks



def local_label(moment: dt.datetime, settings: Settings) -> str:
    local = moment.astimezone(settings.tz)
    return f"{local:%Y-%m-%d %H:%M} ({utc_offset_label(local)})"


def item_url(settings: Settings, repo: RepoRef, kind: str, number: int) -> str:
    """Built from our own config, never from payload text."""
    path = "pull" if kind == "pr" else "issues"
    return f"{settings.github_web_url}/{repo.full_name}/{path}/{int(number)}"


def day_href(language: str) -> Callable[[str, str], str]:
    """(day, extension) -> an earlier day's report in ``language``, beside this one in the same folder
    (reports/<owner>/<name>/, as on disk and on the published site)."""
    return lambda day, ext: f"{day}.{language}.{ext}"


def featured_focus(settings: Settings) -> FocusArea:
    """The focus area the report's focus section features: the taxonomy's first."""
    taxonomy = taxonomy_from_settings(settings)
    if not taxonomy.focus_areas:
        raise TaxonomyError(f"taxonomy {str(taxonomy.path)!r}: the report's focus section needs a [[focus]] area")
    return taxonomy.focus_areas[0]


def _listed(row: dict, settings: Settings, repo: RepoRef) -> Listed:
    labels = list(row["labels"] or [])
    url = item_url(settings, repo, row["kind"], row["number"])
    title = plain_inline(row["title"])
    plain_labels = tuple(plain_inline(x, 80) for x in labels)
    return Listed(
        number=row["number"],
        kind=row["kind"],
        url=url,
        title=title,
        title_md=md_inline(row["title"]),
        labels=plain_labels,
        labels_md=",".join(md_inline(x, 80) for x in labels),
        author=author_name(row["author_login"]),
        author_md=md_inline(author_name(row["author_login"]), 80),
        time_label=local_label(row["occurred_at"], settings),
        occurred_at=row["occurred_at"].astimezone(dt.timezone.utc).isoformat(),
        # as report.html.j2 printed them field by field: ~180 rows a page, in every language, were two fifths
        # of the HTML's rendering time
        link_html=Markup(f'<a class="item ref" href="{escape(url)}">#{escape(row["number"])}</a> <bdi>{escape(title)}</bdi>'),
        labels_html=Markup(",".join(f"<bdi>{escape(x)}</bdi>" for x in plain_labels)),
    )


def listed_sets(data: DayData, settings: Settings, repo: RepoRef) -> dict[str, tuple[Listed, ...]]:
    """The day's five lists. They hold no word of any language, so a day's reports share them (a year's
    two languages built them twice: 130,000 items, a third of the report step's Python time)."""
    lists: dict[str, list[Listed]] = {name: [] for name in SET_NAMES}
    for row in data.members:
        lists[row["set_name"]].append(_listed(row, settings, repo))
    return {name: tuple(items) for name, items in lists.items()}


def build_day_report(data: DayData, settings: Settings, repo: RepoRef, window: DayWindow, language: str,
                     lists: dict[str, tuple[Listed, ...]] | None = None,
                     failed_checks: tuple[str, ...] = ()) -> DayReport:
    """One day in one language; ``lists``: the day's ``listed_sets`` when already built; ``failed_checks``:
    the warehouse checks the day fails (``warehouse.checks.failing_checks``)."""
    t = settings.catalog(language)

    def url_for(kind: str, number: int) -> str:
        return item_url(settings, repo, kind, number)

    charts = build_charts(data, t, url_for)
    if lists is None:
        lists = listed_sets(data, settings, repo)
    manifest = data.manifest
    wording = Wording(t, featured_focus(settings), url_for, day_href(language), taxonomy_from_settings(settings).picks)
    return DayReport(
        repo=repo.full_name,
        display_name=settings.display_name(repo),
        day=window.key,
        language=language,
        window=Window(
            start=window.start.astimezone(settings.tz).isoformat(),
            end=window.end.astimezone(settings.tz).isoformat(),
            start_label=local_label(window.start, settings),
            end_label=local_label(window.end, settings),
            timezone=settings.timezone,
        ),
        counts=dict(data.counts),
        fetch=Fetch(
            source=manifest["source"],
            semantics=manifest["semantics"],
            incomplete_reasons=tuple(plain_inline(r) for r in manifest["incomplete_reasons"] or []),
            complete=bool(manifest["complete"]),
            failed_checks=tuple(failed_checks),
        ),
        lists=lists,
        sections=build_sections(data, wording, charts),
        counts_chart=charts["counts"],
        headline=plain_inline(day_headline(data, wording), HEADLINE_CHARS),
        catalog=t,
        data=data,
    )


def build_reports(
    con: duckdb.DuckDBPyConnection, settings: Settings, repo: RepoRef, windows: list[DayWindow],
    progress: Callable[[int, int], None] | None = None,
) -> list[tuple[DayReport, ...]]:
    """Every day of ``windows``, each as its reports in ``settings.languages`` order. The report
    queries run once for all the days (a range run reads each table once, not once a day).
    ``progress(done, total)`` is called after each day (the asset logs it)."""
    batch = DayBatch(con, repo.full_name, [w.key for w in windows], taxonomy_from_settings(settings).picks)
    # the same checks as the warehouse step's, asked again here: a day that fails one says so in its report
    failed = failing_checks(con, repo.full_name, [w.key for w in windows])
    out = []
    for window in windows:
        data = gather(repo.full_name, window.key, batch.day(window.key))
        lists = listed_sets(data, settings, repo)
        out.append(tuple(build_day_report(data, settings, repo, window, lang, lists, failed[window.key])
                         for lang in settings.languages))
        if progress is not None:
            progress(len(out), len(windows))
    return out
