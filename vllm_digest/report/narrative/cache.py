"""The state store's tables of grounding verdicts (``state.duckdb``, beside the warehouse: a rebuild of
the warehouse keeps them, since raw holds nothing to rebuild an LLM's answers from): ``narrative_cache`` holds
the responses that passed, ``narrative_rejections`` the last one refused after its repair.

A refused answer is remembered too, so an unchanged day (same prompt version, facts
and model) costs no call when it is rendered again: every day is rendered on several
schedule ticks and on every backfill. ``retry_rejected`` asks again anyway.

The narration reads and writes them through a store: ``DirectStore`` works on one
writable connection; ``BatchedStore`` serves look-ups from rows read up front
(on the report's read-only connection) and queues new verdicts, so a writable
connection is opened only to save them, in one short transaction, and never
while a model is being called.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import duckdb

from vllm_digest.core.sqlmodel.transaction import transaction
from vllm_digest.report.narrative.prompts import PROMPT_VERSION, canonical_json

TABLES = ("narrative_cache", "narrative_rejections")


@dataclass(frozen=True)
class CachedResponse:
    text: str
    tokens_in: int
    tokens_out: int
    rejected: bool = False  # the stored verdict: refused by the grounding check after its repair
    violations: tuple[str, ...] = ()


def cache_key(model: str, section: str, language: str, facts: dict) -> str:
    # a JSON array keeps the parts unambiguous (no separator can appear inside one)
    material = json.dumps([PROMPT_VERSION, model, section, language, canonical_json(facts)], ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


_ACCEPTED = "SELECT key, response, tokens_in, tokens_out FROM narrative_cache WHERE list_contains(?, key)"
_REJECTED = (
    "SELECT key, response, tokens_in, tokens_out, violations FROM narrative_rejections WHERE list_contains(?, key)"
)


def _read(con: duckdb.DuckDBPyConnection, keys: list[str], tables=TABLES) -> dict[str, CachedResponse]:
    """The verdicts stored for ``keys``; an accepted response wins over a rejection of the same key."""
    found: dict[str, CachedResponse] = {}
    if "narrative_rejections" in tables:
        for key, text, tokens_in, tokens_out, violations in con.execute(_REJECTED, [keys]).fetchall():
            found[key] = CachedResponse(text, tokens_in, tokens_out, True, tuple(violations))
    if "narrative_cache" in tables:
        for key, text, tokens_in, tokens_out in con.execute(_ACCEPTED, [keys]).fetchall():
            found[key] = CachedResponse(text, tokens_in, tokens_out)
    return found


def get(con: duckdb.DuckDBPyConnection, key: str) -> CachedResponse | None:
    return _read(con, [key]).get(key)


def put(con: duckdb.DuckDBPyConnection, key: str, *, model: str, section: str, language: str,
        text: str, tokens_in: int, tokens_out: int, violations: list[str] | None = None) -> None:
    """Store a verdict: accepted when ``violations`` is None, else rejected with them. A key holds one
    verdict, so storing one drops the other."""
    values = [key, PROMPT_VERSION, model, section, language, text, tokens_in, tokens_out]
    if violations is None:
        con.execute("DELETE FROM narrative_rejections WHERE key = ?", [key])
        con.execute(
            "INSERT OR REPLACE INTO narrative_cache "
            "(key, prompt_version, model, section, language, response, tokens_in, tokens_out, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, current_timestamp)",
            values,
        )
    else:
        con.execute("DELETE FROM narrative_cache WHERE key = ?", [key])
        con.execute(
            "INSERT OR REPLACE INTO narrative_rejections "
            "(key, prompt_version, model, section, language, response, tokens_in, tokens_out, violations, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, current_timestamp)",
            [*values, list(violations)],
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
    """Look-ups from rows read up front; new verdicts queued until ``flush``."""

    def __init__(self, found: dict[str, CachedResponse] | None = None):
        self._found = dict(found or {})
        self._pending: dict[str, dict] = {}

    @classmethod
    def load(cls, con: duckdb.DuckDBPyConnection, keys: list[str]) -> "BatchedStore":
        """The stored verdicts among ``keys``; works on a read-only connection, also on a
        store created before the verdict tables existed."""
        tables = {
            name for (name,) in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE list_contains(?, table_name)", [list(TABLES)]
            ).fetchall()
        }
        if not keys or not tables:
            return cls()
        return cls(_read(con, sorted(set(keys)), tables))

    @property
    def pending(self) -> int:
        return len(self._pending)

    def get(self, key: str) -> CachedResponse | None:
        return self._found.get(key)

    def put(self, key: str, **entry) -> None:
        self._pending[key] = entry
        violations = entry.get("violations")
        self._found[key] = CachedResponse(
            entry["text"], entry["tokens_in"], entry["tokens_out"], violations is not None, tuple(violations or ()))

    def flush(self, con: duckdb.DuckDBPyConnection) -> int:
        """Write the queued verdicts in one transaction; returns how many."""
        if not self._pending:
            return 0
        with transaction(con):
            for key, entry in sorted(self._pending.items()):
                put(con, key, **entry)
        written, self._pending = len(self._pending), {}
        return written
