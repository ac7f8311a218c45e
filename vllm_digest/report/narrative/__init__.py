"""Optional, grounded LLM narrative for the report's analysis sections.

The deterministic Markdown is always the baseline; an LLM text replaces it only
when every item reference and number in it can be traced to the section's facts.
"""
