"""🎯 The focus area: its items by theme (the largest first), the vendor's share, the login conventions, the
highlighted product, and one line for the items kept off the list."""

from __future__ import annotations

from vllm_digest.core.i18n import Catalog
from vllm_digest.core.text.markdown_safe import plain_inline
from vllm_digest.report.day.data import DayData
from vllm_digest.report.day.model import Group, Quote
from vllm_digest.report.sections.entries import Body, Wording, entry, local_name, state_label, touches
from vllm_digest.report.sections.shared import author_name, employees_known, employer_tally, focus_tally


def login_conventions(focus: list[dict]) -> list[tuple[str, int]]:
    """The focus area's login patterns ('-amd') its items' authors match, each with how many distinct authors
    match it: a naming convention, reported as what it is and never as employment."""
    authors: dict[str, set[str]] = {}
    for i in focus:
        if i.get("login_rule") and i.get("author_login"):
            authors.setdefault(i["login_rule"], set()).add(i["author_login"].lower())
    return sorted((pattern, len(found)) for pattern, found in authors.items())


def demoted_line(data: DayData, t: Catalog) -> str:
    """One line counting the focus items kept off the list, by reason; empty when none was."""
    if not data.focus_demoted:
        return ""
    parts = t("language.list_sep").join(
        t("focus.demoted_part", count=n, reason=t(f"focus.demoted_reason.{reason}"))
        for reason, n in data.focus_demoted.items())
    return t("focus.demoted", parts=parts)


def focus_body(data: DayData, w: Wording) -> Body:
    t, area, focus = w.t, w.focus, data.focus
    demoted = demoted_line(data, t)
    if not focus:
        if area.highlight:
            return Body([t("focus.none_highlight", focus=area.short, highlight=area.highlight), demoted])
        return Body([t("focus.none", focus=area.short), demoted])
    names = {i["theme"]: i["theme_name"] for i in focus}
    counts = {th: sum(1 for i in focus if i["theme"] == th) for th in names}
    # largest theme first; the taxonomy decides what a theme is, not this module
    order = sorted(names, key=lambda th: (-counts[th], th))
    groups = []
    for theme in order:
        entries = []
        for i in (i for i in focus if i["theme"] == theme):
            tag = t("focus.employee", vendor=area.vendor) if i["vendor"] else ""
            entries.append(entry(i, w, [Quote(author_name(i["author_login"])),
                                         f"{tag} · {state_label(i, t)}{touches(i, w)}"]))
        groups.append(Group(local_name(names[theme], w, theme), tuple(entries)))
    tally = focus_tally(focus, area.highlight)
    parts = t("language.list_sep").join(t("focus.part", name=local_name(names[th], w, th), count=counts[th])
                                        for th in order)
    if employees_known(focus):
        tail = t("focus.tail", items=len(focus), focus=area.short, parts=parts, vendor=area.vendor,
                 merged=tally["merged"], **employer_tally(focus))
    else:
        tail = t("focus.tail_unknown", items=len(focus), focus=area.short, parts=parts, vendor=area.vendor,
                 merged=tally["merged"])
    for pattern, authors in login_conventions(focus):
        tail += t("focus.login_rule", authors=authors, pattern=plain_inline(pattern, 40))
    if not area.highlight:
        tail += t("focus.tail_end")
    elif tally["highlight"]:
        tail += t("focus.tail_highlight", highlight=area.highlight, count=tally["highlight"])
    else:
        tail += t("focus.tail_highlight_none", highlight=area.highlight)
    tail += demoted
    return Body(t("focus.lead", items=len(focus), focus=area.short), tuple(groups), t("focus.tail_label"), tail)
