"""A client for any OpenAI-compatible ``POST {base_url}/chat/completions``.

Every failure comes back as a ``Completion`` with ``ok=False``: an LLM outage, or any
reply that is not the documented shape (a wrong type anywhere, a body over ``REPLY_BYTES_CAP``),
must cost the report its narrative, never the run. The content is repaired like landed
text (a lone surrogate becomes U+FFFD), so it can be sent back in a repair request, stored
and written.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

import httpx

from vllm_digest.core.config.narrative import ENV_PREFIX, NarrativeConfig
from vllm_digest.core.deadline import BodyTooLarge, Deadline, DeadlineExceeded, http_exchange
from vllm_digest.ingest.raw_store import repair_text

log = logging.getLogger(__name__)

# the longest reply body read: a section's answer is a few KB (max_tokens is at most 32768), so anything
# longer is malformed; it is not read past the cap, never sent back in a repair and never stored
REPLY_BYTES_CAP = 256 * 1024
# the warehouse keeps token counts as INTEGER
_TOKENS_MAX = 2**31 - 1


class MalformedReply(ValueError):
    """The reply is not the documented shape; the message names the field and what it held."""


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
            return self._exchange(body)
        except Exception as exc:  # the promise: a misbehaving provider never fails the run
            log.warning("LLM provider %s: unexpected failure", self._config.provider_label, exc_info=True)
            return self._fail(f"unexpected failure: {type(exc).__name__}")

    def _exchange(self, body: dict) -> Completion:
        try:
            # the timeout bounds the whole exchange: httpx's own restarts on every byte, so a server that
            # trickles its answer would hold the request (and the run) for as long as it trickles
            response, raw = http_exchange(
                self._client, "POST", "chat/completions", Deadline(self._config.timeout),
                operation_timeout=self._config.timeout, max_bytes=REPLY_BYTES_CAP, json=body,
            )
        except (httpx.TimeoutException, DeadlineExceeded):
            self._breaker.record(unreachable=True)
            return self._fail(
                f"timed out after {self._config.timeout:g}s (the whole request's deadline: {ENV_PREFIX}TIMEOUT, narrative.timeout)"
            )
        except BodyTooLarge as exc:
            self._breaker.record(unreachable=False)  # it answered: the server is up
            return self._fail(f"malformed reply: the body is longer than {exc.limit} bytes (the reply cap)")
        except UnicodeEncodeError:
            return self._fail("request could not be encoded as UTF-8: UnicodeEncodeError")
        except httpx.HTTPError as exc:
            self._breaker.record(unreachable=True)
            return self._fail(f"request failed: {type(exc).__name__}")
        self._breaker.record(unreachable=False)
        if response.status_code != 200:
            return self._fail(f"HTTP {response.status_code}")
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, a number past int's digits, too deep
            return self._fail(f"malformed reply: {type(exc).__name__}")
        try:
            text, tokens_in, tokens_out = _read_reply(data)
        except MalformedReply as exc:
            return self._fail(f"malformed reply: {exc}")
        return Completion(ok=True, text=text, tokens_in=tokens_in, tokens_out=tokens_out)

    def _fail(self, error: str) -> Completion:
        log.warning("LLM provider %s: %s", self._config.provider_label, error)
        return Completion(ok=False, error=error)


def _type(value) -> str:
    return "null" if value is None else type(value).__name__


def _field(container, key, path: str, kind: type):
    """``container[key]`` when ``container`` holds it with type ``kind``, else ``MalformedReply`` naming ``path``."""
    if isinstance(key, int):
        if not isinstance(container, list) or len(container) <= key:
            raise MalformedReply(f"{path} is missing ({path.rsplit('[', 1)[0]} is {_type(container)} "
                                 f"of {len(container) if isinstance(container, list) else 0} item(s))")
        value = container[key]
    else:
        if not isinstance(container, dict) or key not in container:
            raise MalformedReply(f"{path} is missing")
        value = container[key]
    if not isinstance(value, kind):
        raise MalformedReply(f"{path} is {_type(value)}, not {kind.__name__}")
    return value


def _tokens(usage: dict, name: str) -> int:
    value = usage.get(name)
    if value is None:
        return 0  # a count the server does not report
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _TOKENS_MAX:
        what = "an integer outside 0 to 2**31-1" if isinstance(value, int) and not isinstance(value, bool) else _type(value)
        raise MalformedReply(f"usage.{name} is {what}, not a count of tokens")
    return value


def _read_reply(data) -> tuple[str, int, int]:
    """The content (repaired like landed text) and the token counts of a chat completion."""
    if not isinstance(data, dict):
        raise MalformedReply(f"the body is {_type(data)}, not an object")
    choices = _field(data, "choices", "choices", list)
    choice = _field(choices, 0, "choices[0]", dict)
    message = _field(choice, "message", "choices[0].message", dict)
    text = _field(message, "content", "choices[0].message.content", str)
    usage = data.get("usage")
    if usage is None:
        usage = {}  # optional in the API
    elif not isinstance(usage, dict):
        raise MalformedReply(f"usage is {_type(usage)}, not object")
    text, _ = repair_text(text)
    return text, _tokens(usage, "prompt_tokens"), _tokens(usage, "completion_tokens")
