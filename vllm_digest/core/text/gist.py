"""One-line gists of untrusted bodies, extractive: nothing is paraphrased.

Issue and PR bodies are mostly template boilerplate (headings, checklists,
HTML comments, code); the first sentence that is none of those is what a
reader needs next to the title. The result is plain text: callers pass it
through md_inline or HTML autoescaping like any other untrusted text.
"""

from __future__ import annotations

import functools
import re

from vllm_digest.core.text.markdown_safe import plain_inline
from vllm_digest.core.text.markup import (
    CHECKBOX,
    EMPHASIS,
    FENCE,
    HEADING_LINE,
    HTML_COMMENT_KEEPING_LAST_BREAK,
    IMAGE,
    INLINE_CODE,
    LINK,
    STRUCTURE,
    TAG,
    TEMPLATE_MARK,
    URL,
    sub_markup,
)

GIST_CHARS = 160

_TEMPLATE_LINE = re.compile(
    r"(?i)^\s*(?:purpose|test plan|test result|essential elements|before submitting|"
    r"your current environment|describe the bug|motivation|summary|fix(?:es)?\s*#?\d*)\s*:?\s*$"
)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s")


def strip_markup(text: str) -> str:
    """A whole comment without its code, comments, images, tags, addresses and template syntax; a link keeps
    its text (the patterns are core/text/markup.py's, which the body parser shares)."""
    # each pass only when the text holds a character its every match contains (most comments are plain
    # prose; without it every match would be none or a kept unclosed construct, so the text is the same)
    if "```" in text or "~~~" in text:
        text = FENCE.sub(" ", text)
    if "<" in text:
        text = HTML_COMMENT_KEEPING_LAST_BREAK.sub(" ", text)
    if "](" in text:
        text = sub_markup(LINK, r"\1", sub_markup(IMAGE, " ", text))
    if "<" in text:
        text = sub_markup(TAG, " ", text)
    if ":" in text:
        text = URL.sub(" ", text)
    if "`" in text:
        text = INLINE_CODE.sub(r"\1", text)
    if "{" in text:
        text = sub_markup(TEMPLATE_MARK, " ", text)
    return text


def _boilerplate(line: str) -> bool:
    """A line that carries structure, not content: a heading, a checkbox, a quote, a table, a rule."""
    return bool(HEADING_LINE.match(line) or CHECKBOX.match(line) or STRUCTURE.match(line))


# each language's sections ask for the same items' gists
@functools.lru_cache(maxsize=1024)
def first_sentence(body: str | None, limit: int = GIST_CHARS) -> str:
    """The first informative sentence of a body, or "" when there is none."""
    if not body:
        return ""
    for raw in strip_markup(body).splitlines():
        if _boilerplate(raw) or _TEMPLATE_LINE.match(raw):
            continue
        line = EMPHASIS.sub("", raw).strip(" -*+\t")
        line = re.sub(r"^\d+[.)]\s+", "", line)
        # a line of a few symbols or a lone word says nothing next to a title
        if len(re.findall(r"\w", line)) < 12:
            continue
        sentence = _SENTENCE_END.split(line, 1)[0]
        return plain_inline(sentence, limit)
    return ""


def excerpt(body: str | None, limit: int = 120) -> str:
    """A short quote of a comment, markup stripped."""
    return first_sentence(body, limit) or plain_inline(EMPHASIS.sub("", strip_markup(body or "")), limit)
