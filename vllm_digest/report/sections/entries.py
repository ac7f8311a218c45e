"""How a section writes: the ``Wording`` it is given (catalog, focus area, addresses, the taxonomy's selection
parameters), the ``Body`` it returns (lead, groups, closing line) and one item's entry with its meta line and
the selection model's reasons. Every untrusted field is made plain one-line text here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from vllm_digest.core.i18n import Catalog
from vllm_digest.core.taxonomy.loader import FocusArea
from vllm_digest.core.text.limits import TOUCHES, WHAT_CHARS
from vllm_digest.core.text.markdown_safe import plain_inline
from vllm_digest.report.day.model import Group, Item, Part, Quote
from vllm_digest.report.sections.shared import item_ref, item_state


@dataclass(frozen=True)
class Wording:
    """What a section needs besides the day's rows: the language's catalog, the taxonomy's focus area
    and how an item's GitHub page is addressed."""

    t: Catalog
    focus: FocusArea
    url_for: Callable[[str, int], str]
    # (day, "md" | "html") -> the relative address of that day's report in this language (build.day_href)
    day_href: Callable[[str, str], str]
    # the taxonomy's selection parameters (Taxonomy.picks): the marts made the cuts with them, the wording
    # names them (a discussion's least comments and people, the follow-ups' look-back)
    picks: dict

    @property
    def names(self) -> str:
        """Which of the taxonomy's names this language prints."""
        return self.t("language.names")


@dataclass(frozen=True)
class Body:
    lead: str | list
    groups: tuple[Group, ...] = ()
    tail_label: str = ""
    tail: str = ""


def as_parts(parts: str | list) -> tuple[Part, ...]:
    return ((parts,) if parts else ()) if isinstance(parts, str) else tuple(p for p in parts if p)


def state_label(item: dict, t: Catalog) -> str:
    state = item_state(item)
    return t.get(f"item.state.{state}", state)


def why_lines(item: dict, t: Catalog) -> tuple[str, tuple[str, ...]]:
    """The fitted selection model's reasons for an item (``item["why"]``, report/day/data.selection_why): the
    summary line, then the model's base and one line per part of its score, each feature in plain words (the
    catalog's why.feature), so the lines add up to the score; empty for an item no model chose."""
    why = item.get("why")
    if not why:
        return "", ()
    parts = tuple(
        t("why.part_flag" if float(p["value"]) == 1 else "why.part", feature=t(f"why.feature.{p['feature']}"),
          value=float(p["value"]), points=float(p["points"]))
        for p in why["parts"])
    return (t("why.summary", score=why["score"], probability=why["probability"]),
            (t("why.base", points=float(why["base"])), *parts))


def touches(item: dict, w: Wording) -> str:
    """`` · touches: scheduler, models`` for a PR whose changed files were fetched, else ""."""
    areas = [a for a in (item.get(f"areas_{w.names}") or [])[:TOUCHES] if a]
    return f" · {w.t('item.touches', areas=w.t('language.list_sep').join(areas))}" if areas else ""


def topic_line(item: dict, w: Wording) -> str:
    """An item's topics (``item["reason"]``: report/day/data.topic_names) by the taxonomy's display names in this
    language, never by their keys."""
    return w.t("item.topic_sep").join(n[w.names] for n in item.get("reason") or [])


def entry(item: dict, w: Wording, meta: str | list, quotes=(), gist: str | None = None) -> Item:
    why, why_parts = why_lines(item, w.t)
    return Item(
        number=item["number"],
        kind=item["kind"],
        ref=item_ref(item["kind"], item["number"], w.t),
        url=w.url_for(item["kind"], item["number"]),
        title=plain_inline(item["title"], 200),
        # the body's one-line "what it does" (core_item_texts), never the template's placeholder
        gist=plain_inline(item.get("what"), WHAT_CHARS) if gist is None else plain_inline(gist, WHAT_CHARS),
        meta_parts=as_parts(meta),
        quotes=tuple(quotes),
        why=why,
        why_parts=why_parts,
    )


def quoted_list(pairs, sep: str, suffix: Callable[[object], str] | None, limit: int = 80) -> list:
    """``[(untrusted name, value)]`` as parts: each name quoted, then ``suffix`` of its value."""
    out: list = []
    for index, (name, value) in enumerate(pairs):
        out.extend([sep] if index else [])
        out.extend([Quote(plain_inline(name, limit)), suffix(value) if suffix else ""])
    return out


def percent(x: float | None) -> str:
    return "—" if x is None else f"{round(100 * x)}%"


def local_name(names: dict, w: Wording, fallback: str) -> str:
    return names[w.names] or fallback
