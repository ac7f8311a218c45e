"""Requests per sample day against the GitHub emulator: cold fetch, rate-limit cost, and re-fetch.

Each day is fetched as a daily run would: ten minutes after its window ends.
Run: python -m tools.perf.bench_requests
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from vllm_digest.ingest.github.plan import fetch_day  # noqa: E402
from vllm_digest.testing.github_emulator import Dataset, GitHubEmulator  # noqa: E402
from vllm_digest.testing.github_fixtures import REPO, TOKEN, expected_windows, window_of


def main() -> None:
    dataset = Dataset.from_sample()
    print("| day | requests cold | counted against rate limit (core+search) | re-fetch requests | re-fetch 304s | re-fetch rate-limit cost |")
    print("|---|---|---|---|---|---|")
    colds = []
    with GitHubEmulator(dataset, token=TOKEN, search_limit=10_000) as emu:
        for entry in expected_windows():
            w = window_of(entry)
            emu.now = w.end + dt.timedelta(minutes=10)
            cold = fetch_day(REPO, w, emu.base_url, TOKEN, None)
            warm = fetch_day(REPO, w, emu.base_url, TOKEN, cold)
            cm, wm = cold.manifest.to_json(), warm.manifest.to_json()
            counted = sum(cm["rate_limited_requests"].values())
            colds.append(cm["request_count"])
            print(f"| {w.key} | {cm['request_count']} | {counted} | {wm['request_count']} | "
                  f"{wm['not_modified_count']} | {sum(wm['rate_limited_requests'].values())} |")
    print(f"\nmax cold requests per day: {max(colds)}; mean {sum(colds) / len(colds):.1f}")


if __name__ == "__main__":
    main()
