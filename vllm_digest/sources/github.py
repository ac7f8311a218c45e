"""The live GitHub source, as the raw asset calls it."""

from __future__ import annotations

from vllm_digest.github.client import GitHubClient
from vllm_digest.github.fetch import FetchOptions, fetch_github_day
from vllm_digest.partitions import DayWindow
from vllm_digest.raw_store import DayPayload
from vllm_digest.settings import RepoRef

_FETCH_KEYS = set(FetchOptions.__dataclass_fields__)


def fetch_day(
    repo: RepoRef,
    window: DayWindow,
    api_url: str,
    token: str | None,
    previous: DayPayload | None = None,
    **client_options,
) -> DayPayload:
    """Fetch one day from GitHub. ``client_options`` go to ``GitHubClient`` (timeouts,
    retries, ``max_rate_wait_seconds``) or to ``FetchOptions`` (per-PR detail budgets)."""
    fetch_kwargs = {k: client_options.pop(k) for k in list(client_options) if k in _FETCH_KEYS}
    with GitHubClient(api_url=api_url, token=token, **client_options) as client:
        return fetch_github_day(client, repo, window, previous, FetchOptions(**fetch_kwargs))
