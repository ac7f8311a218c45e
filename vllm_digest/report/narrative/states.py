"""Item states in an LLM-written text: what the text says of each ``#N``'s state, and the badge the report
adds after it.

Readers punish a narrative that calls open work landed or a closed PR a win, and a model writes from a pack it
can misread. So the state is never left to the model: the renderer prints, after every ``#N`` of a narrative, the
item's state as the warehouse holds it (``mark`` / ``badges``), and the grounding check refuses a state word next
to a ``#N`` that contradicts the pack's state for it, or that states a state the pack does not give
(``state_violations``).

An item is in one of four states (``STATUSES``): merged, open, closed without merge (a PR), closed (an issue).
What a text says is read with the language's phrases (``[prompt.state_after]`` / ``[prompt.state_before]`` of its
catalog), each of a class that is true of some states (``_TRUE_OF``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Mapping

from vllm_digest.core.i18n import Catalog

STATUSES = ("merged", "open", "closed_unmerged", "closed")
# how a violation names a state to the model (the check's messages are in English, like every other)
_NAMED = {"merged": "merged", "open": "open", "closed_unmerged": "closed without merge", "closed": "closed"}
# what a claim class is true of, for a PR and for an issue; None: the class says nothing about that kind (an
# issue is never merged: "#N's fix landed" is about another item; a PR that "fixed" something describes its change)
_TRUE_OF = {
    "pr": {"merged": {"merged"}, "not_merged": {"open", "closed_unmerged"}, "closed_unmerged": {"closed_unmerged"},
           "closed": {"merged", "closed_unmerged"}, "open": {"open"}, "fixed": None},
    "issue": {"merged": None, "not_merged": None, "closed_unmerged": {"closed"}, "closed": {"closed"},
              "open": {"open"}, "fixed": {"closed"}},
}
CLASSES = tuple(_TRUE_OF["pr"])
# the class each state's own badge word belongs to, and the classes that say a state (a text that already
# says it right after the #N gets no badge)
_BADGE_CLASS = {"merged": "merged", "open": "open", "closed_unmerged": "closed_unmerged", "closed": "closed"}
_SAYS = {"merged": {"merged"}, "open": {"open"}, "closed_unmerged": {"closed_unmerged"}, "closed": {"closed", "fixed"}}

_REF = re.compile(r"(?<![\w#])#(\d+)(?!\d)")
_CODE = re.compile(r"`[^`\n]*`")
# between a #N and what the text says of it: spaces, brackets, emphasis, quotes, a comma or dash
_LEAD = re.compile(r"[\s(（\[*_\"'“”‘’,，—–-]*")
# a window ends at a clause's end, a title's colon, another item or a closing bracket
_BREAK = re.compile(r"[.;!?:。；！？：\n#,，、)）\]]")
_AFTER_WORDS = 3  # Latin script: a phrase about a #N starts within the 3 words after it ("is still open", "was merged")
_AFTER_CHARS = 10  # CJK script: a phrase about a #N starts within the 10 characters after it ("目前仍处于开放")
_BEFORE_CHARS = 48
# a phrase after a #N that is followed by another item is a verb about that one ("#1 closes #2")
_OBJECT = re.compile(r"\s*(?:\*\*)?\s*(?:(?:PR|[Ii]ssue|pull request)\s*)?#\d")
# the badge markers between which ``mark`` leaves a state for ``badges`` or the HTML blocks to print
BADGE_OPEN, BADGE_CLOSE = "\ue000", "\ue001"
_MARKED = re.compile(f"{BADGE_OPEN}([a-z_]+){BADGE_CLOSE}")


def status_of(kind: str | None, state: str | None, merged_at) -> str:
    """An item's state from its warehouse row (``core_items``: kind, state, merged_at)."""
    if merged_at:
        return "merged"
    if (state or "open") == "closed":
        return "closed_unmerged" if kind == "pr" else "closed"
    return "open"


def row_statuses(*rows: Mapping[int, dict]) -> dict[int, str]:
    """``number -> state`` of warehouse rows by number; a later mapping's row wins over an earlier one's."""
    out: dict[int, str] = {}
    for found in rows:
        for number, row in found.items():
            out[number] = status_of(row.get("kind"), row.get("state"), row.get("merged_at"))
    return out


def pack_status(item: dict) -> str | None:
    """The state a facts pack gives an item (``state``: merged, open, closed, or closed without merge in any
    spelling, alone or as ``{"state": ...}``), read with its ``kind``; None when it gives none."""
    state = item.get("state")
    if isinstance(state, dict):
        state = state.get("state") or state.get("value")
    if not isinstance(state, str) or not state.strip():
        return None
    said = " ".join(re.split(r"[\s_-]+", state.strip().lower()))
    if said == "merged":
        return "merged"
    if said in ("open", "draft"):
        return "open"
    if said.startswith("closed"):
        if item.get("kind") == "pr" or any(w in said for w in ("without", "unmerged", "not merged")):
            return "closed_unmerged"
        return "closed"
    return None


def pack_objects(node):
    """Every object (dict) a facts pack holds, at any depth, in order: its items, and whatever lists of
    items, reviews or people a pack nests in them."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from pack_objects(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from pack_objects(value)


def pack_states(facts) -> dict[int, tuple[str | None, str]]:
    """``number -> (kind, state)`` for every object of the pack that gives an item's number and state (its
    items, and whatever lists of items a pack nests, such as the issues a PR fixes); the first one wins."""
    out: dict[int, tuple[str | None, str]] = {}
    for node in pack_objects(facts):
        number, status = node.get("number"), pack_status(node)
        if isinstance(number, int) and not isinstance(number, bool) and status is not None:
            out.setdefault(number, (node.get("kind"), status))
    return out


@dataclass(frozen=True)
class Claim:
    number: int
    cls: str  # one of CLASSES
    phrase: str  # as the text wrote it


@dataclass(frozen=True)
class _Rules:
    latin: bool
    after: re.Pattern
    before: re.Pattern
    classes: dict[str, str]  # phrase (folded) -> class
    gap: re.Pattern
    negators: tuple[str, ...]

    def fold(self, text: str) -> str:
        return " ".join(text.lower().split()) if self.latin else "".join(text.split())


def _bounded(body: str, latin: bool) -> str:
    # Latin script: whole words only ("landed", not "landedness"); CJK script has no word boundaries
    return rf"(?<![\w-])(?:{body})(?![\w-])" if latin else f"(?:{body})"


def _alternation(phrases, latin: bool) -> str:
    ordered = sorted({p for p in phrases if p}, key=len, reverse=True)
    body = "|".join(r"\s+".join(re.escape(w) for w in p.split()) if latin else re.escape(p) for p in ordered)
    return _bounded(body, latin)


@functools.lru_cache(maxsize=16)
def _compiled(latin: bool, after: tuple, before: tuple, gap: tuple, negators: tuple) -> _Rules:
    fold = (lambda s: " ".join(s.lower().split())) if latin else (lambda s: "".join(s.split()))
    classes = {fold(p): cls for cls, phrases in after + before for p in phrases}
    flags = re.I if latin else 0
    never = r"(?!x)x"
    after_phrases = [p for _, ps in after for p in ps]
    before_phrases = [p for _, ps in before for p in ps]
    gap_words = "|".join(r"\s+".join(re.escape(w) for w in g.split()) for g in sorted(gap, key=len, reverse=True))
    return _Rules(
        latin=latin,
        after=re.compile(_alternation(after_phrases, latin) if after_phrases else never, flags),
        before=re.compile((_alternation(before_phrases, latin) if before_phrases else never) + r"\s*$", flags),
        classes=classes,
        gap=re.compile(rf"(?:\s|\*\*|{_bounded(gap_words, latin)})+$" if gap_words else r"(?:\s|\*\*)+$", flags),
        negators=tuple(n.lower() for n in negators),
    )


def _rules(catalog: Catalog) -> _Rules:
    def table(name: str) -> tuple:
        return tuple((cls, catalog.list(f"prompt.{name}.{cls}")) for cls in CLASSES
                     if f"prompt.{name}.{cls}" in catalog.messages)
    badge_words = tuple((_BADGE_CLASS[s], (catalog(f"item.state.{s}"),)) for s in STATUSES)
    return _compiled(catalog("prompt.writing") == "latin", table("state_after") + badge_words, table("state_before"),
                     catalog.list("prompt.state_words.gap"), catalog.list("prompt.state_words.negators"))


def _negated(rules: _Rules, before: str) -> bool:
    text = before.lower()
    if rules.latin:
        words = re.findall(r"[\w']+", text)
        return any(n in words or (n.startswith("n'") and any(w.endswith(n) for w in words)) for n in rules.negators)
    return any(n in text for n in rules.negators)


def _after(text: str, end: int, rules: _Rules) -> list[tuple[str, str]]:
    """(class, phrase) of what the words right after the #N ending at ``end`` say of its state."""
    rest = text[end:end + 120]
    lead = _LEAD.match(rest).end()
    body = rest[lead:]
    cut = _BREAK.search(body)
    body = body[:cut.start()] if cut else body
    # a phrase must start within the first few words, and may run on past them ("was closed without merge")
    reach = re.match(r"\s*(?:\S+\s*){0,%d}" % _AFTER_WORDS, body).end() if rules.latin else _AFTER_CHARS
    found = []
    for match in rules.after.finditer(body):
        if match.start() >= reach:
            break
        if _OBJECT.match(text, end + lead + match.end()):
            continue
        if _negated(rules, body[:match.start()]) and rules.classes.get(rules.fold(match.group(0))) in ("merged", "open", "closed", "fixed"):
            continue
        found.append((rules.classes[rules.fold(match.group(0))], match.group(0)))
    return found


def _before(text: str, start: int, rules: _Rules) -> list[tuple[str, str]]:
    """(class, phrase) of what the words right before the #N starting at ``start`` say of its state."""
    head = text[max(0, start - _BEFORE_CHARS):start]
    cut = max(head.rfind(c) for c in ".;!?:。；！？：\n#,，、")
    head = head[cut + 1:]
    head = rules.gap.sub("", head) if head.strip() else head
    match = rules.before.search(head)
    if not match:
        return []
    phrase = match.group(0).strip()
    return [(rules.classes[rules.fold(phrase)], phrase)]


def _outside_code(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` outside its code spans: a ``#N`` inside backticks is code, not a citation."""
    spans, at = [], 0
    for code in _CODE.finditer(text):
        spans.append((at, code.start()))
        at = code.end()
    spans.append((at, len(text)))
    return spans


def _refs(text: str):
    for a, b in _outside_code(text):
        for match in _REF.finditer(text, a, b):
            yield match


def state_claims(text: str, catalog: Catalog) -> list[Claim]:
    """Every state the text says of a ``#N``, right after it or right before it."""
    rules = _rules(catalog)
    out = []
    for match in _refs(text):
        number = int(match.group(1))
        for cls, phrase in _after(text, match.end(), rules) + _before(text, match.start(), rules):
            out.append(Claim(number, cls, phrase))
    return out


def state_violations(text: str, facts: dict, catalog: Catalog) -> list[str]:
    """A state word next to a ``#N`` that contradicts the pack's state for it, or that states a state the pack
    does not give (the report prints every cited item's state itself, so the text never needs to guess)."""
    known = pack_states(facts)
    out: list[str] = []
    for claim in state_claims(text, catalog):
        found = known.get(claim.number)
        if found is None:
            out.append(f"#{claim.number} is called {claim.phrase!r}, but the data gives no state for #{claim.number}: "
                       f"do not state it (the report shows each item's state)")
            continue
        kind, status = found
        true_of = _TRUE_OF["issue" if kind == "issue" else "pr"][claim.cls]
        if true_of is not None and status not in true_of:
            out.append(f"#{claim.number} is called {claim.phrase!r}, but the data says it is {_NAMED[status]}")
    return list(dict.fromkeys(out))


def mark(text: str, statuses: Mapping[int, str], catalog: Catalog) -> str:
    """The text with a badge marker after every ``#N`` whose state is known, outside code spans, unless the
    words right after it already say that state; ``badges`` or the HTML blocks print the markers."""
    rules = _rules(catalog)
    text = text.replace(BADGE_OPEN, "").replace(BADGE_CLOSE, "")
    out, at = [], 0
    for match in _refs(text):
        status = statuses.get(int(match.group(1)))
        said = _after(text, match.end(), rules) + _before(text, match.start(), rules)
        if status is None or any(cls in _SAYS[status] for cls, _ in said):
            continue
        out.append(text[at:match.end()] + f"{BADGE_OPEN}{status}{BADGE_CLOSE}")
        at = match.end()
    return "".join(out) + text[at:]


def state_words(catalog: Catalog) -> dict[str, str]:
    """state -> its word in the catalog's language ("merged"), the HTML badge's text."""
    return {s: catalog(f"item.state.{s}") for s in STATUSES}


def badge_words(catalog: Catalog) -> dict[str, str]:
    """state -> its badge in Markdown, in the catalog's language ("(merged)")."""
    return {s: catalog("item.state.badge", state=word) for s, word in state_words(catalog).items()}


def badges(marked: str, words: Mapping[str, str]) -> str:
    """A marked text with each marker written out as its badge text, for Markdown."""
    return _MARKED.sub(lambda m: " " + words[m.group(1)], marked)


def split_badges(text: str) -> list[tuple[str, str | None]]:
    """A marked text as (text, None) and (state, state) pieces, for the HTML blocks."""
    out, at = [], 0
    for match in _MARKED.finditer(text):
        if match.start() > at:
            out.append((text[at:match.start()], None))
        out.append((match.group(1), match.group(1)))
        at = match.end()
    if at < len(text):
        out.append((text[at:], None))
    return out
