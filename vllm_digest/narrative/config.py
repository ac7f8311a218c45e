"""Configuration of the narrative layer, read from the environment.

Kept apart from ``vllm_digest.settings`` so the LLM layer stays optional: with no
base URL it is off and nothing else in the run changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping
from urllib.parse import urlsplit, urlunsplit

_PREFIX = "VLLM_DIGEST_LLM_"
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class NarrativeConfigError(ValueError):
    """A narrative setting is unusable; the message names the variable and value."""


@dataclass(frozen=True)
class NarrativeConfig:
    base_url: str | None = None
    model: str = ""
    # repr=False keeps the key out of logs, tracebacks and Dagster metadata that print the config
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0
    max_tokens: int = 1500
    temperature: float = 0.2
    refresh: bool = False

    @property
    def enabled(self) -> bool:
        return bool(self.base_url)

    @property
    def provider_label(self) -> str:
        """The base URL without credentials or query, safe to record."""
        if not self.base_url:
            return "off"
        parts = urlsplit(self.base_url)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))

    def __str__(self) -> str:
        return repr(self)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "NarrativeConfig":
        base_url = (env.get(_PREFIX + "BASE_URL") or "").strip()
        if not base_url:
            return cls()
        if not re.match(r"^https?://[^\s/?#]+(/[^\s?#]*)?$", base_url):
            raise NarrativeConfigError(
                f"{_PREFIX}BASE_URL {_redact_url(base_url)!r} is not an http(s) URL "
                "such as http://127.0.0.1:8000/v1"
            )
        model = (env.get(_PREFIX + "MODEL") or "").strip()
        if not model:
            raise NarrativeConfigError(
                f"{_PREFIX}MODEL is {model!r}: a model name is required when {_PREFIX}BASE_URL is set"
            )
        api_key = env.get(_PREFIX + "API_KEY") or None
        if api_key is not None and (api_key != api_key.strip() or any(c.isspace() for c in api_key)):
            # the value itself is never echoed: it is a secret
            raise NarrativeConfigError(f"{_PREFIX}API_KEY contains whitespace")
        return cls(
            base_url=base_url.rstrip("/"),
            model=model,
            api_key=api_key,
            timeout=_number(env, "TIMEOUT", float, 60.0, low=0.1, high=600.0),
            max_tokens=_number(env, "MAX_TOKENS", int, 1500, low=16, high=32768),
            temperature=_number(env, "TEMPERATURE", float, 0.2, low=0.0, high=2.0),
            refresh=_flag(env, "REFRESH"),
        )


def _redact_url(url: str) -> str:
    # a URL may carry user:password@; drop it before the URL goes into an error message
    return re.sub(r"//[^/@\s]*@", "//***@", url)


def _number(env: Mapping[str, str], name: str, kind: type, default, *, low, high):
    raw = env.get(_PREFIX + name)
    if raw is None or not raw.strip():
        return default
    try:
        value = kind(raw.strip())
    except ValueError:
        raise NarrativeConfigError(
            f"{_PREFIX}{name} {raw!r} is not {'an integer' if kind is int else 'a number'}"
        ) from None
    if not (low <= value <= high) or value != value:
        raise NarrativeConfigError(f"{_PREFIX}{name} {raw!r} is outside {low} to {high}")
    return value


def _flag(env: Mapping[str, str], name: str) -> bool:
    raw = (env.get(_PREFIX + name) or "").strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise NarrativeConfigError(
        f"{_PREFIX}{name} {env.get(_PREFIX + name)!r} is not a boolean (1/0, true/false, yes/no, on/off)"
    )
