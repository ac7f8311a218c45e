"""The warehouse table of grounded LLM responses (``narrative_cache``)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import duckdb

from vllm_digest.narrative.prompts import PROMPT_VERSION, canonical_json


@dataclass(frozen=True)
class CachedResponse:
    text: str
    tokens_in: int
    tokens_out: int


def cache_key(model: str, section: str, language: str, facts: dict) -> str:
    # a JSON array keeps the parts unambiguous (no separator can appear inside one)
    material = json.dumps([PROMPT_VERSION, model, section, language, canonical_json(facts)], ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def get(con: duckdb.DuckDBPyConnection, key: str) -> CachedResponse | None:
    row = con.execute(
        "SELECT response, tokens_in, tokens_out FROM narrative_cache WHERE key = ?", [key]
    ).fetchone()
    return CachedResponse(*row) if row else None


def put(con: duckdb.DuckDBPyConnection, key: str, *, model: str, section: str, language: str,
        text: str, tokens_in: int, tokens_out: int) -> None:
    con.execute(
        "INSERT OR REPLACE INTO narrative_cache "
        "(key, prompt_version, model, section, language, response, tokens_in, tokens_out, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, current_timestamp)",
        [key, PROMPT_VERSION, model, section, language, text, tokens_in, tokens_out],
    )
