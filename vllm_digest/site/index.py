"""The site's index page: per repository, every rendered day, newest first."""

from __future__ import annotations

from vllm_digest.report.charts import COUNT_SERIES, counts_chart
from vllm_digest.report.render import LANGUAGE_NAMES, relative_href, render_html_template
from vllm_digest.settings import Settings
from vllm_digest.site.catalog import ReportDay


def _day_row(settings: Settings, day: ReportDay) -> dict:
    return {
        "day": day.day,
        "complete": day.complete,
        "counts": [{"value": day.counts[key], "color": color} for key, _, color in COUNT_SERIES],
        "pages": [
            {"lang": lang, "label": LANGUAGE_NAMES[lang], "href": relative_href(page, settings.site_dir)}
            for lang, page in day.pages.items()
        ],
    }


def index_context(settings: Settings, catalog: dict) -> dict:
    repos = []
    for repo, days in catalog.items():
        history = [{"day": d.day, **d.counts} for d in days]
        repos.append({
            "name": settings.display_name(repo),
            "full_name": repo.full_name,
            "anchor": repo.slug,
            "days": [_day_row(settings, d) for d in days],
            # the newest day's trailing 30 days, drawn like a report's counts chart
            "chart": counts_chart(history, days[0].day, days[0].counts) if days else None,
        })
    return {
        "lang": settings.languages[0],
        "names": " · ".join(r["name"] for r in repos),
        "repos": repos,
        "series": [{"label": label, "color": color} for _, label, color in COUNT_SERIES],
        "total_days": sum(len(r["days"]) for r in repos),
        "feed": "feed.xml",
    }


def index_html(settings: Settings, catalog: dict) -> str:
    return render_html_template("site_index.html.j2", **index_context(settings, catalog))
