"""Put the grounded LLM narrative in place of the analysis sections' bodies.

Runs between building the days' contexts and rendering them, so every format
prints the same chosen body: ``sections[name][lang]`` becomes the LLM text made
safe Markdown, ``narrative_<lang>`` the same text as blocks for the HTML
templates, and ``body_source_<lang>`` says "llm", "cache" or "deterministic".
The header and the appendix are never touched; with the layer off nothing in
the context changes.

The warehouse is written only to save new responses: one short transaction per
day, on a connection opened after that day's calls are done.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ContextManager

import duckdb

from vllm_digest.narrative import PROMPT_VERSION, SECTION_IDS, NarrativeConfig, SectionInput, narrate_sections
from vllm_digest.narrative.cache import BatchedStore, cache_key
from vllm_digest.narrative.provider import Breaker
from vllm_digest.report.markdown_safe import md_block
from vllm_digest.report.narrative_blocks import narrative_blocks


def _inputs(ctx: dict, lang: str) -> dict[str, SectionInput]:
    sections = ctx["sections"]
    return {name: SectionInput(sections[name][f"facts_{lang}"], sections[name][lang]) for name in SECTION_IDS}


def prefetch_cache(
    con: duckdb.DuckDBPyConnection, config: NarrativeConfig, contexts: list[dict], languages
) -> BatchedStore:
    """The cached responses the run can use, read on the report's read-only connection."""
    if not config.enabled or config.refresh:
        return BatchedStore()
    keys = [
        cache_key(config.model, name, lang, inp.facts)
        for ctx in contexts for lang in languages for name, inp in _inputs(ctx, lang).items()
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
        }

    def log_line(self) -> str:
        fell = ", ".join(sorted(self.fallbacks)) or "none"
        return (f"narrative {self.provider} {self.model}: {self.calls} call(s), {self.cache_hits} cache hit(s), "
                f"{self.tokens_in}/{self.tokens_out} tokens in/out, fell back: {fell}")


def narrate_reports(
    connect: Callable[[], ContextManager[duckdb.DuckDBPyConnection]],
    config: NarrativeConfig,
    contexts: list[dict],
    languages,
    store: BatchedStore,
) -> NarrationSummary:
    """Narrate every day and language in place; ``connect`` opens a writable warehouse
    connection (``WarehouseResource.connect``) and is called only when there is
    something new to save."""
    summary = NarrationSummary(config.provider_label, config.model)
    if not config.enabled:
        return summary
    many = len(contexts) > 1
    breaker = Breaker()
    for ctx in contexts:
        for lang in languages:
            result = narrate_sections(store, config, lang, _inputs(ctx, lang), breaker)
            meta = result.metadata
            for key in ("calls", "cache_hits", "tokens_in", "tokens_out"):
                setattr(summary, key, getattr(summary, key) + meta[key])
            for name, outcome in meta["sections"].items():
                label = f"{ctx['day']} {lang}/{name}" if many else f"{lang}/{name}"
                summary.sources[label] = outcome["source"]
                if name in meta["fallbacks"]:
                    summary.fallbacks[label] = {"reason": outcome["reason"], "violations": outcome["violations"]}
                if outcome["source"] != "deterministic":
                    _choose(ctx["sections"][name], lang, result.sections[name], outcome["source"])
        if store.pending:
            with connect() as con:
                store.flush(con)
    return summary


def _choose(section: dict, lang: str, text: str, source: str) -> None:
    section[lang] = md_block(text)
    section[f"narrative_{lang}"] = narrative_blocks(text)
    section[f"body_source_{lang}"] = source
