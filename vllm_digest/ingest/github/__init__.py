"""The live GitHub source: an HTTP client (the only code that talks to GitHub)
and the request plan that turns a report day into a raw ``DayPayload``."""

from vllm_digest.ingest.github.client import GitHubClient, GitHubError, RateLimitError, Response

__all__ = ["GitHubClient", "GitHubError", "RateLimitError", "Response"]
