"""The named things each item's title talks about, for 🔥's stories (int_item_entities, mart_hot_stories).

Entities come from the titles themselves, so next month's model needs no new rule: a token that mixes
letters and digits or carries a version (``Qwen3.5``, ``B200``, ``DeepSeek-V3.2``), a name followed by a
version (``Gemma 4``, ``Transformers v5``), and a product-like name (``FlashInfer``, ``LoRA``, ``AITER``;
or a capitalised word in mid-title that the day's titles never write in lower case). Variants fold into
one key: case, separators and a ``v`` before the version (``Gemma-4``, ``gemma4``, ``Gemma 4`` -> gemma4);
a size or variant after a model (``-27B``, ``-A3B``, ``-Instruct``) is not part of it.

Which keys are only the project's vocabulary (CI, Kernel, FP8, the project's own name) is decided in SQL
(mart_hot_stories), from the taxonomy's tags and names and from how many earlier days' titles carry the key:
this step only extracts. Regexes over titles are awkward in one SQL statement (the token before a version
joins it), so this runs in Python like the keyword prefilter, into a connection-local temp table that
int_item_entities.sql reads.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from typing import Iterable

# a word: letters then letters/digits, with dotted version parts (Qwen3.5, v0.11.0), or a number (4, 3.2, 27B)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:\.[0-9]+)*[A-Za-z0-9]*|[0-9]+(?:\.[0-9]+)*[A-Za-z]*")
# a version that may follow a name: 4, v5, V3.2 (at most 3 digits a part: not an item number)
_VERSION = re.compile(r"[vV]?[0-9]{1,3}(?:\.[0-9]{1,3})*")
# a leading [Tag] run and a conventional-commit prefix: the category words, not the title's first word
_LEAD = re.compile(r"^\s*(?:\[[^\]]*\]\s*)*:?\s*(?:[A-Za-z]+(?:\([^)]*\))?!?:\s*)?")
_TAG = re.compile(r"\[[^\]]*\]")
# a word the day's titles write in lower case this often is an ordinary word ("fix 2 bugs", "to 0.5.2"), not a
# name that a version can follow
COMMON_WORD = 3
# between a name and its version: nothing, a space, a dash or an underscore
_JOIN_GAP = re.compile(r"[ \-_]?")

# what a title says the change does (the project's verbs and title tags), first match wins; issues are counted
# by kind, not by verb. The catalog's hot.action.* words these in each language.
ACTIONS = (
    ("revert", re.compile(r"^\W*revert\b", re.I)),
    ("fix", re.compile(r"\[(?:bug ?fix|bug|fix|hotfix)\]|\b(?:fix(?:es|ed)?|bug|crash(?:es)?|broken|regression)\b", re.I)),
    ("docs", re.compile(r"\[docs?\]|\[documentation\]|^\W*docs?\b|\bdocument(?:ation)?\b", re.I)),
    ("perf", re.compile(r"\[perf\]|\b(?:perf|performance|speed ?up|faster|optimi[sz]e[sd]?|optimi[sz]ation|throughput)\b", re.I)),
    ("add", re.compile(r"\b(?:add(?:s|ed)?|support(?:s|ed)?|enable[sd]?|implement(?:s|ed)?|introduce[sd]?|new)\b", re.I)),
)


@functools.lru_cache(maxsize=1 << 16)
def action(kind: str, title: str) -> str:
    """An item's action for the headline: issue for an issue, else the first of ACTIONS its title says, else other."""
    if kind != "pr":
        return "issue"
    return next((name for name, pattern in ACTIONS if pattern.search(title or "")), "other")


def _mixed(token: str) -> bool:
    return token[0].isalpha() and any(c.isdigit() for c in token)


def _product_like(token: str) -> bool:
    """CamelCase or inner capitals (FlashInfer, LoRA, ROCm) or all capitals of 3+ letters (AITER)."""
    letters = token.isalpha()
    return letters and len(token) >= 3 and (token.isupper() or any(c.isupper() for c in token[1:]))


def _key(*parts: str) -> str:
    """The folded key: lower case, no separators, no 'v' before a version number."""
    out = []
    for part in parts:
        p = part.lower()
        if out and re.fullmatch(r"v[0-9].*", p):
            p = p[1:]
        out.append(p)
    return "".join(out)


Entity = tuple[str, str]  # (key, surface form)


@functools.lru_cache(maxsize=1 << 16)
def _title_tokens(title: str) -> tuple[tuple[str, Entity | None, Entity | None, Entity | None], ...]:
    """Each token of ``title`` with what ``title_entities`` decides from the title alone: (its lower case, the
    name-and-version entity it starts when the day's counts allow, the entity it is by its shape, the entity it
    is when the day writes it capitalised more often than not). An item touched on several days of a batch has
    one title: it is read once, not once per item-day (a year: 94,000 item-days, 38,000 titles)."""
    lead_end = _LEAD.match(title).end()
    tags = [(m.start(), m.end()) for m in _TAG.finditer(title)]
    tokens = list(_TOKEN.finditer(title))
    out = []
    for i, m in enumerate(tokens):
        word, in_tag = m.group(), any(a <= m.start() < b for a, b in tags)
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        # a name and the version after it: Gemma 4, Transformers v5, DeepSeek-V3.2 (a bare number only after
        # a capitalised name, so "fix 2 bugs" names nothing); whether the name is a common word is the day's
        version = None
        if (nxt is not None and word.isalpha() and len(word) >= 2 and _VERSION.fullmatch(nxt.group())
                and _JOIN_GAP.fullmatch(title[m.end():nxt.start()])
                and (word[0].isupper() or not nxt.group().isdigit())):
            version = (_key(word, nxt.group()), title[m.start():nxt.end()])
        shape = (_key(word), word) if _mixed(word) or _product_like(word) else None
        capitalised = None
        if (shape is None and word.isalpha() and len(word) >= 3 and word[0].isupper() and word[1:].islower()
                and not in_tag and m.start() > lead_end):
            capitalised = (_key(word), word)
        out.append((word.lower(), version, shape, capitalised))
    return tuple(out)


def title_entities(title: str, lowercase_words: Counter, capital_words: Counter) -> list[tuple[str, str]]:
    """(key, surface form) of each entity in ``title``, distinct by key. ``lowercase_words``/``capital_words``:
    how often the day's titles write each word in lower case / capitalised in mid-title."""
    found: dict[str, str] = {}
    skip = -1
    for i, (lower, version, shape, capitalised) in enumerate(_title_tokens(title or "")):
        if i <= skip:
            continue
        if version is not None and lowercase_words[lower] < COMMON_WORD:
            found.setdefault(*version)
            skip = i + 1
            continue
        if shape is not None:
            found.setdefault(*shape)
        elif capitalised is not None and capital_words[lower] > lowercase_words[lower]:
            # a capitalised word in mid-title that the day writes capitalised more often than not: a name
            found.setdefault(*capitalised)
    return list(found.items())


@functools.lru_cache(maxsize=1 << 16)
def _title_words(title: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The words ``title`` writes in lower case, and those it capitalises after its lead (lowered)."""
    lead_end = _LEAD.match(title).end()
    lower, capital = [], []
    for m in _TOKEN.finditer(title):
        w = m.group()
        if w.isalpha() and w.islower():
            lower.append(w)
        elif w.isalpha() and w[0].isupper() and w[1:].islower() and m.start() > lead_end:
            capital.append(w.lower())
    return tuple(lower), tuple(capital)


def _word_counts(titles: Iterable[str]) -> tuple[Counter, Counter]:
    lower, capital = Counter(), Counter()
    for title in titles:
        words, capitalised = _title_words(title or "")
        lower.update(words)
        capital.update(capitalised)
    return lower, capital


def day_entities(items: list[tuple]) -> list[tuple]:
    """``items``: (day, number, kind, title) of a batch's days -> (day, number, key, surface, action) rows."""
    by_day: dict = {}
    for row in items:
        by_day.setdefault(row[0], []).append(row)
    rows = []
    for day, day_items in by_day.items():
        lower, capital = _word_counts(t for _, _, _, t in day_items)
        for _, number, kind, title in day_items:
            verb = action(kind, title)
            for key, surface in title_entities(title, lower, capital):
                rows.append((day, number, key, surface, verb))
    return rows


def store_entities(con, repo: str) -> None:
    """``run_item_entities``: the entities of the batch's items, those of the days in ``run_days`` (a
    connection-local temp table, read by int_item_entities.sql)."""
    items = con.execute("SELECT day, number, kind, title FROM core_items WHERE repo = $repo "
                        "AND day IN (SELECT day FROM run_days)", {"repo": repo}).fetchall()
    rows = day_entities(items)
    columns = list(zip(*rows)) or [[], [], [], [], []]
    # one statement from five lists (executemany inserts a row at a time)
    con.execute("CREATE OR REPLACE TEMP TABLE run_item_entities AS SELECT CAST(unnest($d) AS DATE) AS day, "
                "CAST(unnest($n) AS INTEGER) AS number, CAST(unnest($k) AS VARCHAR) AS entity_key, "
                "CAST(unnest($s) AS VARCHAR) AS entity_name, CAST(unnest($a) AS VARCHAR) AS action",
                {"d": list(columns[0]), "n": list(columns[1]), "k": list(columns[2]), "s": list(columns[3]),
                 "a": list(columns[4])})
