"""An LLM-written section body as plain data for the HTML templates.

The narrative arrives as Markdown. Rather than turning it into HTML here, it is
parsed into paragraphs and (nested) lists of text spans marked bold or code;
``templates/_narrative.html.j2`` renders them with autoescaping, so no byte of
the model's output is ever markup. Links and images keep only their text. A text marked by
``states.mark`` gets a state span after each marked ``#N`` (``{"text": "merged", "state": "merged"}``),
which the template prints as a badge.
"""

from __future__ import annotations

import re

from typing import Mapping

from vllm_digest.core.text.markdown_safe import plain_inline, strip_links
from vllm_digest.report.narrative.states import split_badges

MAX_SPAN_CHARS = 2000
_ITEM = re.compile(r"^( *)([-*+]|\d{1,9}[.)]) +(.*)$")
_SPAN = re.compile(r"\*\*(.+?)\*\*|`([^`]+)`")


def spans(text: str, words: Mapping[str, str] | None = None) -> list[dict]:
    """``[{"text", "strong", "code"}]`` of one line or paragraph, and ``{..., "state"}`` for a badge;
    ``words``: state -> its badge text (a marked state without one is dropped)."""
    text = strip_links(text)
    out: list[dict] = []
    pos = 0
    for match in _SPAN.finditer(text):
        if match.start() > pos:
            out.append({"text": text[pos:match.start()], "strong": False, "code": False})
        strong, code = match.groups()
        out.append({"text": strong if strong is not None else code, "strong": strong is not None,
                    "code": code is not None})
        pos = match.end()
    if pos < len(text):
        out.append({"text": text[pos:], "strong": False, "code": False})
    out = [_badged(span, words or {}) for span in out]
    out = [piece for pieces in out for piece in pieces]
    for span in out:
        span["text"] = plain_inline(span["text"], MAX_SPAN_CHARS)
    return [s for s in out if s["text"]]


def _badged(span: dict, words: Mapping[str, str]) -> list[dict]:
    """A span cut at its state markers, each marker a span of its own that carries its state."""
    if span["code"]:
        return [span]
    out = []
    for text, state in split_badges(span["text"]):
        if state is None:
            out.append({**span, "text": text})
        elif state in words:
            out.append({"text": words[state], "strong": False, "code": False, "state": state})
    return out


def narrative_blocks(markdown: str, words: Mapping[str, str] | None = None) -> list[dict]:
    """``[{"type": "paragraph", "spans"} | {"type": "list", "ordered", "items": [{"spans", "children"}]}]``;
    ``words``: state -> the badge text of the states ``markdown`` is marked with."""
    root: list[dict] = []
    lists: list[tuple[int, dict]] = []  # the open lists, outermost first, with their marker indent
    paragraph: list[str] = []
    last_blank = False

    def close_paragraph() -> None:
        if paragraph:
            root.append({"type": "paragraph", "text": " ".join(paragraph)})
            paragraph.clear()

    for raw in markdown.replace("\r\n", "\n").split("\n"):
        line = raw.expandtabs(4).rstrip()
        if not line.strip():
            close_paragraph()
            last_blank = True
            continue
        item = _ITEM.match(line)
        if item:
            close_paragraph()
            indent, marker, text = len(item.group(1)), item.group(2), item.group(3)
            ordered = marker[0].isdigit()
            while lists and lists[-1][0] > indent:
                lists.pop()
            if lists and lists[-1][0] == indent and lists[-1][1]["ordered"] != ordered:
                lists.pop()
            if not lists or lists[-1][0] < indent:
                container = lists[-1][1]["items"][-1]["children"] if lists else root
                block = {"type": "list", "ordered": ordered, "items": []}
                container.append(block)
                lists.append((indent, block))
            lists[-1][1]["items"].append({"text": text, "children": []})
        elif lists and (line.startswith(" ") or not last_blank):
            # an indented or directly following line continues the last item
            lists[-1][1]["items"][-1]["text"] += " " + line.strip()
        else:
            lists.clear()
            paragraph.append(line.strip())
        last_blank = False
    close_paragraph()
    return _finish(root, words)


def _finish(blocks: list[dict], words: Mapping[str, str] | None) -> list[dict]:
    out = []
    for block in blocks:
        if block["type"] == "paragraph":
            out.append({"type": "paragraph", "spans": spans(block["text"], words)})
        else:
            out.append({
                "type": "list",
                "ordered": block["ordered"],
                "items": [{"spans": spans(i["text"], words), "children": _finish(i["children"], words)}
                          for i in block["items"]],
            })
    return out
