"""A keyword prefilter for the taxonomy's text regexes: which texts a rule's regex could match at all.

The regexes are alternations of keywords (``\\bkv[\\s_-]?cache\\b|\\bscheduler\\b|...``). Scanning every
text with every regex costs one pass over the batch's ~60 MB of text per rule, and most texts carry
none of a rule's keywords. Every match of an alternative contains its runs of word characters
(``kv`` and ``cache``; ``scheduler``), and a run made of word characters can only lie inside one word
of the lowercased text. So each text is split into its distinct words once, each distinct word is
looked up once for the runs it contains, and a rule's regex then runs (in DuckDB, as before, so the
hits are the same) only over the texts that hold all the runs of one of its alternatives.

The prefilter can only let a text through, never drop a match: a construct it does not model makes
the rule's requirement empty (the rule is run over every text), and a text holding a character that
RE2's case folding matches with an ASCII letter while ``str.lower`` leaves it alone (``ſ``, long s,
which ``(?i)s`` matches) is a candidate for every rule.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from re import _constants as _c  # type: ignore[attr-defined]
from re import _parser as _sre_parse  # type: ignore[attr-defined]

# a run of word characters a match holds: (lowercase text, starts a word, ends a word); the two flags
# come from an adjacent \b (RE2's \b is the ASCII word boundary, the words' edges here)
Run = tuple[str, bool, bool]
# a requirement in disjunctive normal form: a match holds every run of at least one of the sets
Requirement = frozenset[frozenset[Run]]
NONE_KNOWN: Requirement = frozenset([frozenset()])  # no run is known to be needed
_MAX_ALTERNATIVES = 256  # a sequence's requirement is the product of its items'; beyond this, items drop

_WORD = re.compile(r"[a-z0-9_]+")
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
_REPEATS = tuple(getattr(_c, n) for n in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") if hasattr(_c, n))
_NO_RUN = (_c.AT, _c.IN, _c.ANY, _c.NOT_LITERAL, _c.CATEGORY)  # anchors, classes, the dot: no literal
# characters outside ASCII that would make a lowercased text's words differ from what RE2 sees: ſ (long
# s), which RE2's (?i)s matches but str.lower() keeps, and the two whose lowercase is an ASCII word
# character (İ -> i + a combining dot, the Kelvin sign -> k), a word boundary for RE2 but not after
# lowering (tests/analytics/test_text_prefilter.py derives this list from Unicode)
UNSAFE_CHARS = ("\u017f", "\u0130", "\u212a")


class _Unreadable(Exception):
    """A construct the analysis does not model."""


def _product(a: Requirement, b: Requirement) -> Requirement:
    if len(a) * len(b) > _MAX_ALTERNATIVES:
        return a if min(map(len, a)) >= min(map(len, b)) else b  # dropping a requirement stays safe
    return frozenset(x | y for x in a for y in b)


def _sequence(items, after_boundary: bool = False) -> Requirement:
    """What every match of ``items`` holds; ``after_boundary``: the sequence follows a \b (the parser
    moves a \b that all alternatives begin with in front of them)."""
    need: Requirement = NONE_KNOWN
    run: list[str] = []
    run_starts = False  # the current run began right after a \b

    def close(need: Requirement, at_end: bool) -> Requirement:
        if run:
            need = _product(need, frozenset([frozenset([("".join(run), run_starts, at_end)])]))
            run.clear()
        return need

    for op, arg in items:
        if op is _c.LITERAL and chr(arg).lower() in _WORD_CHARS:
            if not run:
                run_starts = after_boundary
            run.append(chr(arg).lower())
            after_boundary = False
            continue
        boundary = op is _c.AT and arg is _c.AT_BOUNDARY
        need = close(need, boundary)
        follows, after_boundary = after_boundary, boundary
        if op is _c.LITERAL or op in _NO_RUN:
            continue
        if op is _c.SUBPATTERN:
            need = _product(need, _sequence(arg[-1], follows))
        elif op is _c.BRANCH:
            need = _product(need, frozenset().union(*(_sequence(b, follows) for b in arg[1])))
        elif op in _REPEATS:
            if arg[0] >= 1:
                need = _product(need, _sequence(arg[2], follows))
        else:
            raise _Unreadable(str(op))
    return close(need, False)


def required_runs(pattern: str) -> Requirement:
    """What every match of ``pattern`` (an RE2 regex) holds, compared case-insensitively: all the
    lowercase word-character runs of at least one set. ``NONE_KNOWN`` when nothing is known."""
    try:
        need = _sequence(_sre_parse.parse(pattern))
    except (_Unreadable, re.error, ValueError, TypeError, OverflowError, RecursionError):
        return NONE_KNOWN
    return NONE_KNOWN if frozenset() in need else need


def candidates(texts: Iterable[tuple[int, str | None, str | None]],
               needs: Sequence[Requirement]) -> tuple[list[int], list[int]]:
    """(text ids, rule indexes): the pairs where the text's title and body together hold all the runs
    of one of the rule's sets. Rules whose requirement is ``NONE_KNOWN`` are left out: they are run over
    every text."""
    rules = [(i, need) for i, need in enumerate(needs) if frozenset() not in need]
    every_run = {run for _, need in rules for runs in need for run in runs}
    lengths = sorted({len(text) for text, _, _ in every_run})
    by_run: dict[Run, list[tuple[int, frozenset[Run]]]] = {}  # run -> (rule, the set it is in)
    for i, need in rules:
        for runs in need:
            for run in runs:
                by_run.setdefault(run, []).append((i, runs))
    word_runs: dict[str, frozenset[Run]] = {}

    def runs_in(word: str) -> frozenset[Run]:
        found = word_runs.get(word)
        if found is None:
            n, hits = len(word), set()
            for size in lengths:
                if size > n:
                    break
                for k in range(n - size + 1):
                    sub = word[k:k + size]
                    for run in ((sub, False, False), (sub, k == 0, False), (sub, False, k + size == n),
                                (sub, k == 0, k + size == n)):
                        if run in every_run:
                            hits.add(run)
            found = word_runs[word] = frozenset(hits)
        return found

    # whitespace-separated chunks first (str.split is much cheaper than a regex; whitespace never lies
    # inside a word), the words of each distinct chunk once; set operations keep the per-text work in C
    seen: set[str] = set()
    chunk_runs: dict[str, frozenset[Run]] = {}  # only the chunks that hold a run
    rules_of: dict[frozenset[Run], list[int]] = {}  # the runs a text holds -> the rules it may match
    every = sorted(i for i, _ in rules)
    text_ids: list[int] = []
    rule_ids: list[int] = []
    for text_id, title, body in texts:
        text = f"{title or ''}\n{body or ''}"
        if any(ch in text for ch in UNSAFE_CHARS):  # before lowering: it maps two of them to ASCII
            hit = every
        else:
            chunks = set(text.lower().split())
            for chunk in chunks - seen:
                seen.add(chunk)
                found = frozenset().union(*map(runs_in, _WORD.findall(chunk)))
                if found:
                    chunk_runs[chunk] = found
            present = frozenset().union(*[chunk_runs[c] for c in chunks & chunk_runs.keys()])
            hit = rules_of.get(present)
            if hit is None:
                hit = rules_of[present] = sorted({i for run in present for i, runs in by_run[run] if runs <= present})
        text_ids.extend([text_id] * len(hit))
        rule_ids.extend(hit)
    return text_ids, rule_ids
