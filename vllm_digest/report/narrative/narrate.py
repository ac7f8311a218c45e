"""Turn each section's facts into LLM Markdown, or keep its deterministic text.

Per section: cached accepted text -> use it; cached rejection -> fall back without
a call (unless ``retry_rejected``); else call; validate; on violations send ONE
repair request; validate again; else fall back to the deterministic Markdown,
remember the rejection and record why. Nothing here raises because the provider
misbehaved.

A facts pack is plain JSON-able data, the same shape for every section:
    {"repo": "owner/name", "day": "YYYY-MM-DD",
     "counts":  {name: number, ...},          # optional: summary, activity
     "metrics": {name: number, ...},          # optional: activity (ratios 0-1 may be written as %)
     "items": [{"number": int, "kind": "issue"|"pr", "title": str, "labels": [str], "author": str,
                "is_vendor_employee": bool, "state": str, "comments": int, "score": float,
                "additions": int, "deletions": int, "files": int, "reviews": {state: int},
                "gist": str, "participants": int, "maintainers": [str], "first_response_hours": float,
                "comment_excerpts": [{"author": str, "side": "author"|"maintainer"|"community", "text": str}],
                "latest_maintainer_comment": {"author": str, "text": str},
                "related": [int]}]}          # related: real items (in core_items) the item's text cites, citable as #N
     "topics": [{"name": str, "items": int, "expected": float, "trend": "up"|"down"|"noise"|"incomplete",
                 "numbers": [int], "why": {score parts}, "threads": [{"numbers": [int], "points": float,
                 "parts": str}]}],          # optional: summary, topics (why and threads: mart_topic_daily)
     "top_authors": [{"author": str, "prs": int}],   # optional: activity
     "notes": [str]}                       # optional: what the data cannot say (no comment threads)
Only "number" is required per item. A text may state the pack's numeric values and its day,
never a number written inside one of its strings (titles, gists and comments are someone's text).
The cache is a store from ``narrative.cache``, or a writable connection from
WarehouseResource.connect() (which creates ``narrative_cache``) that is then held
while the provider is called.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Mapping

import duckdb

from vllm_digest.core.config.narrative import NarrativeConfig
from vllm_digest.report.narrative import cache
from vllm_digest.report.narrative.prompts import PROMPT_VERSION, Voice, build_messages, check_section, repair_messages
from vllm_digest.report.narrative.provider import Breaker, ChatProvider
from vllm_digest.report.narrative.validator import validate


log = logging.getLogger(__name__)

CACHED_REJECTION = "grounding violations after repair, cached verdict (retry_rejected asks again)"


@dataclass(frozen=True)
class SectionInput:
    facts: dict
    deterministic_md: str  # the section body without its ### heading


@dataclass
class NarrativeResult:
    sections: dict[str, str]
    metadata: dict = field(default_factory=dict)


@dataclass
class _Outcome:
    text: str
    source: str  # "llm", "cache" or "deterministic"
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    reason: str | None = None
    violations: list[str] = field(default_factory=list)


def narrate_sections(
    store: duckdb.DuckDBPyConnection | cache.DirectStore | cache.BatchedStore,
    config: NarrativeConfig,
    voice: Voice,
    sections: Mapping[str, SectionInput],
    breaker: Breaker | None = None,
) -> NarrativeResult:
    """``voice``: the language's prompts and rules (``prompts.voice``). ``breaker``: share one across
    calls so a provider that stopped answering is not waited for again by every later day and language
    of the run."""
    for section_id in sections:
        check_section(section_id)  # a caller bug, caught before any call is made
    if isinstance(store, duckdb.DuckDBPyConnection):
        store = cache.DirectStore(store)

    outcomes: dict[str, _Outcome] = {}
    if not config.enabled:
        for section_id, inp in sections.items():
            outcomes[section_id] = _Outcome(inp.deterministic_md, "deterministic", reason="narrative layer off")
    else:
        with ChatProvider(config, breaker) as provider:
            for section_id, inp in sections.items():
                outcomes[section_id] = _narrate_one(store, config, provider, section_id, voice, inp)

    result = NarrativeResult(
        sections={sid: o.text for sid, o in outcomes.items()},
        metadata=_metadata(config, voice.language, outcomes),
    )
    log.info(
        "narrative %s: %d call(s), %d cache hit(s), fell back: %s",
        voice.language, result.metadata["calls"], result.metadata["cache_hits"],
        sorted(result.metadata["fallbacks"]) or "none",
    )
    return result


def _has_facts(facts: dict) -> bool:
    return bool(facts.get("items") or facts.get("counts") or facts.get("metrics"))


def _narrate_one(store, config: NarrativeConfig, provider: ChatProvider, section: str,
                 voice: Voice, inp: SectionInput) -> _Outcome:
    facts, language, catalog = inp.facts, voice.language, voice.catalog
    if not _has_facts(facts):
        # nothing to ground a narrative in: the deterministic "nothing today" text is the honest one
        return _Outcome(inp.deterministic_md, "deterministic", reason="no facts to narrate")

    key = cache.cache_key(config.model, section, language, facts)
    if not config.refresh:
        hit = store.get(key)
        # re-checked either way, so a validator changed since the verdict was stored applies to it
        now = validate(hit.text, section, catalog, facts) if hit is not None else None
        if hit is not None and not now:
            return _Outcome(hit.text, "cache")
        if hit is not None and hit.rejected and not config.retry_rejected:
            # the same prompt, facts and model were refused before: asking again would pay for the same answer
            return _Outcome(inp.deterministic_md, "deterministic", reason=CACHED_REJECTION, violations=now)

    outcome = _Outcome(inp.deterministic_md, "deterministic")
    messages = build_messages(section, voice, facts)
    answer = _call(provider, messages, outcome)
    if answer is None:
        return outcome
    violations = validate(answer, section, catalog, facts)
    if violations:
        log.info("narrative %s/%s: %d violation(s), asking for one repair", section, language, len(violations))
        answer = _call(provider, repair_messages(messages, answer, violations, voice), outcome)
        if answer is None:
            outcome.violations = violations
            return outcome
        violations = validate(answer, section, catalog, facts)
        if violations:
            outcome.reason = "grounding violations after repair"
            outcome.violations = violations
            store.put(key, model=config.model, section=section, language=language, text=answer,
                      tokens_in=outcome.tokens_in, tokens_out=outcome.tokens_out, violations=violations)
            return outcome

    store.put(key, model=config.model, section=section, language=language, text=answer,
              tokens_in=outcome.tokens_in, tokens_out=outcome.tokens_out)
    outcome.text, outcome.source = answer, "llm"
    return outcome


def _call(provider: ChatProvider, messages: list[dict], outcome: _Outcome) -> str | None:
    """One request; on failure records the reason on the outcome and returns None."""
    reply = provider.complete(messages)
    if not reply.sent:
        outcome.reason = f"provider error: {reply.error}"
        return None
    outcome.calls += 1
    outcome.tokens_in += reply.tokens_in
    outcome.tokens_out += reply.tokens_out
    if not reply.ok:
        outcome.reason = f"provider error: {reply.error}"
        return None
    return reply.text.strip()


def _metadata(config: NarrativeConfig, language: str, outcomes: dict[str, _Outcome]) -> dict:
    sections = {
        sid: {
            "source": o.source,
            "calls": o.calls,
            "tokens_in": o.tokens_in,
            "tokens_out": o.tokens_out,
            "reason": o.reason,
            "violations": list(o.violations),
        }
        for sid, o in outcomes.items()
    }
    return {
        "enabled": config.enabled,
        "provider": config.provider_label,
        "model": config.model or None,
        "prompt_version": PROMPT_VERSION,
        "language": language,
        "calls": sum(o.calls for o in outcomes.values()),
        "cache_hits": sum(o.source == "cache" for o in outcomes.values()),
        "tokens_in": sum(o.tokens_in for o in outcomes.values()),
        "tokens_out": sum(o.tokens_out for o in outcomes.values()),
        # only real failures of an enabled layer; "off" and "no facts" are choices, not fallbacks
        "fallbacks": {
            sid: o.reason for sid, o in outcomes.items()
            if config.enabled and o.source == "deterministic" and o.reason != "no facts to narrate"
        },
        "sections": sections,
    }
