"""The markup of untrusted Markdown (issue and PR bodies, comments): the patterns that strip it to plain text.

One module for its two readers: the body parser (``warehouse/bodies.py``), which reads a body line by line,
and the comment excerpts of 💬 (``core/text/gist.py``), which strip a whole comment at once. The two differ
only where a construct can run over a line break: the ``LINE_*`` patterns stop at a line's end (a body is
cut into lines first, its code blocks dropped whole), the others may span lines (a comment is stripped
before it is cut).

A construct that opens and never closes ("[" with no "](...)", "<a" with no ">", "{{" with no "}}") is left as
it is. The patterns that look for a closing mark take such an opening whole, with what follows it that no
later opening could close either, as a ``keep`` match, and ``sub_markup`` leaves it as it was: otherwise each
opening of a long unclosed run is tried again to the line's end, which took 7 to 18 s on a 64 KB text.
"""

from __future__ import annotations

import re
from typing import Callable

# an HTML comment; an unclosed one runs to the end of the text
HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
# template syntax ({{ x }}, {% x %}, {# x #}) pasted from a Jinja or chat template; unclosed, it keeps its line
TEMPLATE_MARK = re.compile(r"\{[{%#](?:.*?[}%#]\}|(?P<keep>.*))")
# emphasis markers: * and ~ at a word's edge only. Underscores are left to UNDERSCORE_PHRASE, since
# identifiers (num_cached_tokens, __init__, _every_) carry them and a one-word _emphasis_ cannot be told from one
EMPHASIS = re.compile(r"(?<![\w*~])[*~]{1,3}(?=\S)|(?<=\S)[*~]{1,3}(?![\w*~])")
# _ only around a phrase (`_No response_`). The phrase's text up to its first space is matched greedily and can
# hold no space, so each start is tried in one pass to the next underscore; the old lazy "[^_\n]*?\s[^_\n]*?"
# tried every space of the line as "the" space and took 31 s on a 64 KB line after a lone underscore. On one
# line (all it is given) both match alike.
UNDERSCORE_PHRASE = re.compile(r"(?<![\w_])(_{1,3})(?=\S)([^_\s]*\s[^_\n]*?)(?<=\S)\1(?![\w_])")
# a bare address of any scheme a link could carry
URL = re.compile(r"(?i)\b(?:https?|ftp|javascript|data|vbscript|file):\S*")

# ---- constructs that may span lines (a whole comment)
# a fenced code block, or a stray fence, anywhere; an unclosed one runs to the end, a final line break left
FENCE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.S)
# HTML_COMMENT as the excerpts have always stripped it: an unclosed one leaves a final line break (an excerpt
# of nothing but blanks is kept as it was)
HTML_COMMENT_KEEPING_LAST_BREAK = re.compile(r"<!--.*?(?:-->|$)", re.S)
# unclosed, a tag keeps the rest of the text; an image or a link its "[...]" when no "(" follows, the rest
# of the text when no ")" does
TAG = re.compile(r"</?[A-Za-z][^>]*(?:>|(?P<keep>))")
IMAGE = re.compile(r"!\[[^\]]*(?:\]\([^)]*\)|(?P<keep>\](?!\()|[\s\S]*))")
LINK = re.compile(r"\[([^\]]*)(?:\]\([^)]*\)|(?P<keep>\](?!\()|[\s\S]*))")
INLINE_CODE = re.compile(r"`([^`]*)`")

# ---- a body's fenced code block: from a line opening it to a line closing it or the text's end. As in
# CommonMark, only a run of the opening's character at least as long closes it: a benchmark log in ```` that
# quotes a ``` block of its own stays one block
FENCED_BLOCK = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1(?:(?<=`)`*|(?<=~)~*)[ \t]*$|\Z)",
                          re.S | re.M)


def sub_fenced(text: str, repl: Callable[[str], str]) -> str:
    """``FENCED_BLOCK.sub(lambda m: repl(m.group(0)), text)``, found line by line.

    The same blocks: a line opening with blanks then a fence, followed by a line break, runs to the first later
    line that is blanks, a fence of the same character at least as long and blanks (that line's break left), or
    else to the text's end. The
    pattern's lazy ``.*?`` tried the closing line at every character of every block: ~1.5 s a year of bodies."""
    lines = text.split("\n")
    out: list[str] = []
    start = last = 0  # where line i starts; where the text not yet copied starts
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        head = line.lstrip(" \t")
        char = head[:1]
        fence = head[:len(head) - len(head.lstrip(char))] if char in ("`", "~") else ""
        if len(fence) >= 3 and i + 1 < n:
            j, at, end = i + 1, start + len(line) + 1, len(text)
            while j < n:
                close = lines[j].strip(" \t")
                if len(close) >= len(fence) and close.startswith(fence) and not close.strip(char):
                    end = at + len(lines[j])
                    break
                at += len(lines[j]) + 1
                j += 1
            out.append(text[last:start])
            out.append(repl(text[start:end]))
            last = end
            i, start = j + 1, end + 1
            continue
        start += len(line) + 1
        i += 1
    out.append(text[last:])
    return "".join(out)

# ---- constructs within one line (a body's line)
# as TAG, IMAGE and LINK, within the line
LINE_TAG = re.compile(r"</?[A-Za-z][^>\n]*(?:>|(?P<keep>))")
LINE_IMAGE = re.compile(r"!\[[^\]\n]*(?:\]\([^)\n]*\)|(?P<keep>\](?!\()|[^\n]*))")
LINE_LINK = re.compile(r"\[([^\]\n]*)(?:\]\([^)\n]*\)|(?P<keep>\](?!\()|[^\n]*))")
# a code span of any number of backticks
LINE_INLINE_CODE = re.compile(r"`+([^`\n]*)`+")

# ---- lines that carry structure, not content
HEADING_LINE = re.compile(r"^\s*#{1,6}\s")
CHECKBOX = re.compile(r"^\s*[-*+]\s*\[[ xX]\]")
# quotes, tables and rules
STRUCTURE = re.compile(r"^\s*(?:>|\||[-=*_]{3,}\s*$)")


def sub_markup(pattern: re.Pattern, repl: str, text: str) -> str:
    """``pattern.sub(repl, text)``, where a ``keep`` match (an unclosed construct) is left as it was."""
    if "keep" not in pattern.groupindex:
        return pattern.sub(repl, text)
    return pattern.sub(lambda m: m.group(0) if m.group("keep") is not None else m.expand(repl), text)
