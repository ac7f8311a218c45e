"""Story recall for the editorial eval (tools/editorial/editorial.py): the original's numbered entries as stories.

selections.json gives, per day and section, ``entries``: the original's numbered entries in order (a topic,
a key change, a discussion), each as the list of its item numbers that are in the day's five lists. An entry
counts as told
- in the same section when our same section cites any of its items;
- anywhere when any of our five analysis sections cites any of its items.
An entry of three items of which we cite one is told: item recall counts 1 of 3, story recall 1 of 1. Item
recall asks whether we picked the editor's exact items, story recall whether the reader hears the story.

Also here, because targets can only be read against the editor's own noise: how often the editor features
an item (a story) again in the same section where two of its windows overlap; and leave-one-day-out story
recall for the fitted sections (🛠️, 💡), so their fit-split figures are not only in-sample.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from vllm_digest.testing.report_text import SECTIONS


POOLED = "all"
Entries = dict[str, tuple[frozenset[int], ...] | None]  # section -> the day's entries; None: the file gives none
# fewer featured items than this over all overlapping windows and the consistency figure is left unread:
# a rate over a handful of items says nothing about the editor (the sample's windows overlap by minutes)
MIN_AGREEMENT_ITEMS = 20


@dataclass(frozen=True)
class StoryCount:
    """One day and section: the original's entries, and how many of them our report tells."""

    given: bool  # the selections file gives entries for this day and section
    entries: int
    told: int  # entries our same section cites an item of
    told_anywhere: int  # entries any of our analysis sections cites an item of


def score_stories(entries: Entries, cited: dict[str, set[int]]) -> dict[str, StoryCount]:
    """The day's stories told, per section and pooled over the sections that give entries."""
    anywhere = set().union(*(cited.get(k, set()) for k in SECTIONS))
    out = {}
    for key in SECTIONS:
        given = entries.get(key)
        if given is None:
            out[key] = StoryCount(False, 0, 0, 0)
            continue
        here = cited.get(key, set())
        out[key] = StoryCount(True, len(given), sum(bool(e & here) for e in given),
                              sum(bool(e & anywhere) for e in given))
    counts = [out[k] for k in SECTIONS]
    out[POOLED] = StoryCount(any(c.given for c in counts), *(sum(getattr(c, f) for c in counts)
                                                             for f in ("entries", "told", "told_anywhere")))
    return out


@dataclass(frozen=True)
class StoryFigures:
    given_days: int  # days on which the file gives the section's entries
    entries: int
    told: int
    told_anywhere: int

    @property
    def recall(self) -> float | None:
        return self.told / self.entries if self.entries else None

    @property
    def recall_anywhere(self) -> float | None:
        return self.told_anywhere / self.entries if self.entries else None

    @property
    def status(self) -> str | None:
        """Why the section has no story recall, in words; None when it has one."""
        if not self.given_days:
            return "not given: the selections file has no entries for this section"
        if not self.entries:
            return "no entries: the original tells no story in this section on these days"
        return None


def aggregate_stories(counts: Sequence[StoryCount]) -> StoryFigures:
    return StoryFigures(sum(c.given for c in counts), *(sum(getattr(c, f) for c in counts)
                                                        for f in ("entries", "told", "told_anywhere")))


# --- the editor's own consistency where two of its windows overlap -----------------------------------

@dataclass(frozen=True)
class Window:
    start: dt.datetime
    end: dt.datetime
    lists: dict[str, frozenset[int]]  # the window's five lists


def load_windows(path: Path) -> dict[str, Window] | None:
    """day -> the original's report window (``window_start``, ``window_end``, ``lists`` of expected.json);
    None when there is no such file beside the selections."""
    if not path.is_file():
        return None
    try:
        days = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON (line {exc.lineno}): {exc.msg}") from None
    if not isinstance(days, list):
        raise ValueError(f"{path}: expected a list of window objects, got {type(days).__name__}")
    out = {}
    for i, w in enumerate(days):
        where = f"{path}: entry {i}"
        try:
            day = w["day"]
            start, end = dt.datetime.fromisoformat(w["window_start"]), dt.datetime.fromisoformat(w["window_end"])
            lists = {k: frozenset(int(n) for n in v) for k, v in w["lists"].items()}
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"{where}: no usable day, window_start, window_end and lists "
                             f"({type(exc).__name__}: {exc})") from None
        if start.tzinfo is None or end.tzinfo is None or end <= start:
            raise ValueError(f"{where} ({day}): window {w['window_start']!r} … {w['window_end']!r} "
                             "is not an interval with a time zone")
        out[day] = Window(start, end, lists)
    return out


@dataclass(frozen=True)
class Agreement:
    """One section over every pair of overlapping windows: how often the editor features again what it featured.

    ``featured`` counts, in both directions, a shared item featured in the section by one window of a pair;
    ``again`` those the other window features in the section too (so again / featured = 2·both / (a + b)).
    ``stories`` and ``stories_again``: the same for entries that hold a shared item, told again when the other
    window's section cites any of the entry's items."""

    featured: int
    again: int
    stories: int
    stories_again: int

    @property
    def rate(self) -> float | None:
        return self.again / self.featured if self.featured else None

    @property
    def story_rate(self) -> float | None:
        return self.stories_again / self.stories if self.stories else None


@dataclass(frozen=True)
class Overlaps:
    pairs: int  # pairs of windows that overlap, both with selections
    longest: dt.timedelta
    shared: int  # items in the same list of both windows of a pair (an event inside the overlap), summed
    sections: dict[str, Agreement]


def editor_agreement(windows: dict[str, Window], picks: dict[str, dict[str, set[int]]],
                     entries: dict[str, Entries]) -> Overlaps:
    """The editor against itself on the items two overlapping windows share."""
    days = sorted(d for d in picks if d in windows)
    pairs, longest, shared_total = 0, dt.timedelta(0), 0
    tally = {k: [0, 0, 0, 0] for k in SECTIONS}
    for i, a in enumerate(days):
        for b in days[i + 1:]:
            wa, wb = windows[a], windows[b]
            overlap = min(wa.end, wb.end) - max(wa.start, wb.start)
            if overlap <= dt.timedelta(0):
                continue
            pairs += 1
            longest = max(longest, overlap)
            # the same event seen by both windows: the item is in the same list of each
            shared = set().union(*(wa.lists[k] & wb.lists.get(k, frozenset()) for k in wa.lists))
            shared_total += len(shared)
            for key in SECTIONS:
                t = tally[key]
                for mine, other in ((a, b), (b, a)):
                    featured = picks[mine][key] & shared
                    t[0] += len(featured)
                    t[1] += len(featured & picks[other][key])
                    for entry in entries.get(mine, {}).get(key) or ():
                        if entry & shared:
                            t[2] += 1
                            t[3] += bool(entry & picks[other][key])
    return Overlaps(pairs, longest, shared_total, {k: Agreement(*tally[k]) for k in SECTIONS})


# --- leave-one-day-out for the fitted sections -------------------------------------------------------

@dataclass(frozen=True)
class LooFigures:
    folds: int
    l2: float
    limit: int
    picks: int
    hits: int
    cited: int
    entries: int
    told: int

    @property
    def recall(self) -> float | None:
        return self.hits / self.picks if self.picks else None

    @property
    def cite_ratio(self) -> float | None:
        return self.cited / self.picks if self.picks else None

    @property
    def story_recall(self) -> float | None:
        return self.told / self.entries if self.entries else None


def loo_stories(warehouse: Path, picks: dict[str, dict[str, set[int]]], entries: dict[str, Entries],
                days: Sequence[str], weights_path: Path) -> dict[str, LooFigures]:
    """For each fitted section, leave-one-day-out over ``days`` (the fit days): refit the section's model
    (tools.editorial.fit_selection, the l2 and limit that selection_weights.json records) on the other days, take the
    held-out day's first ``limit`` candidates in the section's order, and count items and stories found."""
    import duckdb

    from tools.editorial import fit_selection as fs
    from tools.editorial.editorial import leave_one_day_out
    saved = json.loads(weights_path.read_text(encoding="utf-8"))
    out = {}
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        for section in fs.SECTIONS:
            l2 = float(saved["provenance"][section]["l2"])
            limit = int(saved["models"][section]["limit"])
            rows = fs.read_rows(con, section, picks, days)
            hits = cited = n_entries = told = 0
            for train, test in leave_one_day_out(days):
                kept = set(train)
                bias, weights = fs.fit([r for r in rows if r[0] in kept], l2)
                chosen = {r[1] for r in fs.ranked([r for r in rows if r[0] == test], bias, weights,
                                                  section).get(test, [])[:limit]}
                hits += len(chosen & picks[test][section])
                cited += len(chosen)
                day_entries = entries.get(test, {}).get(section) or ()
                n_entries += len(day_entries)
                told += sum(bool(e & chosen) for e in day_entries)
            out[section] = LooFigures(len(days), l2, limit, sum(len(picks[d][section]) for d in days),
                                      hits, cited, n_entries, told)
    finally:
        con.close()
    return out
