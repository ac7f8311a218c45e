"""Put the grounded LLM narrative in place of the analysis sections' bodies.

Runs between building the days' reports and rendering them, so every format
prints the same chosen body: a section's ``markdown`` becomes the LLM text made
safe Markdown, its ``narrative`` the same text as blocks for the HTML template,
and its ``body_source`` says "llm", "cache" or "deterministic". The reports are
frozen: narrated ones are new copies. The header and the appendix are never
touched; with the layer off the reports come back as they went in.

The state store (the cache's home, beside the warehouse) is written only to save new responses: one
short transaction per day, on a connection opened after that day's calls are done.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable, ContextManager

import duckdb

from vllm_digest.report.narrative.prompts import PROMPT_VERSION, Voice, build_messages, messages_tokens, voice

from vllm_digest.core.config.narrative import NarrativeConfig

from vllm_digest.core.taxonomy.loader import FocusArea
from vllm_digest.core.text.markdown_safe import md_block
from vllm_digest.report.day.model import DayReport
from vllm_digest.report.facts import facts_packs
from vllm_digest.report.narrative.blocks import narrative_blocks
from vllm_digest.report.narrative.cache import BatchedStore, cache_key
from vllm_digest.report.narrative.narrate import SectionInput, narrate_sections
from vllm_digest.report.narrative.provider import Breaker
from vllm_digest.report.narrative.states import badge_words, badges, mark, row_statuses, state_words
# one day's reports, one per language
Day = tuple[DayReport, ...]


def _inputs(report: DayReport, focus: FocusArea) -> dict[str, SectionInput]:
    packs = facts_packs(report, focus)
    # a section without a facts pack (the follow-ups: facts only) keeps its deterministic body
    return {s.id: SectionInput(packs[s.id], s.markdown) for s in report.sections if s.id in packs}


def prompt_tokens(spoken: Voice, inputs: dict[str, SectionInput]) -> int:
    """The estimated tokens of one report's first requests: each section with something to narrate (its pack
    holds items, counts or metrics, as narrate asks), repairs not counted."""
    return sum(messages_tokens(build_messages(name, spoken, inp.facts)) for name, inp in inputs.items()
               if inp.facts.get("items") or inp.facts.get("counts") or inp.facts.get("metrics"))


def prefetch_cache(con: duckdb.DuckDBPyConnection, config: NarrativeConfig, days: list[Day], focus: FocusArea) -> BatchedStore:
    """The cached responses the run can use, read on the report's read-only connection."""
    if not config.enabled or config.refresh:
        return BatchedStore()
    keys = [
        cache_key(config.model, name, report.language, inp.facts)
        for day in days for report in day for name, inp in _inputs(report, focus).items()
    ]
    return BatchedStore.load(con, keys)


@dataclass
class NarrationSummary:
    provider: str
    model: str
    calls: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    # "<lang>/<section>" (prefixed by the day in a range run) -> where its body came from
    sources: dict[str, str] = field(default_factory=dict)
    fallbacks: dict[str, dict] = field(default_factory=dict)
    # each day's first requests (every section with facts, every language), in estimated tokens
    # (prompts.estimate_tokens), whether asked or served from the cache: what the day's prompts cost a model
    prompt_tokens: dict[str, int] = field(default_factory=dict)

    def metadata(self) -> dict:
        """The report materialization's narrative metadata; nothing here can hold the key."""
        return {
            "narrative_provider": self.provider,
            "narrative_model": self.model,
            "narrative_prompt_version": PROMPT_VERSION,
            "narrative_calls": self.calls,
            "narrative_cache_hits": self.cache_hits,
            "narrative_tokens_in": self.tokens_in,
            "narrative_tokens_out": self.tokens_out,
            "narrative_sections": dict(self.sources),
            "narrative_fallbacks": dict(self.fallbacks),
            # estimated: ASCII characters / 4 plus one token per other character
            "narrative_prompt_tokens_per_day": max(self.prompt_tokens.values(), default=0),
            "narrative_prompt_tokens": sum(self.prompt_tokens.values()),
        }

    def log_line(self) -> str:
        fell = ", ".join(sorted(self.fallbacks)) or "none"
        return (f"narrative {self.provider} {self.model}: {self.calls} call(s), {self.cache_hits} cache hit(s), "
                f"{self.tokens_in}/{self.tokens_out} tokens in/out, fell back: {fell}")


def narrate_reports(
    connect: Callable[[], ContextManager[duckdb.DuckDBPyConnection]],
    config: NarrativeConfig,
    days: list[Day],
    focus: FocusArea,
    store: BatchedStore,
) -> tuple[list[Day], NarrationSummary]:
    """Every day and language narrated, as new reports; ``connect`` opens a writable state store
    connection (``StateResource.connect``) and is called only when there is something new to save."""
    summary = NarrationSummary(config.provider_label, config.model)
    if not config.enabled:
        return days, summary
    many = len(days) > 1
    breaker = Breaker()
    out: list[Day] = []
    for day in days:
        narrated = []
        for report in day:
            lang = report.language
            spoken = voice(report.catalog, focus, report.display_name)
            inputs = _inputs(report, focus)
            summary.prompt_tokens[report.day] = summary.prompt_tokens.get(report.day, 0) + prompt_tokens(spoken, inputs)
            result = narrate_sections(store, config, spoken, inputs, breaker)
            meta = result.metadata
            for key in ("calls", "cache_hits", "tokens_in", "tokens_out"):
                setattr(summary, key, getattr(summary, key) + meta[key])
            chosen = {}
            for name, outcome in meta["sections"].items():
                label = f"{report.day} {lang}/{name}" if many else f"{lang}/{name}"
                summary.sources[label] = outcome["source"]
                if name in meta["fallbacks"]:
                    summary.fallbacks[label] = {"reason": outcome["reason"], "violations": outcome["violations"]}
                if outcome["source"] != "deterministic":
                    chosen[name] = (result.sections[name], outcome["source"])
            narrated.append(_choose(report, chosen))
        out.append(tuple(narrated))
        if store.pending:
            with connect() as con:
                store.flush(con)
    return out, summary


def _choose(report: DayReport, chosen: dict[str, tuple[str, str]]) -> DayReport:
    """The report with each chosen section's body replaced by its LLM text, every #N of it followed by the
    item's state as the warehouse holds it (a badge in HTML, "(merged)" in Markdown): the text never has to
    say a state for the reader to see it, and a cached text shows the state of the day it is rendered for."""
    # the day's items (the rows the sections describe) over the items their texts cite
    statuses = row_statuses(report.data.ref_states, report.data.items)
    words, badge = state_words(report.catalog), badge_words(report.catalog)
    marked = {sid: mark(text, statuses, report.catalog) for sid, (text, _) in chosen.items()}
    sections = tuple(
        dataclasses.replace(s, markdown=md_block(badges(marked[s.id], badge)),
                            narrative=tuple(narrative_blocks(marked[s.id], words)),
                            body_source=chosen[s.id][1]) if s.id in chosen else s
        for s in report.sections
    )
    return dataclasses.replace(report, sections=sections)
