"""The selection fit (tools/editorial/fit_selection.py): it recovers planted weights, and ranks as the marts do."""

from __future__ import annotations

from tools.editorial.fit_selection import MAX_CITE_RATIO, choose, fit, ranked


def test_the_fit_recovers_planted_weights_and_cites_within_the_ratio():
    rows = []
    for d in range(6):
        day = f"2026-01-0{d + 1}"
        for n in range(40):
            feats = {"merged": 1.0} if n % 4 == 0 else {}
            if n % 5 == 0:
                feats["draft"] = 1.0
            # picked: merged and not a draft (plus one noisy pick a day)
            label = int((n % 4 == 0 and n % 5 != 0) or n == 39)
            rows.append((day, n, feats, label))
    bias, weights = fit(rows, l2=1.0)
    assert weights["merged"] > 1.0 and weights["draft"] < -1.0
    day = ranked(rows, bias, weights)["2026-01-01"]
    assert all("merged" in r[2] and "draft" not in r[2] for r in day[:5])
    days = sorted({r[0] for r in rows})
    picks = sum(r[3] for r in rows)
    chosen = choose("key_changes", rows, days, picks)
    assert chosen["limit"] * len(days) <= MAX_CITE_RATIO * picks
    assert chosen["loo_recall"] >= 0.8


def test_the_fit_ranks_each_sections_last_items_as_its_mart_does():
    """LOO recall is measured in the pipeline's order: a CI failure report last among notable candidates, a
    typo-sized PR last among key changes, whatever their score."""
    rows = [("2026-01-01", 1, {"ci_failure": 1.0, "is_issue": 1.0}, 0),
            ("2026-01-01", 2, {"typo_sized": 1.0, "is_issue": 1.0}, 0),
            ("2026-01-01", 3, {}, 0)]
    weights = {"is_issue": 5.0}
    assert [r[1] for r in ranked(rows, 0.0, weights, "notable")["2026-01-01"]] == [2, 3, 1]
    assert [r[1] for r in ranked(rows, 0.0, weights, "key_changes")["2026-01-01"]] == [1, 3, 2]
