"""Parse an issue or PR body written in vLLM's templates into what it says.

A body is untrusted Markdown that is mostly template: the PR template's ``## Purpose`` /
``## Test Plan`` / ``## Test Result`` headings, its unfilled "PLEASE FILL IN THE PR DESCRIPTION
HERE ..." line, the "Essential Elements" checklist in a ``<details>``; the issue templates'
``### Your current environment`` with its collapsed ``collect_env`` dump, ``### 🐛 Describe the
bug``, the RFC's ``Motivation.`` / ``Proposed Change.``, "Before submitting" checkboxes, HTML
comments. ``parse_body`` keeps what the author wrote and drops what the template wrote:

- ``purpose``: the text of the Purpose / Summary / Describe-the-bug / Motivation section (or, when
  the body has none of those, its prose outside the template's sections);
- ``what``: that text's first meaningful sentence, plain, cut at a sentence boundary: the one line
  that says what the item does ("" when the author wrote nothing, never the placeholder);
- ``test_plan``, ``test_result`` and ``figures`` (numbers with their units, from the results);
- ``references``: the items a ``FIX #N`` / ``Closes #N`` / ``Resolves <issue URL>`` names;
- ``changes``, ``claims``, ``test_commands``: its Changes list, each figure it reports in the sentence or table
  row that gives it its meaning, and what its Test Plan ran (``warehouse/substance.py``);
- ``text``: the author's meaningful text for topic matching: prose of every kept section, never an
  environment dump, a checklist, a comment or a template line.

Pure functions of the text: the warehouse lands them as ``core_item_texts``. Identifiers keep their
underscores (``num_cached_tokens``): only emphasis markers at word edges are removed.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

# how much of a body is kept lives with the lengths the report prints it at
from vllm_digest.core.text.limits import MAX_FIGURES, SECTION_CHARS, TEXT_CHARS, WHAT_CHARS
from vllm_digest.core.text.markup import (
    CHECKBOX,
    EMPHASIS,
    HTML_COMMENT,
    LINE_IMAGE,
    LINE_INLINE_CODE,
    LINE_LINK,
    LINE_TAG,
    STRUCTURE,
    TEMPLATE_MARK,
    UNDERSCORE_PHRASE,
    sub_fenced,
    sub_markup,
)
from vllm_digest.warehouse.substance import changes_of, claims_of, commands_of


@dataclass(frozen=True)
class BodyParts:
    purpose: str = ""
    what: str = ""
    test_plan: str = ""
    test_result: str = ""
    figures: tuple[str, ...] = ()
    references: tuple[int, ...] = ()
    text: str = ""
    sections: tuple[str, ...] = field(default=())  # the kinds of section found, in body order
    changes: tuple[str, ...] = ()
    claims: tuple[str, ...] = ()
    test_commands: tuple[str, ...] = ()

    @property
    def has_description(self) -> bool:
        return bool(self.what or self.text)


# ---------------------------------------------------------------- fast paths
# Characters that Python's case-insensitive matching equates with an ASCII letter while str.lower() does
# not turn them into it (dotless ı, İ, long ſ, the Kelvin sign): a text holding one always takes the
# regex, so a guard on the lowered text never skips a match.
_FOLDS_TO_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")
_FOLD_CHAR = re.compile("[" + "".join(_FOLDS_TO_ASCII) + "]")


def _may_hold(text: str, *words: str) -> bool:
    """False only when no case-insensitive match of a pattern needing one of ``words`` can be in ``text``:
    a substring test in C is ~100x cheaper than a regex scan, and most bodies hold none of the words."""
    # isascii() is a flag read: an ASCII text holds none of them
    if not text.isascii() and _FOLD_CHAR.search(text):
        return True
    low = text.lower()
    return any(w in low for w in words)


def _has_fence(text: str) -> bool:
    return "```" in text or "~~~" in text


# ---------------------------------------------------------------- what the templates write
# the PR template's unfilled first line, and its closing instruction: template text wherever they are
_PLACEHOLDER = re.compile(r"(?i)please fill in the pr description here\b[^\n]*")
_TEMPLATE_LINES = re.compile(
    r"(?im)^[^\n]*(?:before submitting, please read|anything written below this line will be removed"
    r"|your output of `?python collect_env\.py`? here)[^\n]*$"
)
# a <details> block to its end; a "<details" that no ">" follows is no block (kept, with the rest, as markup.py's
# unclosed constructs are)
_DETAILS = re.compile(r"<details\b[^>]*(?:>.*?(?:</details\s*>|\Z)|(?P<keep>))", re.S | re.I)
_TEMPLATE_DETAILS = re.compile(r"(?i)essential elements|collect_env|current environment|environment information")
# what `python collect_env.py` prints, when pasted outside its <details>
_ENV_DUMP_WORDS = (
    "collecting environment information", "pytorch version:", "rocm used to build pytorch",
    "is debug build:", "cuda used to build pytorch", "versions of relevant libraries",
)
_ENV_DUMP = re.compile("(?i)" + "|".join(re.escape(w) for w in _ENV_DUMP_WORDS))

# section kinds, from a heading's normalised words
_KINDS = (
    ("purpose", r"purpose|summary|description|pr description|what does this pr do|what this pr does|overview|"
                r"describe the bug|the feature motivation and pitch|motivation|the doc issue|"
                r"proposal to improve performance|report of performance regression|"
                r"misc discussion on performance|how would you like to use vllm|describe the failing test|"
                r"your question|anything you want to discuss about vllm"),
    ("changes", r"changes|what changed|modifications|changes made|key changes|main changes|summary of changes|"
                r"list of changes|code changes"),
    ("proposal", r"proposed change|suggest a potential alternative fix|alternatives|proposal"),
    ("test_plan", r"test plan|testing|how was this tested|tests"),
    ("test_result", r"test results?|results?|benchmarks?|benchmark results?|performance results?"),
    ("skip", r"your current environment|environment|before submitting a new issue|"
             r"essential elements of an effective pr description checklist|checklist|"
             r"optional documentation update|documentation update|optional release notes update|"
             r"release notes|cc list|feedback period|how you are installing vllm|"
             r"history of failing test|basic information|name of failing test"),
)
_KIND_OF = [(kind, re.compile(rf"^(?:{words})$")) for kind, words in _KINDS]
# which kinds say what the item is about, best first
_PURPOSE_ORDER = ("purpose", "proposal")

# its text is the rest of the line, closing blanks and #s stripped in code: a lazy "(.*?)[ \t#]*$" tried each
# position of the line against the blanks after it (11 s for a 64 KB line of blanks)
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*)")
_BOLD_HEADING = re.compile(r"^[ \t]*(?:\*\*|__)([^*_\n]{2,60}?)(?:\*\*|__)[ \t]*:?[ \t]*$")
# "Purpose: text" on one line
_LABEL_LINE = re.compile(r"^[ \t]*(?:\*\*|__)?([A-Za-z][A-Za-z ]{2,30}?)(?:\*\*|__)?[ \t]*:[ \t]*(.*)$")


_OPTIONAL = re.compile(r"\(optional\)")
_NOT_HEADING_WORD = re.compile(r"[^a-z0-9 ]+")


def _normal_heading(text: str) -> str:
    text = _OPTIONAL.sub(" ", text.lower())
    text = _NOT_HEADING_WORD.sub(" ", text)
    return " ".join(text.split())


def heading_kind(text: str) -> str | None:
    """The section kind a heading names, or None for a heading of the author's own."""
    name = _normal_heading(text)
    for kind, pattern in _KIND_OF:
        if pattern.match(name):
            return kind
    return None


# ---------------------------------------------------------------- markup to plain text (core/text/markup.py)
_CODE_SLOT = "\x00{}\x00"
_CODE_SLOT_BACK = re.compile("\x00(\\d+)\x00")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")


def _inline_plain(line: str) -> str:
    # each substitution runs only when the line holds a character its every match must contain: most
    # lines are plain prose, and these eight passes over a year's 53 MB of lines were a third of the
    # warehouse's body parsing (the guards are exact: without the character every match is a kept
    # unclosed construct or none, so the result is the same)
    line = line.replace("\x00", "")
    if "](" in line:
        line = sub_markup(LINE_LINK, r"\1", sub_markup(LINE_IMAGE, " ", line))
    if "<" in line:
        line = sub_markup(LINE_TAG, " ", line)
    # a bare URL stays: it is part of the author's sentence, and the report's escaping makes it inert text
    # code spans are kept verbatim: set aside while emphasis is stripped
    spans: list[str] = []

    def keep(m: re.Match) -> str:
        spans.append(m.group(1))
        return _CODE_SLOT.format(len(spans) - 1)

    if "`" in line:
        line = LINE_INLINE_CODE.sub(keep, line)
    if "{" in line:
        line = sub_markup(TEMPLATE_MARK, " ", line)
    if "*" in line or "~" in line:
        line = EMPHASIS.sub("", line)
    if "_" in line:
        line = UNDERSCORE_PHRASE.sub(r"\2", line)
    if spans:
        line = _CODE_SLOT_BACK.sub(lambda m: spans[int(m.group(1))], line)
    return " ".join(line.split())


# the characters CHECKBOX's or STRUCTURE's match, and _LIST_MARK's (besides a digit), can start with after blanks
_STRUCTURE_HEADS = frozenset("-*+>|=_")
_LIST_HEADS = frozenset("-*+")


def _prose_lines(text: str) -> list[str]:
    """A section's lines as plain text, code blocks, checkboxes, quotes and tables left out; a
    paragraph wrapped over several lines is joined, each list item is its own line."""
    if _has_fence(text):
        text = sub_fenced(text, _NEWLINE)
    out: list[str] = []
    joining = False
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped:
            joining = False
            continue
        # the three line patterns start with blanks (\s, what strip() removes) then one of these characters: a
        # line starting otherwise (most are prose) matches none of them, and skips their three scans
        head = stripped[0]
        if head in _STRUCTURE_HEADS and (CHECKBOX.match(raw) or STRUCTURE.match(raw)):
            joining = False
            continue
        mark = _LIST_MARK.match(raw) if head in _LIST_HEADS or head.isdecimal() else None
        item = mark is not None
        line = _inline_plain(raw[mark.end():] if mark else raw)
        if not line:
            joining = False
            continue
        if joining and not item:
            out[-1] = f"{out[-1]} {line}"
        else:
            out.append(line)
        joining = True
    return out


# ---------------------------------------------------------------- sentences, figures, references
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "approx.", "incl.", "cf.", "no.", "fig.", "eq.")
_ABBREVIATION_CHARS = max(map(len, _ABBREVIATIONS)) + 1
# at least twelve word characters: matched up to the twelfth, not counted over a whole long line
_TWELVE_WORD_CHARS = re.compile(r"(?:\W*\w){12}")
_INITIAL = re.compile(r"\b[A-Z]\.$")
_SENTENCE_END = re.compile(r"[.!?。！？](?=\s|$)")
# a line of nothing but references. Each reference is an atomic group: a URL takes its whole run of non-blanks
# at once, since references run together ("…/issues/1https://…/issues/2") could otherwise be split in
# exponentially many ways before the line is found not to be one (18 of them took a minute)
_ONLY_REFS = re.compile(
    r"(?i)^(?:(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|related(?: to)?|part of|follow[- ]up(?: to| of)?|see|"
    r"ref(?:s)?|issue)\b[:\s]*)?(?:(?>#\d+|https?://github\.com/\S+/(?:issues|pull)/\d+\S*)[\s,;]*(?:and\s*)?)+[.:]?$"
)


def first_sentence(lines: list[str], limit: int = WHAT_CHARS) -> str:
    """The first line that says something, cut after its first sentence (at most ``limit`` characters)."""
    for line in lines:
        if _ONLY_REFS.match(line) or not _TWELVE_WORD_CHARS.match(line):
            continue
        return cut_sentence(line, limit)
    return ""


def cut_sentence(line: str, limit: int = WHAT_CHARS) -> str:
    for m in _SENTENCE_END.finditer(line):
        end = m.end()
        # only the last characters before the end tell an abbreviation or an initial (reading the whole head
        # at each end took 18 s for a 64 KB line of initials)
        tail = line[max(0, end - _ABBREVIATION_CHARS):end]
        if tail.lower().endswith(_ABBREVIATIONS) or _INITIAL.search(tail[-3:]):
            continue  # "e.g." or an initial is not a sentence's end
        line = line[:end]
        break
    if len(line) > limit:
        cut = line[: limit - 1]
        cut = cut[: cut.rfind(" ")] if " " in cut[limit // 2:] else cut
        line = cut.rstrip(" ,;:-") + "…"
    return line


_UNIT = (r"(?:x|×|%|ms|µs|us|ns|s|sec|secs|seconds|min|minutes|h|hours|"
         r"tok/s|tokens/s|token/s|tps|req/s|requests/s|it/s|qps|"
         r"[KMGT]i?B|[KMGT]B/s|GB/s|TFLOPS|GFLOPS|TB/s|tokens|pp|points)")
_FIGURE = re.compile(rf"(?<![\w.])[-+]?\d+(?:[.,]\d+)?\s?{_UNIT}(?![\w/])", re.I)
_CLOSING = re.compile(r"(?i)\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\b[:\s]*((?:#\d+|[\s,]+|and\b|"
                      r"https?://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+)+)")
_NUMBER = re.compile(r"#(\d+)|/(?:issues|pull)/(\d+)")


def figures_of(text: str) -> tuple[str, ...]:
    found: list[str] = []
    for m in _FIGURE.finditer(text):
        figure = " ".join(m.group(0).split())
        if figure not in found:
            found.append(figure)
    return tuple(found[:MAX_FIGURES])


def references_of(text: str) -> tuple[int, ...]:
    """The items a closing keyword names: ``FIX #12``, ``Closes #3, #4``, ``Resolves <issue URL>``."""
    found: list[int] = []
    if not _may_hold(text, "fix", "close", "resolve"):
        return ()
    for m in _CLOSING.finditer(text):
        for a, b in _NUMBER.findall(m.group(1)):
            n = int(a or b)
            if n not in found:
                found.append(n)
    return tuple(found)


# ---------------------------------------------------------------- sections
@dataclass
class _Section:
    kind: str | None  # None: text before any heading, or under a heading of the author's own
    lines: list[str]


_FENCE_LINE = re.compile(r"^[ \t]*(```|~~~)")
_FENCE_HEADS = frozenset("`~")
_BOLD_HEADS = frozenset("*_")


def _ascii_letter(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


def _sections(body: str) -> list[_Section]:
    sections = [_Section(None, [])]
    fence = ""  # the open code block's fence: only a run of its character at least as long closes it
    for raw in body.splitlines():
        # every match of the line patterns starts, after spaces and tabs, with its own characters (a fence's `/~,
        # a heading's #, bold's */_, a label's letter or */_): the first other character rules each out without
        # a scan (lstrip returns the line itself when it starts with neither)
        head = raw.lstrip(" \t")[:1]
        if head in _FENCE_HEADS and _FENCE_LINE.match(raw):
            run = raw.strip(" \t")
            if not fence:
                fence = run[:len(run) - len(run.lstrip(head))]
            elif run.startswith(fence) and not run.strip(fence[0]):
                fence = ""
        if not fence:
            m = (_HEADING.match(raw) if head == "#" else
                 _BOLD_HEADING.match(raw) if head in _BOLD_HEADS else None)
            if m:
                sections.append(_Section(heading_kind(m.group(1).rstrip(" \t#")), []))
                continue
            # every label line holds its colon
            label = _LABEL_LINE.match(raw) if ":" in raw and (head in _BOLD_HEADS or _ascii_letter(head)) else None
            kind = heading_kind(label.group(1)) if label else None
            if kind:
                sections.append(_Section(kind, [label.group(2)] if label.group(2).strip() else []))
                continue
        sections[-1].lines.append(raw)
    return sections


def _details(m: re.Match) -> str:
    """The template's collapsed blocks (the checklist, collect_env dumps) go; an author's own (a long log, a
    benchmark's output) is kept without its tags."""
    block = m.group(0)
    if m.group("keep") is not None:
        return block
    return "\n" if _TEMPLATE_DETAILS.search(block) else sub_markup(LINE_TAG, "\n", block)


def _without_template(body: str) -> str:
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    body = HTML_COMMENT.sub("\n", body)
    body = _DETAILS.sub(_details, body)
    if _may_hold(body, "please fill in the pr description here"):
        body = _PLACEHOLDER.sub("", body)
    if _may_hold(body, "before submitting, please read", "anything written below this line will be removed",
                 "your output of"):
        body = _TEMPLATE_LINES.sub("", body)
    if not _has_fence(body):
        return body
    # a pasted environment dump outside its <details>: drop the code block that holds it
    return sub_fenced(body, _without_env_dump)


def _without_env_dump(block: str) -> str:
    return "\n" if _may_hold(block, *_ENV_DUMP_WORDS) and _ENV_DUMP.search(block) else block


def _NEWLINE(block: str) -> str:
    return "\n"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@functools.lru_cache(maxsize=4096)
def parse_body(body: str | None) -> BodyParts:
    """What an issue or PR body says, template text left out (see the module docstring)."""
    if not body or not body.strip():
        return BodyParts()
    references = references_of(HTML_COMMENT.sub(" ", body))
    sections = _sections(_without_template(body))
    by_kind: dict[str, list[str]] = {}
    kept: list[str] = []
    for s in sections:
        if s.kind == "skip":
            continue
        lines = _prose_lines("\n".join(s.lines))
        if s.kind is not None:
            by_kind.setdefault(s.kind, []).extend(lines)
        else:
            by_kind.setdefault("other", []).extend(lines)
        if s.kind not in ("test_plan", "test_result"):
            kept.extend(lines)
    # a Changes list is its own part; it stands for the purpose only when the author wrote no other
    purpose_lines = [line for k in _PURPOSE_ORDER for line in by_kind.get(k, [])] or by_kind.get("changes", [])
    what = (first_sentence(by_kind.get("purpose", [])) or first_sentence(by_kind.get("proposal", []))
            or first_sentence(by_kind.get("changes", [])))
    if not what:
        # no Purpose written: the author's own prose before or outside the template's sections
        what = first_sentence(by_kind.get("other", []))
        purpose_lines = purpose_lines or by_kind.get("other", [])
    result = "\n".join(by_kind.get("test_result", []))
    raw_result = "\n".join(s_line for s in sections if s.kind == "test_result" for s_line in s.lines)
    raw_plan = [s_line for s in sections if s.kind == "test_plan" for s_line in s.lines]
    claim_source = [line for k in ("purpose", "proposal", "changes") for line in by_kind.get(k, [])] or \
        by_kind.get("other", [])
    return BodyParts(
        purpose=_clip("\n".join(purpose_lines), SECTION_CHARS),
        what=what,
        test_plan=_clip("\n".join(by_kind.get("test_plan", [])), SECTION_CHARS),
        test_result=_clip(result, SECTION_CHARS),
        # a result's figures are often in its code block (a benchmark's output), so read the raw section
        figures=figures_of(raw_result),
        references=references,
        text=_clip("\n".join(kept), TEXT_CHARS),
        sections=tuple(s.kind or "other" for s in sections if s.lines and any(x.strip() for x in s.lines)),
        changes=changes_of(by_kind.get("changes", []), cut_sentence),
        claims=claims_of(raw_result.splitlines(), claim_source, _plain_lines, _FIGURE, cut_sentence),
        test_commands=commands_of(raw_plan),
    )


def _plain_lines(lines: list[str]) -> list[str]:
    return _prose_lines("\n".join(lines))
