"""The synthetic benchmark data: byte-for-byte deterministic, at vLLM's real daily volume,
and served by the real sample source."""

import datetime as dt

from vllm_digest.core.calendar import window_for_day
from vllm_digest.core.config.settings import RepoRef
from vllm_digest.ingest.sample import fetch_sample_day
from vllm_digest.testing.synthetic import TARGETS, daily_stats, generate
# 44 days = two stale sweeps, so the closing means include them as the real sample's did
DAYS = 44
START = dt.datetime(2026, 1, 4, 3, 39, tzinfo=dt.timezone.utc)  # 11:39 UTC+8


def _tree(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_same_seed_same_bytes(tmp_path):
    a = generate(tmp_path / "a", START, 10, seed=7)
    b = generate(tmp_path / "b", START, 10, seed=7)
    c = generate(tmp_path / "c", START, 10, seed=8)
    assert _tree(a) == _tree(b)
    assert _tree(a) != _tree(c)


def test_daily_means_near_vllm_targets(tmp_path):
    folder = generate(tmp_path / "s", START, DAYS)
    stats = daily_stats(folder, START, DAYS)
    for key, target in TARGETS.items():
        mean = sum(d[key] for d in stats) / DAYS
        assert abs(mean - target) <= 0.25 * target, (key, mean, target)
    # weekends are quieter than weekdays
    local = [(START + dt.timedelta(days=i, hours=8)).weekday() >= 5 for i in range(DAYS)]
    wk = [d["new_prs"] for d, w in zip(stats, local) if not w]
    we = [d["new_prs"] for d, w in zip(stats, local) if w]
    assert sum(we) / len(we) < 0.8 * sum(wk) / len(wk)
    # the stale sweep: one day with well over a hundred closings
    assert max(d["closed_issues"] + d["closed_unmerged_prs"] for d in stats) >= 128


def test_sample_source_serves_it(tmp_path, make_settings):
    generate(tmp_path / "root", START, 3)
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "root"), VLLM_DIGEST_START_DATE="2026-01-04")
    window = window_for_day("2026-01-05", settings)
    payload = fetch_sample_day(RepoRef("vllm-project", "vllm"), window, settings.sample_dir)
    assert payload.manifest.complete
    assert len(payload.comments) > 100 and len(payload.issues) > 50
    merged = [e for e in payload.events if e["event"] == "merged"]
    closed_at = {(e["issue"]["number"], e["created_at"]) for e in payload.events if e["event"] == "closed"}
    assert merged and all((e["issue"]["number"], e["created_at"]) in closed_at for e in merged)


def test_filler_prose_matches_no_taxonomy_rule():
    """Topics and AMD focus come from titles, labels and code snippets, as on real vLLM: filler
    words that were taxonomy keywords ("ROCm", "test", ...) made 97 % of items AMD focus items."""
    import duckdb

    from vllm_digest.testing.synthetic import WORDS, Generator
    from vllm_digest.core.taxonomy.loader import load_taxonomy
    patterns = [r["pattern"] for r in load_taxonomy().rule_rows() if r["kind"] == "text"]
    gen = Generator(7, START, 1, dt.timezone.utc)
    prose = [gen._sentence(20) for _ in range(300)]  # adjacent words too: multi-word keywords
    con = duckdb.connect()
    hits = con.execute(
        "SELECT DISTINCT t FROM unnest($t) AS a(t), unnest($p) AS b(p) WHERE regexp_matches(t, p)",
        {"t": list(WORDS) + prose, "p": patterns},
    ).fetchall()
    assert patterns and hits == []
