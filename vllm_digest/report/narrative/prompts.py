"""Prompts: one per section and language, built from that section's facts pack.

Every word of a prompt comes from the language's message catalog (``[prompt]``), filled with the
project's display name and the focus area's names from the taxonomy. Item text (titles, bodies,
comments) is written by anyone on GitHub, so it goes into the prompt only as JSON inside a fence whose
marker is derived from the facts themselves; text inside cannot guess it and so cannot close the fence.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from vllm_digest.core.i18n import Catalog
from vllm_digest.core.taxonomy.loader import FocusArea
from vllm_digest.core.vocabulary import SECTION_IDS
# Bump whenever a prompt's wording or a facts pack's shape changes: it is part of the cache key, so old
# responses are not reused for a prompt they were not written for. v3: the focus area's names, themes and
# vendor come from the taxonomy, and the packs' vendor keys are vendor-neutral. v4: each discussed item
# carries its substance (state and time, purpose, changes, claims, tests, fixes, reviews, thread), and a
# claim may be repeated only as its item's author's; each entry says what it does, then why it matters; states
# and employers only as the data gives them.
PROMPT_VERSION = "narrative-v4"


def estimate_tokens(text: str) -> int:
    """A stated approximation of what a text costs a model: an ASCII character is a quarter of a token (the
    usual English BPE rate), any other character (CJK, emoji) a whole one. No tokenizer is a dependency."""
    ascii_chars = sum(1 for c in text if c < "\x80")
    return -(-ascii_chars // 4) + (len(text) - ascii_chars)


def messages_tokens(messages: list[dict]) -> int:
    return sum(estimate_tokens(m["content"]) for m in messages)


@dataclass(frozen=True)
class Voice:
    """How the narrative asks and is checked in one language: the catalog, with the shapes and the
    system prompt filled for the project and its focus area."""

    catalog: Catalog
    system: str
    shapes: dict[str, str]

    @property
    def language(self) -> str:
        return self.catalog.language


def voice(catalog: Catalog, focus: FocusArea, project: str) -> Voice:
    names = catalog("language.names")
    focus_words = {
        "title": catalog("section.focus", focus=focus.name(names)),
        "themes": " / ".join(theme.name(names) for theme in focus.themes) or focus.name(names),
        "employee": catalog("focus.employee", vendor=focus.vendor).strip(),
    }
    return Voice(
        catalog=catalog,
        # the rule for an item's own claims follows the rules it is the one exception to
        system=f"{catalog('prompt.system', project=project)} {catalog('prompt.claims')}",
        shapes={s: catalog(f"prompt.shape.{s}", **focus_words) for s in SECTION_IDS},
    )


def canonical_json(facts: dict) -> str:
    """One spelling per facts pack: the cache key and the fence both depend on it."""
    return json.dumps(facts, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


def data_fence(facts: dict) -> tuple[str, str]:
    tag = hashlib.sha256(canonical_json(facts).encode("utf-8")).hexdigest()[:12]
    return f"BEGIN DATA {tag}", f"END DATA {tag}"


def check_section(section: str) -> None:
    if section not in SECTION_IDS:
        raise ValueError(f"unknown section {section!r}; known: {list(SECTION_IDS)}")


def build_messages(section: str, voice: Voice, facts: dict) -> list[dict]:
    check_section(section)
    begin, end = data_fence(facts)
    # backticks only occur inside JSON strings, so escaping them keeps the JSON valid
    # and stops item text from closing the code block early
    data = json.dumps(facts, ensure_ascii=False, sort_keys=True, indent=1, default=str).replace("`", "\\u0060")
    t = voice.catalog
    user = (f"{voice.shapes[section]}\n\n{t('prompt.intro', begin=begin, end=end)}\n{begin}\n```json\n{data}\n```\n"
            f"{end}\n\n{t('prompt.outro')}")
    return [{"role": "system", "content": voice.system}, {"role": "user", "content": user}]


def repair_messages(messages: list[dict], answer: str, violations: list[str], voice: Voice) -> list[dict]:
    problems = "\n".join(f"- {v}" for v in violations)
    return [
        *messages,
        {"role": "assistant", "content": answer},
        {"role": "user", "content": voice.catalog("prompt.repair", problems=problems)},
    ]
