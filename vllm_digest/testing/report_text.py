"""Which items each analysis section of a rendered Markdown report cites.

The editorial eval (tools/editorial/editorial.py) reads the pipeline's outputs only, so that the report
package can be restructured freely: a section is found by the emoji of its heading (the wording may
change, the emoji are the seed's), and an item is cited when the section's text names it as ``#N``
or links to its issue or pull page.
"""

from __future__ import annotations

import re

# section key (as in selections.json) -> the emoji its heading starts with; no variation selector,
# so "🛠" matches "🛠️" and "🛠"
SECTION_EMOJI = {
    "focus": "🎯",
    "discussions": "💬",
    "topics": "🔥",
    "key_changes": "🛠",
    "notable": "💡",
}
SECTIONS = tuple(SECTION_EMOJI)

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
# "#123", not "&#123;" (an entity), "owner/repo#123" (another repo) or "page.html#123"
_HASH_REF = re.compile(r"(?<![\w&/.#])#(\d+)\b")
_ANY_LINK = re.compile(r"https?://[^\s)\]>\"']+?/(?:issues|pull|pulls)/(\d+)\b")


def _section_of(heading_text: str) -> str | None:
    text = heading_text.strip()
    for key, emoji in SECTION_EMOJI.items():
        if text.startswith(emoji):
            return key
    return None


def split_sections(markdown: str) -> dict[str, str]:
    """The text of each analysis section, keyed as in selections.json.

    A section runs from its heading to the next heading of the same or a higher level (📈, 📋 and
    the others end it); deeper headings inside it are part of it. A section that is absent is absent
    from the result, one that appears twice is joined."""
    out: dict[str, list[str]] = {}
    current: str | None = None
    level = 0
    for line in markdown.splitlines():
        m = _HEADING.match(line)
        if m and (current is None or len(m.group(1)) <= level):
            current = _section_of(m.group(2))
            level = len(m.group(1))
            if current is not None:
                out.setdefault(current, [])
            continue
        if current is not None:
            out[current].append(line)
    return {key: "\n".join(lines) for key, lines in out.items()}


def cited_numbers(text: str, repo: str | None = None) -> set[int]:
    """Item numbers ``text`` cites: ``#N`` references and links to issue or pull pages
    (only those of ``repo``, ``owner/name``, when it is given)."""
    found = {int(n) for n in _HASH_REF.findall(text)}
    if repo is None:
        found |= {int(n) for n in _ANY_LINK.findall(text)}
    else:
        own = re.compile(r"https?://[^\s)\]>\"']+?/" + re.escape(repo) + r"/(?:issues|pull|pulls)/(\d+)\b")
        found |= {int(n) for n in own.findall(text)}
    return found


def section_citations(markdown: str, repo: str | None = None) -> dict[str, set[int]]:
    """Every analysis section's cited item numbers; a section the report lacks cites nothing."""
    texts = split_sections(markdown)
    return {key: cited_numbers(texts[key], repo) if key in texts else set() for key in SECTIONS}


def plain(text: str) -> str:
    """Text as a reader sees it: no Markdown code marks, emphasis or escapes, spaces collapsed, lower case.
    Underscores stay: an identifier that loses them (``numcachedtokens``) is not shown."""
    return " ".join(re.sub(r"[`\\*]", "", text).split()).lower()
