"""A deleted warehouse is recreated, and says so: the step that makes it new beside landed days or reports
of other days logs one warning and records it in its materializations (``new_warehouse``); 🔁 then says how
many of its 14 days before it could read, as the trend's baseline does. A fresh home says nothing, and neither
does a 🔁 that read all its days."""

from __future__ import annotations

import dagster as dg

from vllm_digest.testing.pipeline import materialize, report_path, settings_at

DAYS = ("2026-03-19", "2026-03-21")  # built first; then the last day alone
LAST = "2026-03-22"


def _warnings(instance: dg.DagsterInstance, result) -> list[str]:
    return [e.user_message for e in instance.all_logs(result.run_id)
            if e.level >= 30 and "new, empty warehouse" in e.user_message]


def _notes(result) -> set[str]:
    """The ``new_warehouse`` metadata of the run's materializations."""
    return {str(e.materialization.metadata["new_warehouse"].value) for e in result.get_asset_materialization_events()
            if "new_warehouse" in e.materialization.metadata}


def _follow_ups_line(settings, day: str, lang: str) -> str:
    heading = {"en": "### 🔁 Follow-ups", "zh": "### 🔁 进展追踪"}[lang]
    lines = report_path(settings, day, f"{lang}.md").read_text(encoding="utf-8").splitlines()
    return lines[lines.index(heading) + 1]


def test_a_new_warehouse_beside_landed_days_says_so_and_follow_ups_count_their_days(tmp_path):
    settings = settings_at(tmp_path / "home")
    instance = dg.DagsterInstance.ephemeral()
    fresh = materialize(settings, *DAYS, instance=instance)
    # a fresh home: the warehouse is new, but raw/ holds only this run's days
    assert not _warnings(instance, fresh) and not _notes(fresh)
    first = materialize(settings, LAST, instance=instance)
    assert not _warnings(instance, first)
    # 03-19 … 03-21 built, the 11 days before them not: 3 of 14, in which 2 items moved
    assert _follow_ups_line(settings, LAST, "en").startswith(
        "2 items featured in the last 14 days moved in this window "
        "(incomplete: only 3 of those 14 days are in the warehouse; ")
    assert "（不完整：前 14 日中仅有 3 日的数据；" in _follow_ups_line(settings, LAST, "zh")

    settings.warehouse_path.unlink()
    rebuilt = materialize(settings, LAST, instance=instance)
    (warning,) = _warnings(instance, rebuilt)
    assert "beside 3 landed day(s) in raw/ and 3 report(s) in reports/ of other days (2026-03-19 … 2026-03-21)" in warning
    assert _notes(rebuilt) == {warning}
    # the rebuilt warehouse read none of them: its "nothing moved" says why
    assert _follow_ups_line(settings, LAST, "en") == (
        "Nothing featured in the last 14 days moved in this window "
        "(incomplete: only 0 of those 14 days are in the warehouse).")


def test_follow_ups_that_read_all_their_days_say_nothing_new(tmp_path):
    settings = settings_at(tmp_path / "home")
    materialize(settings, "2026-03-08", LAST)
    for lang in ("en", "zh"):
        line = _follow_ups_line(settings, LAST, lang)
        assert "incomplete" not in line and "不完整" not in line, line
