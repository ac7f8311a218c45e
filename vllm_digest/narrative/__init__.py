"""Optional, grounded LLM narrative for the report's analysis sections.

The deterministic Markdown is always the baseline; an LLM text replaces it only
when every item reference and number in it can be traced to the section's facts.
"""

from vllm_digest.narrative.config import NarrativeConfig, NarrativeConfigError
from vllm_digest.narrative.narrate import NarrativeResult, SectionInput, narrate_sections
from vllm_digest.narrative.prompts import PROMPT_VERSION, Voice, voice
from vllm_digest.report.model import SECTION_IDS

__all__ = [
    "NarrativeConfig",
    "NarrativeConfigError",
    "NarrativeResult",
    "SectionInput",
    "narrate_sections",
    "PROMPT_VERSION",
    "SECTION_IDS",
    "Voice",
    "voice",
]
