"""🔁 Follow-ups: what became of the items earlier reports featured, strongest move first."""

from __future__ import annotations

from vllm_digest.report.day.data import DayData
from vllm_digest.report.day.model import Group, Link, Quote
from vllm_digest.report.sections.entries import Body, Wording, entry
from vllm_digest.report.sections.shared import author_name, item_ref


def _move(row: dict, move: str, w: Wording) -> list:
    """One move in words; a maintainer's login stays a quote."""
    t = w.t
    if move in ("linked_pr_merged", "linked_pr_opened"):
        prs = row["linked_prs_merged"] if move == "linked_pr_merged" else row["linked_prs_opened"]
        refs = t("language.list_sep").join(item_ref("pr", n, t) for n in prs or [])
        return [t(f"follow_ups.move.{move}", prs=refs)]
    if move == "maintainer_response":
        return [t("follow_ups.move.maintainer_response"), Quote(author_name(row["responder"]))]
    if move == "comment_burst":
        return [t("follow_ups.move.comment_burst", comments=int(row["comments"] or 0))]
    return [t(f"follow_ups.move.{move}")]


def follow_ups_body(data: DayData, w: Wording) -> Body:
    t = w.t
    rows = list(data.follow_ups)
    window = w.picks["follow_up_days"]
    # like the trend's baseline: a look-back that could not read all its days says how many it read
    held = data.follow_up_days_read
    incomplete = held is not None and held < window
    if not rows:
        if incomplete:
            return Body(t("follow_ups.none_incomplete", days=window, held=held))
        return Body(t("follow_ups.none", days=window))
    entries = []
    for row in rows[:w.picks["follow_ups_shown"]]:  # one line each, the strongest moves first (follow_rank)
        moved: list = []
        for index, move in enumerate(row["moves"]):
            moved.extend(([t("follow_ups.sep")] if index else []) + _move(row, move, w))
        day = row["first_reported"]
        section = t(f"section.{row['first_section']}", focus=w.focus.name(w.names))
        meta = [*moved, t("follow_ups.first_reported", section=section),
                Link(day, w.day_href(day, "md"), w.day_href(day, "html"))]
        entries.append(entry(row, w, meta, gist=""))
    more = len(rows) - len(entries)
    lead = (t("follow_ups.lead_incomplete", count=len(rows), days=window, held=held, focus=w.focus.short) if incomplete
            else t("follow_ups.lead", count=len(rows), days=window, focus=w.focus.short))
    return Body(lead,
                 (Group("", tuple(entries)),),
                 t("follow_ups.more_label") if more > 0 else "", t("follow_ups.more", count=more) if more > 0 else "")
