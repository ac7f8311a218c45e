"""What a PR description claims and changes, beyond its one-line purpose: the lines the narrative's facts pack
quotes as the author's own words (report/facts.py).

- ``changes_of``: the list items of a Changes / Modifications section, each whole (a long one cut at its
  first sentence's end, never mid-clause);
- ``claims_of``: each figure of the Test Result or benchmark with the sentence or table row that gives it its
  meaning ("Throughput improves by +1% to 8%, depending on the configuration.", a table row as
  "config: TP=2, batch 32; before: 1989 tok/s; after: 2128 tok/s"), then the purpose's sentences that
  hold one;
- ``commands_of``: what the Test Plan ran, the first lines of its code blocks.

Pure functions of a section's raw lines (``bodies.parse_body`` cuts the body into sections first). A fence
closes only on a line of the same character at least as long as its opening (CommonMark's rule), so a
benchmark log that quotes a fence of its own stays one block. Tables follow GitHub's: a header row, a
delimiter row of dashes, then rows until a line without a pipe. Untrusted text: the report makes it plain.
"""

from __future__ import annotations

import re

from vllm_digest.core.text.limits import CHANGE_CHARS, CLAIM_CHARS, MAX_CHANGES, MAX_CLAIMS, MAX_COMMANDS

_FENCE_OPEN = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_DELIMITER_CELL = re.compile(r"^:?-{3,}:?$")
# a figure: a number with a unit (bodies.figures_of's), or a comparison of two numbers ("0.91 -> 0.93")
_COMPARISON = re.compile(r"\d(?:[.,]\d+)?\s*(?:->|→|=>|to|vs\.?)\s*[-+]?\d", re.I)
_DIGIT = re.compile(r"\d")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+")


def fenced_split(lines: list[str]) -> tuple[list[str], list[str]]:
    """(the lines outside code blocks, the non-blank lines inside them), by CommonMark's fence rule."""
    outside: list[str] = []
    inside: list[str] = []
    fence = ""
    for line in lines:
        if fence:
            if line.strip(" \t").rstrip() and set(line.strip()) == {fence[0]} and len(line.strip()) >= len(fence):
                fence = ""
            elif line.strip():
                inside.append(line.strip())
            continue
        m = _FENCE_OPEN.match(line)
        if m:
            fence = m.group(1)
            continue
        outside.append(line)
    return outside, inside


def _cells(line: str) -> list[str]:
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", text)]


def table_rows(lines: list[str]) -> tuple[list[str], list[str]]:
    """(each data row of the tables in ``lines`` as "header: cell; ...", the lines that are not table lines)."""
    rows: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if "|" in line and "-" in nxt and all(_DELIMITER_CELL.match(c) for c in _cells(nxt) if c) and _cells(nxt):
            header = _cells(line)
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                cells = _cells(lines[i])
                pairs = [f"{h}: {c}" if h else c for h, c in zip(header, cells) if c]
                rows.append("; ".join(pairs))
                i += 1
            continue
        rest.append(line)
        i += 1
    return rows, rest


def holds_figure(text: str, figure: re.Pattern) -> bool:
    return bool(figure.search(text) or _COMPARISON.search(text))


def _whole(text: str, limit: int, cut) -> str:
    """``text`` if it fits, else its first sentence (``cut``, bodies.cut_sentence): never a clause cut short
    unless one sentence alone is longer than ``limit``."""
    return text if len(text) <= limit else cut(text, limit)


def claims_of(result_lines: list[str], purpose_lines: list[str], prose, figure: re.Pattern, cut) -> tuple[str, ...]:
    """The figures the author reports, each in the sentence or table row that says what it means: the Test
    Result's prose sentences and table rows, then the lines of its code blocks (a benchmark's output), then the
    purpose's sentences. ``prose`` turns raw lines into plain lines (bodies' reader), ``figure`` finds a number
    with its unit, ``cut`` ends a text at a sentence."""
    outside, inside = fenced_split(result_lines)
    rows, rest = table_rows(outside)
    found: list[str] = []

    def add(text: str, need_figure: bool = True) -> None:
        text = " ".join(text.split())
        if text and (not need_figure or holds_figure(text, figure)) and text not in found and len(found) < MAX_CLAIMS:
            found.append(_whole(text, CLAIM_CHARS, cut))

    for line in prose(rest):
        for sentence in _SENTENCE.split(line):
            add(sentence)
    for row in rows:
        if _DIGIT.search(row):
            add(prose([row])[0] if prose([row]) else row, need_figure=False)
    for line in inside:
        add(line)
    for line in purpose_lines:
        for sentence in _SENTENCE.split(line):
            if figure.search(sentence):
                add(sentence)
    return tuple(found)


def changes_of(lines: list[str], cut) -> tuple[str, ...]:
    """The first ``MAX_CHANGES`` lines of a Changes section (each list item is a line), each whole."""
    return tuple(_whole(line, CHANGE_CHARS, cut) for line in lines[:MAX_CHANGES] if line.strip())


def commands_of(plan_lines: list[str]) -> tuple[str, ...]:
    """What a Test Plan ran: the first lines of its code blocks."""
    _, inside = fenced_split(plan_lines)
    return tuple(" ".join(line.split())[:CHANGE_CHARS] for line in inside[:MAX_COMMANDS])
