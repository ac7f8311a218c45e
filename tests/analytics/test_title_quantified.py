"""title_quantified (a 💡/🛠️ selection feature): the title puts a number on an effect. A GPU count, a card's
memory, a part number and a retry factor are numbers in titles too, and are not effects (issue 17 review:
the first regex flagged 7 of 37 sample candidates this way, 4 of them on the days the weights are fitted on)."""

from __future__ import annotations

import duckdb

from vllm_digest.testing.pipeline import materialize, write_sample

DAY = "2026-03-22"
OPENED = f"{DAY}T05:00:00Z"

TITLES = {
    # effects
    801: "[Bug]: EAGLE-3 acceptance rate collapses to 0% with a long context",
    802: "[Bug]: record_metadata causes ~3x host memory regression during compile",
    803: "[Bug]: Unable to allocate 31.6 GiB for an array",
    804: "[Bug]: Severe Head-of-Line Blocking (147x TTFT) under Prefix Caching",
    805: "[Bug]: warmup leaks ~3.4 GiB GPU memory despite empty_cache()",
    806: "[Bug]: nightly is about 10x slower than the last release",
    # numbers that are not effects
    811: "[Bug]: engine fails on 2x 4090 with tensor parallel",
    812: "[Bug]: no valid attention backend on 4x Gaudi2",
    813: "[Bug]: crashes with 7B models on RTX 3060 12GB",
    814: "[Bug]: out of CUDA memory on GH200 144GB",
    815: "[Bug]: Disable TMA on Blackwell (sm_12x) to prevent OOM",
    816: "[Bug]: HTTP fetches need a retry with 4x backoff",
    817: "[Bug]: Mixtral-8x7B fails to load in v0.8.5",
}


ITEMS = [{"number": n, "title": t, "user": {"login": f"dev{n}", "type": "User"}, "labels": [], "state": "open",
          "created_at": OPENED, "updated_at": OPENED, "closed_at": None, "comments": 0, "pull_request": None,
          "body": ""} for n, t in TITLES.items()]


def test_only_numbers_on_an_effect_quantify_a_title(make_settings, tmp_path):
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(write_sample(tmp_path / "sample", ITEMS)))
    materialize(settings, DAY)
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        found = {n for (n,) in con.execute(
            "SELECT number FROM int_selection_features WHERE day = $d AND feature = 'title_quantified' AND value > 0",
            {"d": DAY}).fetchall()}
        candidates = {n for (n,) in con.execute(
            "SELECT DISTINCT number FROM int_selection_features WHERE day = $d", {"d": DAY}).fetchall()}
    assert candidates >= set(TITLES)  # every new issue is a 💡 candidate, so each title was judged
    assert found == {801, 802, 803, 804, 805, 806}
