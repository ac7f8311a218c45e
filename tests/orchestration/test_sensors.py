"""A day's report does not depend on the order days were built: a day built before its trailing
days says its baseline is incomplete (and draws no arrow), and the baseline sensor re-renders it
once a run builds them, to the bytes a run over all the days writes."""

from __future__ import annotations

import re

import dagster as dg

from vllm_digest.core.keys import BASELINE_SENSOR, DAILY_JOB, RANGE_END_TAG, RANGE_START_TAG
from vllm_digest.core.taxonomy.loader import load_taxonomy
from vllm_digest.definitions import build_definitions
from vllm_digest.orchestration.sensors import RERENDER_TAG, follower_blocks, followers_window
from vllm_digest.testing.pipeline import materialize, report_path, settings_at

DAY = "2026-03-22"
TRAILING = ("2026-03-15", "2026-03-21")  # the 7 days before DAY
HEADING = {"zh": "### 🔥 热门话题与趋势分析", "en": "### 🔥 Hot topics and trends"}
ARROWS = ("↑", "↓", "→")


TOPIC_COUNT = re.compile(r" [·↑↓] \d+ (?:items|项)")


def topic_headings(text: str, lang: str) -> list[str]:
    section = text.split(HEADING[lang], 1)[1].split("\n### ", 1)[0]
    # the topics' headings (" · 13 items", " ↑ 13 项"), not the story's headline above them
    return [line for line in section.splitlines() if line.startswith("**") and TOPIC_COUNT.search(line)]


def follow_ups(text: str) -> str:
    """The follow-ups section of a Markdown report (its heading starts with 🔁)."""
    return "### 🔁" + text.split("### 🔁", 1)[1].split("\n### ", 1)[0]


def without_follow_ups(text: str) -> str:
    return text.replace(follow_ups(text), "")


def reports(settings, day: str = DAY) -> dict[str, bytes]:
    return {s: report_path(settings, day, s).read_bytes() for s in ("zh.md", "en.md", "zh.html", "en.html", "json")}


def test_a_day_built_before_its_trailing_days_says_how_many_it_had_and_draws_no_arrow(tmp_path):
    alone = settings_at(tmp_path / "alone")
    materialize(alone, DAY)
    after = settings_at(tmp_path / "after")
    materialize(after, "2026-03-21")
    materialize(after, DAY)
    texts = {}
    for name, settings in (("alone", alone), ("after", after)):
        for lang in ("zh", "en"):
            texts[name, lang] = report_path(settings, DAY, f"{lang}.md").read_text(encoding="utf-8")
            headings = topic_headings(texts[name, lang], lang)
            assert headings and not any(a in h for h in headings for a in ARROWS), headings
    held = {"alone": 0, "after": 1}
    for name in held:
        assert all(h.endswith(f"(baseline incomplete: {held[name]} of 7 days)**")
                   for h in topic_headings(texts[name, "en"], "en"))
        assert all(h.endswith(f"（基线不完整：前 7 日中仅有 {held[name]} 日的数据）**")
                   for h in topic_headings(texts[name, "zh"], "zh"))
    # the order of building changed nothing else in the day's report but its follow-ups, which read the
    # picks of the days built before it (none alone, 03-21's after)
    for lang in ("en", "zh"):
        assert "](2026-03-21." in follow_ups(texts["after", lang]) and "](2026-" not in follow_ups(texts["alone", lang])
    assert (without_follow_ups(texts["alone", "en"]).replace("0 of 7 days", "1 of 7 days")
            == without_follow_ups(texts["after", "en"]))
    assert without_follow_ups(texts["alone", "zh"]).replace("仅有 0 日", "仅有 1 日") == without_follow_ups(texts["after", "zh"])


def sensor_requests(defs: dg.Definitions, instance: dg.DagsterInstance, result) -> list[dg.RunRequest]:
    [sensor] = [s for s in defs.sensors if s.name == BASELINE_SENSOR]
    context = dg.build_run_status_sensor_context(
        sensor_name=BASELINE_SENSOR, dagster_event=result.get_run_success_event(),
        dagster_instance=instance, dagster_run=result.dagster_run,
    )
    found = sensor(context)
    # a run that needs nothing answers None (a SkipReason would end Dagster's tick before the next ended run)
    assert not isinstance(found, dg.SkipReason)
    return [] if found is None else list(found)


def test_building_the_missing_days_rerenders_the_day_after_them_to_the_one_run_bytes(tmp_path):
    """03-22 first, then its 7 trailing days: the sensor asks for 03-22 again (analytics, report,
    site only), and that run leaves 03-22's report byte for byte what one run over the 8 days
    writes, arrows included. The follow-up run asks for nothing more."""
    settings = settings_at(tmp_path / "home")
    defs = build_definitions(settings)
    (tmp_path / "dagster_home").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "dagster_home")) as instance:
        first = materialize(settings, DAY, instance=instance)
        assert sensor_requests(defs, instance, first) == []  # nothing built after it yet
        stale = reports(settings)
        backfill = materialize(settings, *TRAILING, instance=instance)
        [request] = sensor_requests(defs, instance, backfill)
        assert (request.tags[RANGE_START_TAG], request.tags[RANGE_END_TAG]) == (DAY, DAY)
        assert request.tags[RERENDER_TAG] == backfill.dagster_run.run_id
        selected = {"/".join(k.path) for k in request.asset_selection}
        assert "vllm_project/vllm/daily_report" in selected and "site" in selected
        assert "vllm_project/vllm/raw_activity" not in selected  # re-rendering fetches nothing
        assert reports(settings) == stale  # the backfill itself left 03-22 as it was
        rerun = defs.resolve_job_def(DAILY_JOB).execute_in_process(
            instance=instance, tags=request.tags, asset_selection=request.asset_selection)
        assert rerun.success
        assert sensor_requests(defs, instance, rerun) == []
    one_run = settings_at(tmp_path / "one_run")
    materialize(one_run, TRAILING[0], DAY)
    assert reports(settings) == reports(one_run)
    text = report_path(settings, DAY, "en.md").read_text(encoding="utf-8")
    headings = topic_headings(text, "en")
    # the complete baseline gives every topic its expected count (an arrow only outside noise)
    assert headings and all("(expected " in h for h in headings), headings
    assert "baseline incomplete" not in text


def test_followers_are_the_built_days_within_the_window_in_runs_of_consecutive_days():
    import datetime as dt

    built = {"2026-03-02", "2026-03-03", "2026-03-05", "2026-03-09", "2026-03-01"}
    assert follower_blocks(dt.date(2026, 3, 1), built, 7) == [["2026-03-02", "2026-03-03"], ["2026-03-05"]]
    assert follower_blocks(dt.date(2026, 3, 9), built, 7) == []


def test_the_window_covers_every_look_back_of_a_later_day():
    """A later day reads a built day through its trend baseline, its follow-ups and its 🔥 stories' usual volume:
    the re-render window is the longest of the three, whichever the taxonomy makes longest."""
    params = load_taxonomy().params()
    assert followers_window(params) == max(params["trend_baseline_days"], params["follow_up_days"],
                                           params["story_history_days"])
    for longest in ("trend_baseline_days", "follow_up_days", "story_history_days"):
        assert followers_window({**params, longest: 40}) == 40, longest

