"""Configuration of the narrative layer: the one parser of its values.

``narrative_from_table`` reads the ``[narrative]`` table of the config file with the
``VLLM_DIGEST_LLM_*`` environment variables over it (``vllm_digest.core.config.settings`` calls it);
the Dagster resource feeds ``NarrativeConfig.from_values`` the resource's fields. With no base URL
the layer is off and nothing else in the run changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping
from urllib.parse import urlsplit, urlunsplit

from vllm_digest.core.config.values import NO_WORDS, YES_WORDS, SettingsError

ENV_PREFIX = "VLLM_DIGEST_LLM_"
# the settings each source spells its own way: VLLM_DIGEST_LLM_<NAME>, a file key, a resource field
FIELDS = ("BASE_URL", "MODEL", "API_KEY", "TIMEOUT", "MAX_TOKENS", "TEMPERATURE", "REFRESH", "RETRY_REJECTED")
# [narrative] file key -> the narrative config's own name (VLLM_DIGEST_LLM_<NAME> in the environment);
# the API key has no file key: a secret is read from the environment only
_FILE_KEYS = {
    "base_url": "BASE_URL",
    "model": "MODEL",
    "timeout": "TIMEOUT",
    "max_tokens": "MAX_TOKENS",
    "temperature": "TEMPERATURE",
    "refresh": "REFRESH",
    "retry_rejected": "RETRY_REJECTED",
}


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
    # a section whose stored verdict is a rejection is asked again (by default it keeps its fallback)
    retry_rejected: bool = False

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
        return cls.from_values({name: env[ENV_PREFIX + name] for name in FIELDS if ENV_PREFIX + name in env})

    @classmethod
    def from_values(cls, values: Mapping[str, object], names: Mapping[str, str] | None = None) -> "NarrativeConfig":
        """Parse values keyed by ``FIELDS`` (strings, or TOML numbers and booleans).

        ``names`` says where each value came from (a file key, a resource field), so an
        error names what the user has to fix; by default that is the environment variable.
        """
        raw = {k: _text(v) for k, v in values.items() if v is not None}
        label = {n: (names or {}).get(n, ENV_PREFIX + n) for n in FIELDS}
        base_url = (raw.get("BASE_URL") or "").strip()
        if not base_url:
            return cls()
        if not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", base_url):  # fullmatch: $ passes a final newline
            raise NarrativeConfigError(
                f"{label['BASE_URL']} {_redact_url(base_url)!r} is not an http(s) URL "
                "such as http://127.0.0.1:8000/v1"
            )
        model = (raw.get("MODEL") or "").strip()
        if not model:
            raise NarrativeConfigError(
                f"{label['MODEL']} is {model!r}: a model name is required when {label['BASE_URL']} is set"
            )
        api_key = raw.get("API_KEY") or None
        if api_key is not None and (api_key != api_key.strip() or any(c.isspace() for c in api_key)):
            # the value itself is never echoed: it is a secret
            raise NarrativeConfigError(f"{label['API_KEY']} contains whitespace")
        return cls(
            base_url=base_url.rstrip("/"),
            model=model,
            api_key=api_key,
            timeout=_number(raw, label, "TIMEOUT", float, 60.0, low=0.1, high=600.0),
            max_tokens=_number(raw, label, "MAX_TOKENS", int, 1500, low=16, high=32768),
            temperature=_number(raw, label, "TEMPERATURE", float, 0.2, low=0.0, high=2.0),
            refresh=_flag(raw, label, "REFRESH"),
            retry_rejected=_flag(raw, label, "RETRY_REJECTED"),
        )

    @property
    def url_has_credentials(self) -> bool:
        return bool(self.base_url and urlsplit(self.base_url).username is not None)


def _text(value: object) -> str:
    # TOML gives numbers and booleans; the parsing below is written for text
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _redact_url(url: str) -> str:
    # a URL may carry user:password@; drop it before the URL goes into an error message
    return re.sub(r"//[^/@\s]*@", "//***@", url)


def _number(values: Mapping[str, str], label: Mapping[str, str], name: str, kind: type, default, *, low, high):
    raw = values.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = kind(raw.strip())
    except ValueError:
        raise NarrativeConfigError(
            f"{label[name]} {raw!r} is not {'an integer' if kind is int else 'a number'}"
        ) from None
    if not (low <= value <= high) or value != value:
        raise NarrativeConfigError(f"{label[name]} {raw!r} is outside {low} to {high}")
    return value


def _flag(values: Mapping[str, str], label: Mapping[str, str], name: str) -> bool:
    raw = (values.get(name) or "").strip().lower()
    if raw in YES_WORDS:
        return True
    if raw in NO_WORDS:
        return False
    raise NarrativeConfigError(
        f"{label[name]} {values.get(name)!r} is not a boolean (1/0, true/false, yes/no, on/off)"
    )


def narrative_from_table(table, env: Mapping[str, str], path: Path | None) -> NarrativeConfig:
    """The ``[narrative]`` table with ``VLLM_DIGEST_LLM_*`` over it, parsed by
    ``NarrativeConfig.from_values``; an empty variable overrides the file too (``..._BASE_URL=`` turns it off)."""
    if not isinstance(table, dict):
        raise SettingsError(f"narrative {table!r} must be a table ([narrative] in the config file)")
    where = f" (in {str(path)!r})" if path else ""
    if "api_key" in table:
        raise SettingsError(
            f"narrative.api_key{where}: the API key is read only from the environment "
            f"({ENV_PREFIX}API_KEY), never from a file"
        )
    unknown = set(table) - set(_FILE_KEYS)
    if unknown:
        raise SettingsError(
            f"[narrative]{where} has unknown key(s) {sorted(unknown)}; known keys: {sorted(_FILE_KEYS)}"
        )
    values = {_FILE_KEYS[k]: v for k, v in table.items()}
    names = {_FILE_KEYS[k]: f"narrative.{k}{where}" for k in table}
    for name in FIELDS:
        if ENV_PREFIX + name in env:
            values[name] = env[ENV_PREFIX + name]
            names.pop(name, None)
    try:
        config = NarrativeConfig.from_values(values, names)
    except NarrativeConfigError as exc:
        raise SettingsError(str(exc)) from None
    if config.url_has_credentials:
        # the base URL is shown in the Dagster UI and recorded as the provider
        raise SettingsError(
            f"{names.get('BASE_URL', ENV_PREFIX + 'BASE_URL')} carries credentials (user:password@); "
            f"put the key in {ENV_PREFIX}API_KEY instead"
        )
    return config
