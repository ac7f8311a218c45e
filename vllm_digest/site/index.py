"""The site's index page: per repository, every rendered day, newest first."""

from __future__ import annotations

from vllm_digest.core.config.settings import Settings
from vllm_digest.report.charts import COUNT_COLORS, count_series, counts_chart
from vllm_digest.report.render import relative_href
from vllm_digest.site.catalog import ReportDay, ReportWeek
from vllm_digest.site.pages import render_page


def _day_row(settings: Settings, day: ReportDay) -> dict:
    return {
        "day": day.day,
        # what happened, in the site's first language (or any the file has)
        "headline": day.headline.get(settings.languages[0]) or next(iter(day.headline.values()), ""),
        "complete": day.complete,
        "stale": day.stale,
        "counts": [{"value": day.counts[key], "color": color} for key, color in COUNT_COLORS.items()],
        "pages": [
            {"lang": lang, "label": settings.catalog(lang)("language.name"), "href": relative_href(page, settings.site_dir)}
            for lang, page in day.pages.items()
        ],
    }


def _week_row(settings: Settings, week: ReportWeek) -> dict:
    return {
        "label": f"{week.week} ~ {week.last_day}",
        "complete": week.complete,
        "counts": [{"value": week.counts[key], "color": color} for key, color in COUNT_COLORS.items()],
        "pages": [
            {"lang": lang, "label": settings.catalog(lang)("language.name"), "href": relative_href(page, settings.site_dir)}
            for lang, page in week.pages.items()
        ],
    }


def index_context(settings: Settings, catalog: dict, weekly: dict | None = None) -> dict:
    t = settings.catalog(settings.languages[0])
    repos = []
    for repo, days in catalog.items():
        history = [{"day": d.day, **d.counts} for d in days]
        repos.append({
            "name": settings.display_name(repo),
            "full_name": repo.full_name,
            "anchor": repo.slug,
            "days": [_day_row(settings, d) for d in days],
            "weeks": [_week_row(settings, w) for w in (weekly or {}).get(repo, [])],
            # the newest day's trailing 30 days, drawn like a report's counts chart
            "chart": counts_chart(history, days[0].day, days[0].counts, t, caption=t("site.chart_counts"))
            if days else None,
        })
    return {
        "t": t.tree,
        "names": " · ".join(r["name"] for r in repos),
        "repos": repos,
        "series": count_series(t),
        "total_days": sum(len(r["days"]) for r in repos),
        "feed": "feed.xml",
    }


def index_html(settings: Settings, catalog: dict, weekly: dict | None = None) -> str:
    return render_page("site_index.html.j2", **index_context(settings, catalog, weekly))
