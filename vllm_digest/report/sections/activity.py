"""📈 Activity: who wrote the day's PRs, how fast they merged, the talk in the window, and the day's facts."""

from __future__ import annotations

from vllm_digest.report.day.data import DayData
from vllm_digest.report.day.model import Group, Item
from vllm_digest.report.sections.entries import Body, Wording, percent, quoted_list
from vllm_digest.report.sections.shared import has_comment_threads


def _hours(x) -> str:
    return "—" if x is None else f"{float(x):.1f} h"


# mart_activity_daily columns shown under the activity paragraph, with their format (labels: the catalog's
# activity.facts); the rest of the row is kept for the narrative's facts pack, not printed
ACTIVITY_FACTS = (
    ("contributors", str), ("issue_authors", str), ("pr_authors", str),
    ("median_hours_to_merge", _hours), ("p90_hours_to_merge", _hours), ("first_time_contributors", str),
    ("opened_unanswered", str), ("median_hours_to_first_response", _hours), ("stale_closures", str),
    ("stale_closures_by_bot", str), ("bot_events", str),
)


def activity_body(data: DayData, w: Wording) -> Body:
    t, a, c = w.t, data.activity, data.counts
    daily = dict(a["extra"])
    talk = (t("activity.talk", comments=a["comments"], reviews=a["reviews"]) if has_comment_threads(data)
            else t("activity.talk_none"))
    top = a["top_authors"]
    text = [
        t("activity.authors", pr_authors=a["pr_authors"], new_prs=c["new_prs"]),
        *([t("activity.top"), *quoted_list(top, t("language.list_sep"), lambda n: t("activity.top_count", count=n))]
          if top else []),
        t("activity.rest", merge_rate=percent(a["merge_rate"]), closed_issues=c["closed_issues"],
          stale_closed=a["stale_closed"], talk=talk, humans=a["humans"]),
    ]
    facts = tuple(
        Item(None, None, "", None, f"{t(f'activity.facts.{column}')}: {fmt(daily[column])}")
        for column, fmt in ACTIVITY_FACTS if daily.get(column) is not None
    )
    return Body(text, (Group("", facts, compact=True),) if facts else ())
