"""Analytics marts on the embedded sample (22 real vLLM days, cutoff 11:39 Asia/Shanghai)."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

import duckdb
import pytest

from vllm_digest.analytics.build import ANALYTICS_MODELS, analytics_params, build_analytics, build_taxonomy_rules, text_hits_statement, text_rules
from vllm_digest.core.calendar import window_for_day
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.sqlmodel.files import bind, read_sql, schema_statements, suffix_parameters
from vllm_digest.core.taxonomy.loader import load_taxonomy
from vllm_digest.core.taxonomy.selection import load_selection_weights
from vllm_digest.ingest.raw_store import write_day
from vllm_digest.ingest.sample import fetch_sample_day
from vllm_digest.warehouse.layers import CORE_MODELS, MART_MODELS, STG_MODELS, build_days

REPO = RepoRef("vllm-project", "vllm")
DAYS = [(dt.date(2026, 3, 1) + dt.timedelta(days=i)).isoformat() for i in range(22)]
SEED_DAY = "2026-03-22"
SEED_CLUSTERS = {
    "tool-call parsers": [37829, 37831, 37790, 37845],
    "KV cache and scheduling": [37823, 37825, 37842, 37843],
    "memory/OOM": [37805, 37799],
    "Blackwell FP8 accuracy": [37804, 37806],
}
SEED_AMD = {37800, 37826, 37833, 37838, 37835, 37780, 37723, 37717}


def windows(home: Path, days=DAYS):
    settings = Settings(home=home, cutoff=dt.time(11, 39))
    return settings, [window_for_day(d, settings) for d in days]


def base_warehouse(home: Path, days=DAYS) -> duckdb.DuckDBPyConnection:
    """Land the sample days and build the layers below ours, as the pipeline does."""
    settings, ws = windows(home, days)
    for w in ws:
        write_day(settings.raw_dir, REPO, w.key, fetch_sample_day(REPO, w))
    con = duckdb.connect(str(home / "warehouse.duckdb"))
    con.execute("SET TimeZone = 'UTC'")
    for ddl in schema_statements():
        con.execute(ddl)
    build_days(con, STG_MODELS + CORE_MODELS + MART_MODELS, REPO, ws, settings.raw_dir)
    return con


def build_marts(con, ws, taxonomy):
    """The rules step, then the analytics step, as the graph runs them."""
    build_taxonomy_rules(con, REPO, ws, taxonomy)
    return build_analytics(con, REPO, ws, taxonomy)


def table_hash(con, table: str, days=None) -> str:
    rows = con.execute(
        f"SELECT * EXCLUDE (repo) FROM {table} WHERE repo = $repo "
        "AND ($days IS NULL OR list_contains(CAST($days AS VARCHAR[]), CAST(day AS VARCHAR)))",
        {"repo": REPO.full_name, "days": days},
    ).fetchall()
    return hashlib.sha256(repr(sorted(map(repr, rows))).encode()).hexdigest()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    home = tmp_path_factory.mktemp("analytics")
    con = base_warehouse(home)
    _, ws = windows(home)
    counts = build_marts(con, ws, load_taxonomy())
    yield con, counts, home
    con.close()


def topics_with_links(con, day: str) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for number, topic in con.execute(
        "SELECT number, topic_id FROM mart_item_topics WHERE day = $d", {"d": day}
    ).fetchall():
        out.setdefault(number, set()).add(topic)
    return out


def test_every_sample_day_is_built_in_one_call(built):
    con, counts, _ = built
    assert sorted(counts) == DAYS
    for day in DAYS:
        assert counts[day]["mart_activity_daily"] == 1
        assert counts[day]["mart_item_hotness"] == con.execute(
            "SELECT count(*) FROM core_items WHERE day = $d", {"d": day}).fetchone()[0]
        assert counts[day]["mart_item_topics"] > 0


@pytest.mark.parametrize("cluster", sorted(SEED_CLUSTERS))
def test_seed_cluster_members_share_a_topic(built, cluster):
    con = built[0]
    members = SEED_CLUSTERS[cluster]
    topics = topics_with_links(con, SEED_DAY)
    best = max(
        (sum(t in topics.get(n, set()) for n in members) / len(members), t)
        for t in set().union(*(topics.get(n, set()) for n in members))
    )
    print(f"{cluster}: topic {best[1]!r} covers {best[0]:.0%} of {members}")
    assert best[0] >= 0.9


def test_issue_37842_joins_its_pr_through_a_title_link(built):
    con = built[0]
    link = con.execute(
        "SELECT link_kind, shared_words, minutes_apart FROM int_item_links "
        "WHERE day = $d AND issue_number = 37842 AND pr_number = 37843", {"d": SEED_DAY}).fetchone()
    assert link == ("title_evidence", ["max", "session", "streamingupdate", "tokens", "update"], 0.0)
    rule = con.execute(
        "SELECT matched_rule, via_link FROM mart_item_topics WHERE day = $d AND number = 37842 "
        "AND topic_id = 'kv_cache_scheduling'", {"d": SEED_DAY}).fetchone()
    assert rule[1] == 37843 and rule[0].startswith("link:#37843 ")


def test_amd_focus_area_holds_the_seed_items(built):
    con = built[0]
    rows = con.execute(
        "SELECT number, theme_id, matched_rule FROM mart_focus_items WHERE day = $d AND focus_id = 'amd'",
        {"d": SEED_DAY}).fetchall()
    ours = {r[0] for r in rows}
    assert SEED_AMD <= ours
    extra = sorted(ours - SEED_AMD)
    print(f"\nAMD area: {len(ours)} items, seed cites {len(SEED_AMD)}; precision vs seed "
          f"{len(SEED_AMD) / len(ours):.2f}; added: {extra}")
    themes = {r[0]: r[1] for r in rows}
    assert {n: themes[n] for n in (37780, 37723, 37717)} == {37780: "ci", 37723: "ci", 37717: "ci"}
    assert {n: themes[n] for n in (37833, 37838)} == {37833: "tests_stability", 37838: "tests_stability"}
    assert themes[37800] == "perf_features"


def test_top_three_hot_items_are_the_seeds(built):
    con = built[0]
    rows = con.execute(
        "SELECT number, comments, comments_basis, hotness FROM mart_item_hotness WHERE day = $d "
        "ORDER BY hotness_rank LIMIT 3", {"d": SEED_DAY}).fetchall()
    assert [r[0] for r in rows] == [26897, 36155, 29138]
    # no comment threads in the sample: the totals stand in, and the column says so
    assert rows[0] == (26897, 10, "total", 10 * 1.0 + 1.0)


def test_trend_with_seven_earlier_days_equals_a_hand_computation(built):
    con = built[0]
    day = "2026-03-08"
    earlier = DAYS[:7]
    for topic in ("tool_calling", "hw_amd", "engine_core"):
        by_day = [con.execute(
            "SELECT count(DISTINCT number) FROM mart_item_topics WHERE day = $d AND topic_id = $t",
            {"d": d, "t": topic}).fetchone()[0] for d in earlier]
        today = con.execute(
            "SELECT count(DISTINCT number) FROM mart_item_topics WHERE day = $d AND topic_id = $t",
            {"d": day, "t": topic}).fetchone()[0]
        mean = sum(by_day) / 7
        row = con.execute(
            "SELECT items, baseline_days, baseline_items_sum, baseline_mean_items, items_ratio, rising, trend_status "
            "FROM mart_topic_daily WHERE day = $d AND topic_id = $t", {"d": day, "t": topic}).fetchone()
        assert row[:4] == (today, 7, sum(by_day), pytest.approx(mean))
        assert row[4] == pytest.approx(round(today / mean, 4))
        rising = today >= 3 and today / mean >= 2.0
        assert row[5] == rising
        expected = "rising" if rising else "falling" if today / mean <= 0.5 else "steady"
        assert row[6] == expected


def test_fewer_than_seven_earlier_days_says_baseline_incomplete(built):
    con = built[0]
    rows = con.execute(
        "SELECT DISTINCT baseline_days, baseline_window, baseline_mean_items, items_ratio, rising, trend_status "
        "FROM mart_topic_daily WHERE day = '2026-03-07'").fetchall()
    assert rows == [(6, 7, None, None, False, "baseline incomplete")]


def test_activity_metrics_of_the_seed_day(built):
    con = built[0]
    row = con.execute(
        "SELECT prs_merged, prs_closed_unmerged, issues_opened, prs_opened, stale_closures, response_basis, "
        "opened_unanswered, first_time_contributors, first_time_basis, contributors, merge_rate "
        "FROM mart_activity_daily WHERE day = $d", {"d": SEED_DAY}).fetchone()
    stale = con.execute(
        "SELECT count(*) FROM mart_five_sets WHERE day = $d AND set_name IN ('closed_issues', 'closed_unmerged_prs') "
        "AND list_contains(labels, 'stale')", {"d": SEED_DAY}).fetchone()[0]
    authors = con.execute(
        "SELECT count(DISTINCT author_login) FROM mart_five_sets WHERE day = $d AND set_name IN ('new_issues', 'new_prs')",
        {"d": SEED_DAY}).fetchone()[0]
    assert row[:4] == (21, 15, 10, 48)
    assert row[4] == stale == 12
    # no threads and no author_association in the sample: said, not invented as zeros
    assert row[5:9] == ("no comment data", None, None, "unknown")
    assert row[9] == authors  # closers and mergers are unknown in the sample, openers are not
    assert row[10] == pytest.approx(21 / 36)


def test_rankings_are_explained_by_their_components(built):
    con = built[0]
    weights = load_selection_weights()
    for table, score, section in (("mart_key_changes", "key_score", "key_changes"),
                                  ("mart_notable_issues", "notable_score", "notable")):
        bias = weights.models[section].bias
        bad = con.execute(f"SELECT count(*) FROM {table} WHERE abs({score} - ($bias + coalesce("
                          "list_sum(list_transform(score_parts, lambda p: p.points)), 0))) > 1e-3",
                          {"bias": bias}).fetchone()[0]
        assert bad == 0
    notable = [r[0] for r in con.execute(
        "SELECT number FROM mart_notable_issues WHERE day = $d ORDER BY notable_rank LIMIT 5",
        {"d": SEED_DAY}).fetchall()]
    assert 37804 in notable and 37823 in notable  # the seed's first two "worth watching" issues


def test_rebuilding_a_day_gives_identical_tables(built):
    con, _, home = built
    _, ws = windows(home, [SEED_DAY])
    before = {t: table_hash(con, t) for t in ANALYTICS_MODELS}
    build_analytics(con, REPO, ws, load_taxonomy())
    assert {t: table_hash(con, t) for t in ANALYTICS_MODELS} == before


def test_day_by_day_builds_equal_the_single_batch(built, tmp_path):
    con = built[0]
    other = base_warehouse(tmp_path)
    _, ws = windows(tmp_path)
    for w in ws:
        build_marts(other, [w], load_taxonomy())
    try:
        for t in ("ref_taxonomy_rules", *ANALYTICS_MODELS):
            assert table_hash(other, t) == table_hash(con, t), t
    finally:
        other.close()


def _built_text_hits(con, ws, taxonomy) -> tuple[list[str], list[str]]:
    """Rebuild int_text_hits as the analytics build does (run_texts, the prefilter's run_text_candidates and
    one UNION ALL of per-rule copies); return the statement's column names and the table's rows, sorted."""
    build_analytics(con, REPO, ws, taxonomy, models=["int_text_hits"])
    sql = read_sql("int_text_hits")
    one_rule = {**analytics_params(REPO, ws, taxonomy), **text_rules(taxonomy)[0]}
    names = [d[0] for d in con.execute(sql, bind(sql, one_rule)).description]
    return names, sorted(map(repr, con.execute(f"SELECT {', '.join(names)} FROM int_text_hits").fetchall()))


def test_text_hits_in_one_union_equal_one_statement_per_rule(built):
    """The UNION ALL of per-rule copies (each its own $pattern_i ...) that the build writes finds what each
    rule's own statement finds, row for row."""
    con, _, home = built
    settings, ws = windows(home)
    taxonomy = load_taxonomy()
    params = analytics_params(REPO, ws, taxonomy)
    rules = text_rules(taxonomy)
    sql = read_sql("int_text_hits")
    _, together = _built_text_hits(con, ws, taxonomy)  # leaves the build's run_texts and candidates
    union, values = text_hits_statement(sql, params, rules)
    assert len(values) > len(rules)  # every rule bound its own copy
    one_by_one = sorted(
        repr(row) for rule in rules for row in con.execute(sql, bind(sql, {**params, **rule})).fetchall()
    )
    assert together == one_by_one
    assert len(together) > 1000


def test_the_keyword_prefilter_keeps_every_hit(built):
    """Each rule run only over the texts holding its keywords (as the build runs it) finds the same rows as
    each rule run over every text of the 22 real days; and the prefilter does leave texts out (it is not a
    no-op)."""
    con, _, home = built
    _, ws = windows(home)
    taxonomy = load_taxonomy()
    params = analytics_params(REPO, ws, taxonomy)
    rules = text_rules(taxonomy)
    _, filtered = _built_text_hits(con, ws, taxonomy)
    everything = [{**r, "prefiltered": False} for r in rules]
    unfiltered = sorted(map(repr, con.execute(*text_hits_statement(read_sql("int_text_hits"), params,
                                                                   everything)).fetchall()))
    assert filtered == unfiltered
    assert len(filtered) > 1000
    pairs = con.execute("SELECT count(*) FROM run_text_candidates").fetchone()[0]
    n_texts = con.execute("SELECT count(*) FROM run_texts").fetchone()[0]
    assert sum(r["prefiltered"] for r in rules) >= 30
    assert 0 < pairs < n_texts * sum(r["prefiltered"] for r in rules) / 2


def test_suffix_parameters_renames_only_the_named_parameters_outside_literals():
    sql = "SELECT $pattern, '$pattern' -- $pattern\nFROM t WHERE x = $repo AND y = $pattern_other"
    assert suffix_parameters(sql, {"pattern"}, "_3") == (
        "SELECT $pattern_3, '$pattern' -- $pattern\nFROM t WHERE x = $repo AND y = $pattern_other"
    )


def test_a_failed_rebuild_leaves_the_previous_rows(built):
    con, _, home = built
    _, ws = windows(home, [SEED_DAY])
    before = table_hash(con, "mart_item_topics")

    def boom(model):
        if model == "mart_topic_daily":
            raise RuntimeError("injected")

    with pytest.raises(RuntimeError, match="injected"):
        build_analytics(con, REPO, ws, load_taxonomy(), before_insert=boom)
    assert table_hash(con, "mart_item_topics") == before


def test_analytics_without_the_days_rules_names_the_days_and_the_rules_asset(tmp_path):
    """The marts match a day with the rules stored for it; a day whose rules were never bound is
    refused before anything is deleted, naming the day and what to materialize."""
    con = base_warehouse(tmp_path, [SEED_DAY])
    _, ws = windows(tmp_path, [SEED_DAY])
    try:
        with pytest.raises(RuntimeError, match=f"ref_taxonomy_rules holds no rules for {REPO.full_name} on {SEED_DAY}"):
            build_analytics(con, REPO, ws, load_taxonomy())
        build_taxonomy_rules(con, REPO, ws, load_taxonomy())
        assert build_analytics(con, REPO, ws, load_taxonomy())[SEED_DAY]["mart_item_topics"] > 0
    finally:
        con.close()


def test_a_path_rule_matches_the_files_under_its_prefix_only(tmp_path):
    """A topic's path rule matches a PR whose review comments point at a file under the prefix (a prefix
    match, not only an equal path), and not a file whose name merely starts like the folder. The sample
    has no such comments, so two are added to PRs of the day outside that topic."""
    con = base_warehouse(tmp_path, [SEED_DAY])
    _, ws = windows(tmp_path, [SEED_DAY])
    try:
        build_marts(con, ws, load_taxonomy())
        under, beside = [n for (n,) in con.execute(
            "SELECT number FROM core_items WHERE kind = 'pr' "
            "AND number NOT IN (SELECT number FROM mart_item_topics WHERE topic_id = 'reasoning') "
            "ORDER BY number LIMIT 2").fetchall()]
        for comment_id, number, path in ((1, under, "vllm/reasoning/qwen3_reasoning_parser.py"),
                                         (2, beside, "vllm/reasoning_utils.py")):
            con.execute("INSERT INTO stg_review_comments (repo, day, comment_id, pull_number, path) "
                        "VALUES ($repo, $day, $id, $number, $path)",
                        {"repo": REPO.full_name, "day": SEED_DAY, "id": comment_id, "number": number, "path": path})
        build_analytics(con, REPO, ws, load_taxonomy())
        rows = con.execute("SELECT number, topic_id, matched_rule, matched_rules FROM mart_item_topics "
                           "WHERE number IN ($a, $b) AND (topic_id = 'reasoning' OR list_has_any(matched_rules, "
                           "['path:vllm/reasoning/qwen3_reasoning_parser.py', 'path:vllm/reasoning_utils.py']))",
                           {"a": under, "b": beside}).fetchall()
        path = "path:vllm/reasoning/qwen3_reasoning_parser.py"
        assert rows == [(under, "reasoning", path, [path])]
    finally:
        con.close()
