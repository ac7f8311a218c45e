"""One-line gists of untrusted bodies, extractive: nothing is paraphrased.

Issue and PR bodies are mostly template boilerplate (headings, checklists,
HTML comments, code); the first sentence that is none of those is what a
reader needs next to the title. The result is plain text: callers pass it
through md_inline or HTML autoescaping like any other untrusted text.
"""

from __future__ import annotations

import functools
import re

from vllm_digest.report.markdown_safe import plain_inline

GIST_CHARS = 160

_FENCE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.S)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_URL = re.compile(r"(?i)\b(?:https?|ftp|javascript|data|vbscript|file):\S*")
_INLINE_CODE = re.compile(r"`([^`]*)`")
# emphasis markers (* and ~) at a word's edge only; underscores stay, since identifiers (num_cached_tokens,
# __init__) carry them and a one-word _emphasis_ cannot be told from one
_EMPHASIS = re.compile(r"(?<![\w*~])[*~]{1,3}(?=\S)|(?<=\S)[*~]{1,3}(?![\w*~])")
_TEMPLATE_MARK = re.compile(r"\{[{%#].*?[}%#]\}")
# lines that carry structure, not content: headings, checkboxes, quotes, tables, rules
_BOILERPLATE = re.compile(
    r"^\s*(?:#{1,6}\s|[-*+]\s*\[[ xX]\]|>|\||[-=*_]{3,}\s*$)"
)
_TEMPLATE_LINE = re.compile(
    r"(?i)^\s*(?:purpose|test plan|test result|essential elements|before submitting|"
    r"your current environment|describe the bug|motivation|summary|fix(?:es)?\s*#?\d*)\s*:?\s*$"
)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s")


def strip_markup(text: str) -> str:
    text = _FENCE.sub(" ", text)
    text = _HTML_COMMENT.sub(" ", text)
    text = _IMAGE.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    text = _TAG.sub(" ", text)
    text = _URL.sub(" ", text)
    text = _INLINE_CODE.sub(r"\1", text)
    text = _TEMPLATE_MARK.sub(" ", text)
    return text


# each language's sections ask for the same items' gists
@functools.lru_cache(maxsize=1024)
def first_sentence(body: str | None, limit: int = GIST_CHARS) -> str:
    """The first informative sentence of a body, or "" when there is none."""
    if not body:
        return ""
    for raw in strip_markup(body).splitlines():
        if _BOILERPLATE.match(raw) or _TEMPLATE_LINE.match(raw):
            continue
        line = _EMPHASIS.sub("", raw).strip(" -*+\t")
        line = re.sub(r"^\d+[.)]\s+", "", line)
        # a line of a few symbols or a lone word says nothing next to a title
        if len(re.findall(r"\w", line)) < 12:
            continue
        sentence = _SENTENCE_END.split(line, 1)[0]
        return plain_inline(sentence, limit)
    return ""


def excerpt(body: str | None, limit: int = 120) -> str:
    """A short quote of a comment, markup stripped."""
    return first_sentence(body, limit) or plain_inline(_EMPHASIS.sub("", strip_markup(body or "")), limit)
