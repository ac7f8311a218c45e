"""The warehouse table of grounded LLM responses (``narrative_cache``).

The narration reads and writes it through a store: ``DirectStore`` works on one
writable connection; ``BatchedStore`` serves look-ups from rows read up front
(on the report's read-only connection) and queues new responses, so a writable
connection is opened only to save them, in one short transaction, and never
while a model is being called.
"""

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


class DirectStore:
    """Reads and writes one writable connection as it goes."""

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self._con = con

    def get(self, key: str) -> CachedResponse | None:
        return get(self._con, key)

    def put(self, key: str, **entry) -> None:
        put(self._con, key, **entry)


class BatchedStore:
    """Look-ups from rows read up front; new responses queued until ``flush``."""

    def __init__(self, found: dict[str, CachedResponse] | None = None):
        self._found = dict(found or {})
        self._pending: dict[str, dict] = {}

    @classmethod
    def load(cls, con: duckdb.DuckDBPyConnection, keys: list[str]) -> "BatchedStore":
        """The cached rows among ``keys``; works on a read-only connection, also on a
        warehouse created before the cache table existed."""
        exists = con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'narrative_cache'"
        ).fetchone()[0]
        if not keys or not exists:
            return cls()
        rows = con.execute(
            "SELECT key, response, tokens_in, tokens_out FROM narrative_cache WHERE list_contains(?, key)",
            [sorted(set(keys))],
        ).fetchall()
        return cls({key: CachedResponse(*rest) for key, *rest in rows})

    @property
    def pending(self) -> int:
        return len(self._pending)

    def get(self, key: str) -> CachedResponse | None:
        return self._found.get(key)

    def put(self, key: str, **entry) -> None:
        self._pending[key] = entry
        self._found[key] = CachedResponse(entry["text"], entry["tokens_in"], entry["tokens_out"])

    def flush(self, con: duckdb.DuckDBPyConnection) -> int:
        """Write the queued responses in one transaction; returns how many."""
        if not self._pending:
            return 0
        con.execute("BEGIN TRANSACTION")
        try:
            for key, entry in sorted(self._pending.items()):
                put(con, key, **entry)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        written, self._pending = len(self._pending), {}
        return written
