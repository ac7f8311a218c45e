"""Grounding check: an LLM section is used only if everything it asserts can be
traced to the facts pack it was written from.

Returns violations as strings that name the offending token, so the same list
can be sent back to the model in the one repair request and recorded as the
reason for a fallback.

What we computed and what we quote are kept apart: titles, bodies, comments and
logins are written by anyone, so they may supply words and identifiers (gfx950,
Qwen3.5) but never a figure or an item reference. A figure must be one of the
pack's numeric values (counts, metrics, sizes, scores, item numbers) or part of
its day; a ``#N`` must be an item of the pack (its own number or a ``related``
number that the facts resolved to a real item). The one exception is a title
quoted whole, set off as a quote (after ``: ``, ``**`` or a quote mark, up to
``**``, a closing quote mark or the line's end), after its own ``#N`` on the same
line, as the prompts ask (``**PR #N: title**``): that is a quote, attributed to
its item, not a claim.

An item's ``claims`` (the figures its author reports, each in the sentence or table
row that gives it its meaning) are its author's words, not our findings: a figure
from them may be written in a sentence that names that item's ``#N`` and an
attribution word of the language (``prompt.attribution``: "#38007's author reports
+1% to 8%", "据 #38007 作者报告…"). The same figure in a sentence without both, or
attributed to another item, is a violation that names the item it belongs to. The
pack's keys are words the text may use (p90, median), never figures.

A state word next to a ``#N`` must agree with the item's state in the pack (``states.py``), and a claim of
whom someone works for must be one the pack gives (``affiliations.py``).

The language's rules (the markers a section's shape requires, the script an answer is written in, the
words that state a state or an employer) come from its message catalog (``[prompt]``).
"""

from __future__ import annotations

import re

from vllm_digest.core.i18n import Catalog
from vllm_digest.report.narrative.affiliations import affiliation_violations
from vllm_digest.report.narrative.states import state_violations


_ITEM_REF = re.compile(r"#(\d+)")
_MD_LINK = re.compile(r"(!?)\[([^\]]*)\]\(\s*<?([^)\s>]*)>?[^)]*\)")
# every way Markdown (CommonMark and GitHub's autolinks) makes a link without [..](..):
# <scheme:...> and <address@host> autolinks, any scheme followed by //, the schemes that link
# without // (mailto:, xmpp: are autolinked by GitHub; javascript:, data: are the dangerous
# ones), www. and e-mail addresses, and a link reference definition "[label]: target"
_LINKS = (
    re.compile(r"<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>|<[^\s<>@]+@[^\s<>]+>"),
    re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://\S*"),
    re.compile(r"(?i)\b(?:mailto|xmpp|javascript|vbscript|data|file|tel|sms|irc|ircs|news|magnet):\S+"),
    re.compile(r"(?i)\bwww\.\S+"),
    re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*\S+", re.M),
)
# Han, kana and Hangul: an en answer made mostly of them is in the wrong language
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_LATIN = re.compile(r"[A-Za-z]")
# how far after its #N a quoted title may start (the focus shape puts the author in between)
_QUOTE_GAP = 120
_HTML = re.compile(r"<\s*/?\s*[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?\s*>")
_HEADING = re.compile(r"^\s{0,3}#{1,3}\s", re.M)
# a list marker 1-10 at a line start is layout, not a claim
_ORDINAL = re.compile(r"^(\s*)(10|[1-9])([.)、])(?=\s)", re.M)
_TOP_ENTRY = re.compile(r"^(?:10|[1-9])[.)]\s", re.M)
# a token is a run of word characters, with inner dots (3.5, v0.11) and a trailing %
_TOKEN = re.compile(r"[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*%?")
_NUMERIC = re.compile(r"^(\d+)(?:\.(\d+))?(%?)$")
_FACT_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def validate(text: str, section: str, catalog: Catalog, facts: dict) -> list[str]:
    violations: list[str] = []
    if not text.strip():
        return ["empty output"]
    items = _item_numbers(facts)
    text = _strip_allowed_links(text, facts, items, violations)
    text = _link_violations(text, violations)
    for match in _HTML.finditer(text):
        violations.append(f"HTML not allowed: {match.group(0)}")
    for match in _HEADING.finditer(text):
        violations.append(f"heading line not allowed: {match.group(0).strip()}")

    claims = _without_quoted_titles(text, facts)
    for ref in sorted({int(m.group(1)) for m in _ITEM_REF.finditer(claims)}):
        if ref not in items:
            violations.append(f"#{ref} is not an item of this section")

    violations.extend(_number_violations(claims, facts, items, catalog))
    # what an item is (merged, open...) and whom its author works for come from the data, never the model
    violations.extend(state_violations(claims, facts, catalog))
    violations.extend(affiliation_violations(claims, facts, catalog))
    violations.extend(_language_violations(claims, catalog))
    violations.extend(_structure_violations(text, section, catalog))
    return violations


def _link_violations(text: str, violations: list[str]) -> str:
    """Reports every link form; returns the text with them blanked out, so the numbers
    inside a URL are not reported a second time."""
    seen: set[str] = set()
    for pattern in _LINKS:
        for match in pattern.finditer(text):
            found = match.group(0).strip()
            if found not in seen:
                seen.add(found)
                violations.append(f"link not allowed: {found}")
        text = pattern.sub(" ", text)
    return text


def _without_quoted_titles(text: str, facts: dict) -> str:
    """The text with each item title blanked out where it is quoted whole after the item's own
    #N on the same line: what is left is what the answer claims."""
    for item in facts.get("items") or []:
        title, number = item.get("title"), item.get("number")
        if not isinstance(title, str) or not title.strip() or not isinstance(number, int):
            continue
        # delimited like a quote: after ": ", "**" or an opening quote mark, before "**", a closing quote
        # mark or the line's end; so a title that is only a figure cannot pass as "#N has <title> comments"
        quote = re.compile(
            rf"#{number}(?!\d)[^\n#]{{0,{_QUOTE_GAP}}}?(?:[:：][ \t]*|\*\*|[\"“「])({re.escape(title)})"
            r"(?=\*\*|[\"”」]|[ \t]*$)",
            re.M,
        )
        text = quote.sub(lambda m: m.group(0)[: m.start(1) - m.start(0)] + " ", text)
    return text


def _language_violations(text: str, catalog: Catalog) -> list[str]:
    cjk, latin = len(_CJK.findall(text)), len(_LATIN.findall(text))
    name, code = catalog("prompt.english"), catalog.language
    if catalog("prompt.writing") == "cjk" and not cjk:
        return [f"the answer must be in {name} ({code}) but holds no {name} text"]
    if catalog("prompt.writing") == "latin" and cjk > latin:
        return [f"the answer must be in {name} ({code}) but is mostly CJK text ({cjk} CJK characters, {latin} Latin letters)"]
    return []


def _item_numbers(facts: dict) -> set[int]:
    numbers: set[int] = set()
    for item in facts.get("items") or []:
        if isinstance(item.get("number"), int):
            numbers.add(item["number"])
        # items the facts themselves say an item links to (e.g. "fixes #123") may be cited
        numbers.update(n for n in item.get("related") or [] if isinstance(n, int))
    return numbers


def _strip_allowed_links(text: str, facts: dict, items: set[int], violations: list[str]) -> str:
    repo = re.escape(str(facts.get("repo") or r"[^/\s]+/[^/\s]+"))
    allowed = re.compile(rf"^https://github\.com/{repo}/(?:issues|pull)/(\d+)/?$")

    def replace(match: re.Match) -> str:
        bang, label, url = match.groups()
        found = allowed.match(url)
        if bang:
            violations.append(f"image not allowed: {match.group(0)}")
        elif not found:
            violations.append(f"link not allowed: {url}")
        elif int(found.group(1)) not in items:
            violations.append(f"#{found.group(1)} is not an item of this section (link {url})")
        # the label is still checked like any other text
        return label

    return _MD_LINK.sub(replace, text)


def _fact_values(facts) -> tuple[set[float], str]:
    """The figures a text may state: every numeric value of the pack (all computed) and the
    numbers of its day; a number written inside any other string (a title, a gist, a comment)
    is someone's text, not a fact. Also the lower-cased text of every string, used to check
    identifiers such as gfx950 or Qwen3.5."""
    values: set[float] = {float(m) for m in _FACT_NUMBER.findall(str(facts.get("day") or ""))}
    texts: list[str] = []

    def walk(node) -> None:
        if isinstance(node, bool) or node is None:
            return
        if isinstance(node, (int, float)):
            values.add(float(node))
            texts.append(str(node))
        elif isinstance(node, str):
            texts.append(node)
        elif isinstance(node, dict):
            for key, value in node.items():
                texts.append(str(key))  # a key is a word the text may use (p90, median), never a figure
                walk(value)
        elif isinstance(node, (list, tuple)):
            for value in node:
                walk(value)
        else:
            walk(str(node))

    walk(facts)
    return values, "\n".join(texts).lower()


def _number_violations(text: str, facts: dict, items: set[int], catalog: Catalog) -> list[str]:
    values, fact_text = _fact_values(facts)
    values.update(float(n) for n in items)
    owners = _claim_values(facts)
    markers = _attribution_markers(catalog)
    out: list[str] = []
    seen: set[str] = set()
    for sentence in _SENTENCE.split(_ORDINAL.sub(lambda m: m.group(1) + m.group(3), text)):
        cited = {int(m.group(1)) for m in _ITEM_REF.finditer(sentence)}
        body = _ITEM_REF.sub(" ", sentence)  # item references are checked against items on their own
        body = _THOUSANDS.sub("", body)
        for match in _TOKEN.finditer(body):
            token = match.group(0)
            if not any(c.isdigit() for c in token):
                continue
            numeric = _NUMERIC.match(token)
            if numeric:
                if _number_grounded(numeric, values):
                    continue
                problem = _claim_problem(token, numeric, owners, cited, _attributes(sentence, markers))
            elif token.rstrip("%").lower() not in fact_text:
                problem = f"identifier {token} does not appear in the facts"
            else:
                continue
            if problem and problem not in seen:
                seen.add(problem)
                out.append(problem)
    return out


# a sentence ends at . ! ? followed by a blank, right after 。！？, or at a line's end
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n")


def _claim_values(facts: dict) -> dict[int, set[float]]:
    """Each item's number -> the figures its own ``claims`` state (its author's words, see the module docstring)."""
    out: dict[int, set[float]] = {}
    for item in facts.get("items") or []:
        number, claims = item.get("number"), item.get("claims")
        if isinstance(number, int) and isinstance(claims, list):
            said = _THOUSANDS.sub("", " ".join(c for c in claims if isinstance(c, str)))
            found = {float(m) for m in _FACT_NUMBER.findall(said)}
            if found:
                out[number] = found
    return out


def _attribution_markers(catalog: Catalog) -> tuple[str, ...]:
    key = "prompt.attribution"
    return tuple(m.lower() for m in catalog.list(key)) if key in catalog.messages else ()


def _attributes(sentence: str, markers: tuple[str, ...]) -> bool:
    """Whether the sentence says its figures are someone's report (an attribution word of the language)."""
    low = sentence.lower()
    return any(m in low for m in markers)


def _claim_problem(token: str, numeric: re.Match, owners: dict[int, set[float]], cited: set[int],
                   attributed: bool) -> str | None:
    """None when ``token`` is a figure an item's author claims and the sentence attributes it to that item;
    otherwise the violation, naming whose claim it is when it is one."""
    own = sorted(n for n, figures in owners.items() if _number_grounded(numeric, figures))
    if not own:
        return f"number {token} does not appear in the facts"
    if attributed and cited & set(own):
        return None
    whose = " / ".join(f"#{n}" for n in own)
    others = sorted(cited - set(own))
    if others:
        return (f"number {token} is {whose}'s author's claim, not " + " / ".join(f"#{n}" for n in others) + "'s: "
                f"attribute it to {whose} only")
    return (f"number {token} is {whose}'s author's claim, stated as a finding: write it in a sentence that names "
            f"{whose} and says the author reports it")


def _number_grounded(numeric: re.Match, values: set[float]) -> bool:
    whole, decimals, percent = numeric.groups()
    written = float(f"{whole}.{decimals}" if decimals else whole)
    places = len(decimals or "")
    for fact in values:
        # the model may round a fact to the precision it writes (43.75 -> 43.8)
        if round(fact, places) == written:
            return True
        # a ratio in the facts may be written as a percentage (0.4375 -> 43.8%)
        if percent and fact <= 1 and round(fact * 100, places) == written:
            return True
    return False


def entry_markers(catalog: Catalog, section: str) -> tuple[str, ...]:
    """What every top-level entry of ``section`` must hold in this language ("" for none)."""
    key = f"prompt.entry_markers.{section}"
    return catalog.list(key) if key in catalog.messages else ()


def _structure_violations(text: str, section: str, catalog: Catalog) -> list[str]:
    out: list[str] = []
    # Latin script: a model may capitalise a marker differently ("core issue")
    fold = (lambda s: s.lower()) if catalog("prompt.writing") == "latin" else (lambda s: s)
    key = f"prompt.section_markers.{section}"
    for marker in catalog.list(key) if key in catalog.messages else ():
        if fold(marker) not in fold(text):
            out.append(f"missing required {marker!r}")
    markers = entry_markers(catalog, section)
    if markers:
        starts = [m.start() for m in _TOP_ENTRY.finditer(text)]
        blocks = [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])] or [text]
        for index, block in enumerate(blocks, start=1):
            for marker in markers:
                if fold(marker) not in fold(block):
                    out.append(f"entry {index} is missing required {marker!r}")
    return out
