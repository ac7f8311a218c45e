"""The 🔥 error analysis (tools/editorial/topic_misses.py): how a missed pick is bucketed, what kind of story its title
makes it, and that the listing simulator follows mart_topic_daily's rule (topics with a listable thread first,
generic ones last, the first three listed whatever, at most three threads each)."""

from __future__ import annotations

from tools.editorial.topic_misses import GRID, Item, best_point, bucket, kind_of, simulate_day

POINTS = dict(issue_points=1.0, new_points=2.0, proposal_points=1.0, lead_tag_points=0.5, minor_tag_penalty=2.0,
              closed_penalty=2.0, merged_penalty=0.5, thread_points=0.5, min_story=2.0, surprise_weight=1.0,
              generic_unusual_z=3.0, proposal_tags=["rfc"], lead_tags=["bug"], minor_tags=["ci"])


def test_kind_of_reads_the_title_first_match_wins():
    assert kind_of("[RFC]: Tool calling for everyone", "issue") == "RFC"
    assert kind_of("[Bugfix] Fix the hermes tool parser", "pr") == "tool parser/calling"
    assert kind_of("[Bug]: Qwen3.5 OOM on 8x H100", "issue") == "memory/OOM"
    assert kind_of("[Bug]: Qwen3.5 crashes", "issue") == "model-specific issue"
    assert kind_of("[Bug]: crash on startup", "issue") == "other bug report"
    assert kind_of("[ROCm] faster rope", "pr") == "hardware PR"
    assert kind_of("[Bugfix] env casing", "pr") == "bug fix PR"
    assert kind_of("Refactor the scheduler", "pr") == "other PR (feature, perf, kernel)"
    assert kind_of(None, None) == "unknown"


def test_bucket_separates_unshown_threads_unlisted_topics_and_no_topic():
    threads = [{"numbers": [1, 2], "points": 4.0}, {"numbers": [3], "points": 2.0}, {"numbers": [4], "points": 2.0},
               {"numbers": [5], "points": 1.5}]
    listed = dict(listed=True, topic_rank=2, generic=False, shown_threads=2, threads=threads, min_story=2.0)
    assert bucket(2, {2}, listed) == ("hit", "")
    assert bucket(4, set(), listed) == ("a", "tie in points with the last shown thread")
    assert bucket(5, set(), listed) == ("a", "below min_story")
    assert bucket(9, set(), None) == ("c", "")
    assert bucket(3, set(), dict(listed, listed=False, topic_rank=7)) == ("b", "rank 6-8")
    assert bucket(3, set(), dict(listed, listed=False, topic_rank=14)) == ("b", "rank 13+")
    assert bucket(3, set(), dict(listed, listed=False, topic_rank=30, generic=True)) == ("b", "generic topic, ranked last")


def _item(number, topic, kind="pr", head=None, new=True, tags=()):
    return Item(number, topic, kind, head or number, new, False, False, frozenset(tags))


def test_simulate_day_lists_specific_topics_first_and_caps_threads():
    items = [
        # t_gen: generic, strongest threads, but not unusual: listed after the specific topics
        _item(1, "t_gen", "issue"), _item(2, "t_gen", "issue"),
        # t_a: an issue and its PR make one thread (1 + 2 + 0.5 + 0.5 = 4.0) and four more new PRs (2.0)
        _item(10, "t_a", "issue", tags=("bug",)), _item(11, "t_a", head=10), _item(12, "t_a"), _item(13, "t_a"),
        _item(14, "t_a"), _item(15, "t_a"),
        # t_b: one old PR only (0 points): no listable thread
        _item(20, "t_b", new=False),
        _item(30, "t_c"), _item(40, "t_d"), _item(50, "t_e"),
    ]
    topics = {"t_gen": (0.0, True), "t_a": (0.0, False), "t_b": (0.0, False), "t_c": (0.0, False),
              "t_d": (0.0, False), "t_e": (0.0, False)}
    shown = simulate_day(items, topics, POINTS, limit=5, per_topic=3)
    # t_a first (4.0 + 2 + 2), its thread 10+11 and the two highest-numbered PRs; then t_c, t_d, t_e (2.0
    # each, by id); then t_gen, generic; t_b has no listable thread and the first three are already listed
    assert shown == {10, 11, 15, 14, 30, 40, 50, 2, 1}
    # an unusual generic topic competes on its score: 3.0 x surprise puts it first
    topics["t_gen"] = (3.0, True)
    assert simulate_day(items, topics, POINTS, limit=1, per_topic=3) == {1, 2}


def test_best_point_prefers_hits_within_the_ratio_then_fewer_cited():
    per = {0: {"d": (3, 10, 15)}, 1: {"d": (5, 10, 18)}, 2: {"d": (6, 10, 30)}, 3: {"d": (5, 10, 16)}}
    assert best_point(per, ["d"]) == 3  # 2 cites 3x the picks; 1 and 3 tie on hits, 3 cites fewer
    assert set(GRID) <= set(POINTS)
