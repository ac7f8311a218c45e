"""Optional, grounded LLM narrative for the report's analysis sections."""
