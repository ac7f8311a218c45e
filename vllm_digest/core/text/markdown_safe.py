"""Make untrusted item text inert inside one line of Markdown.

Titles are printed as they are wherever that is safe, so the appendix matches
the seed report byte for byte; only what could start a link, an image, raw
HTML, an autolink or a new block is neutralised, and control, bidi and
invisible characters are dropped. ``md_block`` does the same
for a multi-line body (an LLM-written section): lists, bold and code stay.
"""

from __future__ import annotations

import functools
import re

MAX_INLINE_CHARS = 300

# Bidi controls (embeddings and overrides U+202A-U+202E, isolates U+2066-U+2069, the marks U+200E,
# U+200F and U+061C) and invisible characters (U+200B-U+200D, U+2060-U+2064, U+206A-U+206F, U+FEFF):
# an unterminated U+202E in a title would mirror the rest of the line, our "— labels — by author
# (time)" included, and invisible ones hide what a text really says. Untrusted text never needs them.
_INVISIBLE = "\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029{_INVISIBLE}]")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_WHITESPACE_BREAKS = re.compile(r"[\r\n\t]+")
# every character the three patterns above start with: a text holding none is already one clean line
_UNCLEAN = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_INVISIBLE}]")
# CommonMark raw HTML: an open/close tag, comment, declaration or processing
# instruction. `<tool_call>` (underscore) and `<parameter=>` are not tags and
# stay literal, as in the seed.
_HTML_START = re.compile(r"<(?=/?[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|[!?])")
_AUTOLINK = re.compile(r"<(?=[A-Za-z][A-Za-z0-9+.-]{1,31}:)")
_LINK_OPEN = re.compile(r"\](?=\()")
_BARE_URL = re.compile(r"(?i)\b(https?|ftp|javascript|data|vbscript|file)(:)")
_WWW = re.compile(r"(?i)\bwww\.")


# the same titles, labels and logins are escaped for both languages and on many days
@functools.lru_cache(maxsize=4096)
def md_inline(text: str | None, limit: int = MAX_INLINE_CHARS) -> str:
    """One safe line of Markdown from untrusted text."""
    text = plain_inline(text, limit)
    # each pass only when the text holds a character every match of it contains (a year's report step
    # escapes ~120,000 distinct titles, labels and logins, nearly all without any): the same text either way
    if "&" in text and re.search(r"&[#A-Za-z0-9]+;", text):
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = _HTML_START.sub("&lt;", text)
        text = _AUTOLINK.sub("&lt;", text)
    text = text.replace("![", "!\\[")
    if "](" in text:
        text = _LINK_OPEN.sub("\\\\]", text)
    if ":" in text:
        text = _BARE_URL.sub(lambda m: m.group(1) + "\\:", text)
    if "." in text:
        text = _WWW.sub(lambda m: m.group(0)[:-1] + "\\.", text)
    return text


def plain_inline(text: str | None, limit: int = MAX_INLINE_CHARS) -> str:
    """One line of plain text (for HTML, JSON and feeds, which escape on output), without control,
    bidi or invisible characters."""
    if not text:
        return ""
    # most titles, labels and logins are clean; a year's report step calls this ~700,000 times
    if _UNCLEAN.search(text):
        text = _ANSI.sub("", text)
        text = _WHITESPACE_BREAKS.sub(" ", text)
        text = _CONTROL.sub("", text)
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


MAX_BLOCK_LINE_CHARS = 2000
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
# indentation, then any list markers, then the line's content
_LINE = re.compile(r"^( *)((?:(?:[-*+]|\d{1,9}[.)]) +)*)(.*)$")
# content that would open a block of its own: heading, quote, fence, link reference
# definition, or a rule / setext underline (which would turn the line above into a heading)
_BLOCK_OPENER = re.compile(r"^(?:#|>|```|~~~|\[)|^[-=_*+~`](?:[-=_*+~`\s]*)$")


def strip_links(text: str) -> str:
    """Markdown links and images replaced by their text."""
    return _MD_LINK.sub(r"\1", text)


def md_block(text: str | None, line_limit: int = MAX_BLOCK_LINE_CHARS) -> str:
    """A safe multi-line Markdown body from untrusted Markdown: list structure,
    emphasis and code spans are kept; links and images become their text; raw
    HTML, autolinks, headings, rules, quotes and fences are made literal."""
    out: list[str] = []
    for raw in (text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        match = _LINE.match(raw.expandtabs(4).rstrip())
        indent, markers, content = match.groups()
        content = md_inline(strip_links(content), line_limit)
        if _BLOCK_OPENER.match(content):
            content = "\\" + content
        line = f"{indent}{markers}{content}".rstrip()
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n")
