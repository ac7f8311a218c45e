"""A batch reads each distinct title once for 🔥's entities (an item touched on several days carries one
title), and what it finds per item-day is what reading each day alone finds."""

from vllm_digest.analytics import entities

TITLES = [
    "[Model] Add Gemma 4 support",
    "[Bugfix] Fix FlashInfer crash on B200",
    "[Perf] Speed up DeepSeek-V3.2 decoding",
    "Support Transformers v5 in the loader",
    "[Doc] Describe Gemma 4 deployment",
]


def _items(days):
    # the same five items on every day (their titles unchanged), and a new one per day
    return [(day, n, "pr", title) for day in days for n, title in enumerate(TITLES, start=1)] + [
        (day, 100 + i, "issue", f"Crash with Qwen3.{i} on startup") for i, day in enumerate(days)]


def test_each_distinct_title_is_read_once_per_batch():
    days = ["2026-03-20", "2026-03-21", "2026-03-22"]
    entities._title_tokens.cache_clear()
    rows = entities.day_entities(_items(days))
    info = entities._title_tokens.cache_info()
    assert info.misses == len(TITLES) + len(days)  # 18 item-days, 8 titles
    # the batch finds, per day, what that day alone finds
    for day in days:
        entities._title_tokens.cache_clear()
        alone = entities.day_entities([i for i in _items(days) if i[0] == day])
        assert [r for r in rows if r[0] == day] == alone
    found = {(n, key) for d, n, key, _, _ in rows if d == days[0]}
    assert {(1, "gemma4"), (2, "flashinfer"), (2, "b200"), (3, "deepseek3.2"), (4, "transformers5"),
            (100, "qwen3.0")} <= found
