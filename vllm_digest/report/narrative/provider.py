"""A client for any OpenAI-compatible ``POST {base_url}/chat/completions``.

Every failure comes back as a ``Completion`` with ``ok=False``: an LLM outage
must cost the report its narrative, never the run.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

import httpx

from vllm_digest.core.config.narrative import ENV_PREFIX, NarrativeConfig
from vllm_digest.core.deadline import Deadline, DeadlineExceeded, http_exchange

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Completion:
    ok: bool
    text: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    error: str | None = None
    sent: bool = True  # False: the breaker was open and no request was made


class Breaker:
    """Stops calling a provider that does not answer at all.

    A dead or hung server would otherwise cost the timeout for every section, repair,
    language and day of a run (a 30-day backfill: hours). After ``limit`` consecutive
    timeouts or connection errors the rest of the run falls back without requests; an
    HTTP error or a bad reply means the server is up, and does not count.
    """

    def __init__(self, limit: int = 2):
        self.limit = limit
        self.failures = 0

    @property
    def open(self) -> bool:
        return self.failures >= self.limit

    def record(self, unreachable: bool) -> None:
        self.failures = self.failures + 1 if unreachable else 0


class ChatProvider:
    """One HTTP client per narration run, closed with the context manager."""

    def __init__(self, config: NarrativeConfig, breaker: Breaker | None = None):
        if not config.enabled:
            raise ValueError("ChatProvider needs a config with a base URL")
        self._config = config
        self._breaker = breaker or Breaker()
        headers = {"Content-Type": "application/json"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        self._client = httpx.Client(
            base_url=config.base_url, headers=headers, timeout=config.timeout
        )

    def __enter__(self) -> "ChatProvider":
        return self

    def __exit__(self, *exc) -> None:
        self._client.close()

    def complete(self, messages: list[dict]) -> Completion:
        body = {
            "model": self._config.model,
            "messages": messages,
            "max_tokens": self._config.max_tokens,
            "temperature": self._config.temperature,
        }
        if self._breaker.open:
            return Completion(ok=False, sent=False, error=(
                f"not called: the provider did not answer {self._breaker.failures} times in a row"))
        try:
            # the timeout bounds the whole exchange: httpx's own restarts on every byte, so a server that
            # trickles its answer would hold the request (and the run) for as long as it trickles
            response, raw = http_exchange(
                self._client, "POST", "chat/completions", Deadline(self._config.timeout),
                operation_timeout=self._config.timeout, json=body,
            )
        except (httpx.TimeoutException, DeadlineExceeded):
            self._breaker.record(unreachable=True)
            return self._fail(
                f"timed out after {self._config.timeout:g}s (the whole request's deadline: {ENV_PREFIX}TIMEOUT, narrative.timeout)"
            )
        except httpx.HTTPError as exc:
            self._breaker.record(unreachable=True)
            return self._fail(f"request failed: {type(exc).__name__}")
        self._breaker.record(unreachable=False)
        if response.status_code != 200:
            return self._fail(f"HTTP {response.status_code}")
        try:
            data = json.loads(raw)
            text = data["choices"][0]["message"]["content"]
            if not isinstance(text, str):
                raise TypeError("content is not a string")
        except (json.JSONDecodeError, UnicodeDecodeError, KeyError, IndexError, TypeError) as exc:
            return self._fail(f"malformed reply: {type(exc).__name__}")
        usage = data.get("usage") or {}
        return Completion(
            ok=True,
            text=text,
            tokens_in=_int(usage.get("prompt_tokens")),
            tokens_out=_int(usage.get("completion_tokens")),
        )

    def _fail(self, error: str) -> Completion:
        log.warning("LLM provider %s: %s", self._config.provider_label, error)
        return Completion(ok=False, error=error)


def _int(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
