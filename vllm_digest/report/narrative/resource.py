"""The narrative layer as a Dagster resource, so the UI shows which provider and
model write the report's prose (the API key shows only as the variable's name)."""

from __future__ import annotations

import dagster as dg
from pydantic import Field

from vllm_digest.core.config.narrative import ENV_PREFIX, NarrativeConfig

API_KEY_ENV = ENV_PREFIX + "API_KEY"


class NarrativeResource(dg.ConfigurableResource):
    # Dagster shows the docstring verbatim as the resource's description (no markup, no dedent): one plain line
    """The optional LLM prose of the report's analysis sections; off (the deterministic report) while base_url is empty."""

    base_url: str | None = Field(
        default=None,
        description="API root of an OpenAI-compatible chat-completions server, e.g. http://127.0.0.1:8000/v1 "
        "for vllm serve; empty turns the narrative off",
    )
    model: str = Field(default="", description="model name sent with every request")
    api_key: str | None = Field(
        default=None,
        repr=False,
        description=f"bearer key, taken from the {API_KEY_ENV} environment variable at run time",
    )
    timeout: float = Field(default=60.0, description="seconds to wait for one reply before the section falls back")
    max_tokens: int = Field(default=1500, description="max_tokens of each request")
    temperature: float = Field(default=0.2, description="sampling temperature of each request")
    refresh: bool = Field(
        default=False,
        description="ignore cached responses and ask the model again (set it here for one run)",
    )
    retry_rejected: bool = Field(
        default=False,
        description="ask again for sections whose cached verdict is a rejection (by default they keep "
        "their deterministic text and cost no call)",
    )

    @classmethod
    def from_settings(cls, config: NarrativeConfig):
        """The settings' values as defaults that the launchpad can override field by field
        (a fully built resource would take run config as all-or-nothing)."""
        values = {
            "base_url": config.base_url,
            "model": config.model,
            # an EnvVar is resolved when the run starts; the UI and run storage keep only its name
            "api_key": dg.EnvVar(API_KEY_ENV) if config.api_key else None,
            "timeout": config.timeout,
            "max_tokens": config.max_tokens,
            "temperature": config.temperature,
            "refresh": config.refresh,
            "retry_rejected": config.retry_rejected,
        }
        return cls.configure_at_launch(**{k: v for k, v in values.items() if v is not None})

    def narrative_config(self) -> NarrativeConfig:
        """The fields as they are for this run (launchpad overrides included), validated
        by the same parser as the settings."""
        values = {
            "BASE_URL": self.base_url, "MODEL": self.model, "API_KEY": self.api_key,
            "TIMEOUT": self.timeout, "MAX_TOKENS": self.max_tokens,
            "TEMPERATURE": self.temperature, "REFRESH": self.refresh, "RETRY_REJECTED": self.retry_rejected,
        }
        names = {name: f"narrative resource field {name.lower()}" for name in values}
        names["API_KEY"] = API_KEY_ENV
        return NarrativeConfig.from_values(values, names)
