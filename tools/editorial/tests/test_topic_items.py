"""The 🔥 topic-items experiment (tools/editorial/topic_items.py): how chosen items are grouped into the topics the
section can show, the oracle ceiling of that presentation, the entity-cluster feature's subjects, and that
the measurement folds over the fit days only (the report days are never fitted on or scored)."""

from __future__ import annotations

from tools.editorial import fit_selection as fs
from tools.editorial.topic_items import entities, measure, oracle, shown


def _row(day: str, number: int, topic: str, label: int, **features: float):
    return (day, number, dict(features), label, topic)


def test_shown_groups_by_topic_most_chosen_first_and_caps_both():
    chosen = [_row("d", 1, "a", 1), _row("d", 2, "b", 0), _row("d", 3, "b", 1), _row("d", 4, "c", 0),
              _row("d", 5, "b", 0), _row("d", 6, "a", 0), _row("d", 7, "b", 1)]
    # b holds 4 chosen, a 2, c 1: b first, then a (its best item ranks first overall), then c
    assert [r[1] for r in shown(chosen, None, None)] == [2, 3, 5, 7, 1, 6, 4]
    assert [r[1] for r in shown(chosen, 2, 2)] == [2, 3, 1, 6]
    assert [r[1] for r in shown(chosen, 1, None)] == [2, 3, 5, 7]


def test_oracle_counts_the_topics_holding_the_most_picks():
    rows = [_row("d", 1, "a", 1), _row("d", 2, "a", 1), _row("d", 3, "a", 1), _row("d", 4, "a", 1),
            _row("d", 5, "b", 1), _row("d", 6, "b", 1), _row("d", 7, "c", 1), _row("d", 8, "c", 0),
            _row("e", 9, "a", 1)]
    assert oracle(rows, "d", None, None) == 7
    assert oracle(rows, "d", 2, 3) == 5  # a capped at 3, then b's 2
    assert oracle(rows, "d", 1, None) == 4
    assert oracle(rows, "e", 5, 3) == 1


def test_entities_are_the_titles_named_subjects_without_tags():
    assert entities("[Bug]: Qwen3.5 MoE crashes on DGX Spark (sm_121)") == {"qwen3.5", "dgxspark", "sm121"}
    assert entities("[ROCm] Optimize concat_mla_q for MI300X") == {"mi300x"}
    assert entities("[Kernel] [FP8] tidy") == set()  # tags are not the subject
    assert entities(None) == set()


def test_measure_folds_leave_one_day_out_and_restores_the_feature_list():
    # days x and y: 12 items of 12 topics, the pick (the lowest number) alone has the feature; each held-out
    # day is scored by the model fitted on the other day
    rows = [_row(d, n, f"t{n}", int(n == base + 1), **({"opened": 1.0} if n == base + 1 else {}))
            for d, base in (("x", 100), ("y", 200)) for n in range(base + 1, base + 13)]
    before = fs.FEATURES
    out = measure(rows, ["x", "y"], ("opened",))
    assert fs.FEATURES == before
    # limit 15 shows every candidate of both days (12 each): both picks found, 24 shown
    assert out[(3.0, 15, None, None)] == (2, 24)
    # five topics of one item: the fitted weight puts the pick first (unfitted, ties go to the higher
    # number and the pick, the lowest, would be left out)
    assert out[(3.0, 15, 5, None)] == (2, 10)
    assert out[(3.0, "top3", 5, 3)] == (2, 10)
