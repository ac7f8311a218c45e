"""💬 Hot discussions: every item mart_section_picks chose, with who spoke, the maintainers, the first answer's
delay and one excerpt per side."""

from __future__ import annotations

from vllm_digest.core.i18n import Catalog
from vllm_digest.report.day.data import DayData
from vllm_digest.report.day.model import Comment, Group
from vllm_digest.report.sections.entries import Body, Wording, entry, quoted_list, state_label
from vllm_digest.report.sections.shared import SideExcerpt, has_comment_threads, thread_digest


def side_quote(e: SideExcerpt, t: Catalog) -> Comment:
    """An excerpt as 💬 prints it: the author and the maintainers are named with their side."""
    label = {"author": "discussions.side_author", "maintainer": "discussions.side_maintainer"}
    return Comment(t(label[e.side], login=e.login) if e.side in label else e.login, e.text)


def discussions_body(data: DayData, w: Wording) -> Body:
    """The items people discussed in the window, every one mart_section_picks chose (at least the taxonomy's
    discussion_min_comments comments from discussion_min_people people), hottest first. A source without comment
    threads cannot tell a discussion from a monologue: one line says so and nothing is listed."""
    t = w.t
    least = {"comments": w.picks["discussion_min_comments"], "people": w.picks["discussion_min_people"]}
    if not has_comment_threads(data):
        return Body(t("discussions.no_threads"))
    if not data.hot:
        return Body(t("discussions.none", comments=least["comments"], people=least["people"]))
    entries = []
    for i in data.hot:
        digest = thread_digest(data, i)
        meta: list = [t("discussions.meta", comments=i["discussion_comments"], participants=i["discussion_people"],
                        state=state_label(i, t))]
        if digest.maintainers:
            meta += [t("discussions.maintainers"), *quoted_list([(m, None) for m in digest.maintainers],
                                                            t("language.list_sep"), None)]
        if digest.first_response_hours is not None:
            meta.append(t("discussions.first_response", hours=f"{digest.first_response_hours:.1f}"))
        entries.append(entry(i, w, meta, tuple(side_quote(e, t) for e in digest.excerpts)))
    return Body(t("discussions.lead", comments=least["comments"], people=least["people"]),
                 (Group("", tuple(entries)),))
