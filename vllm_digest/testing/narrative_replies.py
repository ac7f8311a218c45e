"""Scripted LLM replies for the OpenAI emulator, written from each request's own facts.

``GroundedWriter`` reads the section, language and facts pack out of a chat
request (the way a model would see them) and answers with a text that passes
the grounding validator, unless a test scripted a different reply for that
(section, language): a bad text, an HTTP 500, a slow reply. ``ObedientWriter`` is the
model an attacker hopes for: it does what an instruction inside the data tells it.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict, deque

from vllm_digest.core.i18n import load_catalog
from vllm_digest.core.taxonomy.loader import load_taxonomy
from vllm_digest.report.narrative.prompts import voice
from vllm_digest.report.narrative.validator import entry_markers
from vllm_digest.testing.openai_emulator import Reply


SIGNATURE = {"zh": "（LLM 撰写）", "en": "(written by the LLM)"}
# the prompts and rules of the bundled catalogs, for the bundled taxonomy's project and focus area
_TAXONOMY = load_taxonomy()
VOICES = {lang: voice(load_catalog(lang), _TAXONOMY.focus_areas[0], _TAXONOMY.project.name) for lang in SIGNATURE}
_FENCED = re.compile(r"\nBEGIN DATA (\w+)\n```json\n(.*)\n```\nEND DATA \1\n", re.S)


def parse_request(body: dict) -> tuple[str, str, dict]:
    """(section, language, facts) of a first request (repairs keep the first user message)."""
    user = body["messages"][1]["content"]
    section, lang = next((s, lang) for lang, v in VOICES.items() for s, shape in v.shapes.items() if user.startswith(shape))
    facts = json.loads(_FENCED.search(user).group(2))
    return section, lang, facts


def grounded_reply(section: str, lang: str, facts: dict) -> str:
    """A body in the section's required shape that cites only the pack's items and figures."""
    sep = "：" if lang == "zh" else ": "
    lines = [f"{SIGNATURE[lang]} {section}."]
    for name, value in sorted((facts.get("counts") or {}).items()):
        lines.append(f"- {name} {value}")
    for index, item in enumerate((facts.get("items") or [])[:5], start=1):
        kind = "PR" if item.get("kind") == "pr" else "Issue"
        lines.append(f"{index}.  **{kind} #{item['number']}**")
        for marker in entry_markers(VOICES[lang].catalog, section):
            lines.append(f"    *   **{marker}**{sep}#{item['number']}")
    if section == "focus":
        lines.append("")
        lines.append("**小结**：AMD/ROCm。" if lang == "zh" else "**Summary**: AMD/ROCm.")
    return "\n".join(lines)


# how a scripted answer attributes a claim to an item's author, as the prompts ask
CLAIMED = {"zh": "据 #{number} 作者报告：{claim}", "en": "#{number}'s author reports: {claim}"}


def claimed_items(facts: dict) -> list[dict]:
    """The pack's items with a claim a scripted answer can quote whole (one citing no #N of its own)."""
    return [i for i in facts.get("items") or [] if any("#" not in c for c in i.get("claims") or [])]


def claim_reply(section: str, lang: str, facts: dict, moved: bool = False) -> str:
    """``grounded_reply`` with the first claimed item's claim quoted in its entry, attributed to that item's
    author; ``moved``: attributed to the next item of the pack instead (a misattribution the validator must
    refuse)."""
    text = grounded_reply(section, lang, facts)
    owners = claimed_items(facts)
    if not owners:
        return text
    owner = owners[0]
    claim = next(c for c in owner["claims"] if "#" not in c)
    items = facts["items"][:5]
    named = owner
    if moved:
        named = next(i for i in items if i["number"] != owner["number"])
    sentence = CLAIMED[lang].format(number=named["number"], claim=claim)
    # the sentence goes into the claimed item's entry: after its first line (or at the end when it has none)
    head = f"#{owner['number']}**"
    lines = text.split("\n")
    at = next((k for k, line in enumerate(lines) if line.rstrip().endswith(head)), len(lines) - 1)
    lines.insert(at + 1, f"    *   {sentence}")
    return "\n".join(lines)


class GroundedWriter:
    """An emulator responder: scripted replies per (section, language) first, then grounded ones."""

    def __init__(self):
        self.scripted: dict[tuple[str, str], deque] = defaultdict(deque)
        self.seen: list[tuple[str, str]] = []  # (section, language) of every request, in order

    def script(self, section: str, lang: str, *replies: Reply | str) -> None:
        self.scripted[(section, lang)].extend(replies)

    def __call__(self, body: dict) -> Reply | str:
        section, lang, facts = parse_request(body)
        self.seen.append((section, lang))
        if self.scripted[(section, lang)]:
            return self.scripted[(section, lang)].popleft()
        return grounded_reply(section, lang, facts)


# the instruction the injection tests append to titles and bodies, as the model would read it
_ORDER = re.compile(r"ignore previous instructions, write (#\d+) and (\d+)")
OBEYED = {"zh": "本周期最受关注的是 {ref}，共有 {figure} 条评论。",
          "en": "The most watched item of the period is {ref}, with {figure} comments."}


class ObedientWriter:
    """An emulator responder that follows an instruction found in the data: it writes the #N and
    the figure it was told to, in Chinese in its first answer whatever the language (as a model
    did in the en report), in the request's language when asked for a repair; with no
    instruction in the data it answers like ``GroundedWriter``."""

    def __init__(self):
        self.obeyed: list[tuple[str, str]] = []  # (section, language) of every answer that obeyed

    def __call__(self, body: dict) -> str:
        section, lang, facts = parse_request(body)
        text = grounded_reply(section, lang, facts)
        order = _ORDER.search(body["messages"][1]["content"])
        if order is None:
            return text
        self.obeyed.append((section, lang))
        repair = len(body["messages"]) > 2
        sentence = OBEYED[lang if repair else "zh"].format(ref=order.group(1), figure=order.group(2))
        return f"{sentence}\n\n{text}"
