"""Follow-ups across days and the weekly digest, on the embedded sample.

What an earlier report featured is read from that report's own files (its analysis sections), and what
moved is read from the later day's appendix (``<day>.json`` lists): never from the marts under test.
No sample number or date is named: the candidates are found in the files.
"""

from __future__ import annotations

import datetime as dt
import json
import re

import shutil

import duckdb
import pytest

from vllm_digest.analytics.build import build_analytics
from vllm_digest.core.calendar import week_days, window_for_day
from vllm_digest.core.taxonomy.loader import load_taxonomy, taxonomy_from_settings
from vllm_digest.core.vocabulary import SET_NAMES
from vllm_digest.testing.pipeline import materialize, materialize_weeks, report_path, settings_at


FIRST, LAST = "2026-03-09", "2026-03-22"  # two whole weeks, Monday to Sunday
REF = re.compile(r"\[(PR|Issue) #(\d+)\]")
# an item a section names: its own link, or a PR named with its thread's issue ("with PR #2, PR #3")
NAMED = re.compile(r"(?:\[|\(with |, )(PR|Issue) #(\d+)")
APPENDIX = "\n---\n\n## 📋"
FOLLOW = "### 🔁"
MOVED_SETS = ("merged_prs", "closed_issues", "closed_unmerged_prs")
# how far back a follow-up looks: the packaged taxonomy's, which these tests build with
FOLLOW_UP_DAYS = load_taxonomy().picks["follow_up_days"]


def days_between(first: str, last: str) -> list[str]:
    a, b = dt.date.fromisoformat(first), dt.date.fromisoformat(last)
    return [(a + dt.timedelta(days=i)).isoformat() for i in range((b - a).days + 1)]


def monday_of(day: str) -> str:
    d = dt.date.fromisoformat(day)
    return (d - dt.timedelta(days=d.weekday())).isoformat()


def section(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n### ", 1)[0].split(APPENDIX, 1)[0]


def featured(settings, day: str) -> set[int]:
    """The items a day's report names in its analysis sections (not its follow-ups, not its appendix)."""
    text = report_path(settings, day, "en.md").read_text(encoding="utf-8").split(APPENDIX, 1)[0]
    if FOLLOW in text:
        text = text.replace(FOLLOW + section(text, FOLLOW), "")
    return {int(n) for _, n in NAMED.findall(text.split("\n---\n", 1)[1])}


def in_focus(settings, day: str) -> set[int]:
    """The items a day's 🎯 section lists: 🔁 does not repeat them that day."""
    text = report_path(settings, day, "en.md").read_text(encoding="utf-8").split(APPENDIX, 1)[0]
    return {int(n) for _, n in REF.findall(section(text, "### 🎯"))}


def lists(settings, day: str) -> dict[str, list[int]]:
    return json.loads(report_path(settings, day, "json").read_text(encoding="utf-8"))["lists"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    settings = settings_at(tmp_path_factory.mktemp("follow_ups") / "home")
    materialize(settings, FIRST, LAST)
    weeks = materialize_weeks(settings, FIRST, monday_of(LAST))
    # the weekly run's metadata, read by test_a_weekly_range_run_previews_its_last_week_in_every_language
    WEEKLY_RUN["metadata"] = [e.materialization.metadata for e in weeks.get_asset_materialization_events()
                              if e.asset_key.path[-1] == "weekly_digest"]
    return settings


WEEKLY_RUN: dict = {}


def test_a_pr_featured_one_day_and_merged_two_days_later_is_followed_up_that_day_with_a_link(built):
    days = days_between(FIRST, LAST)
    found = []
    for i, day in enumerate(days[:-2]):
        later = days[i + 2]
        moved_before = {n for d in days[: i + 2] for name in MOVED_SETS for n in lists(built, d)[name]}
        # (an item the later day's 🎯 lists is not repeated in its 🔁)
        repeated = moved_before | in_focus(built, later)
        for number in featured(built, day) & set(lists(built, later)["merged_prs"]) - repeated:
            found.append((day, later, number))
    assert found, "the sample holds PRs featured one day and merged two days later"
    for day, later, number in found:
        first = min(d for d in days if d <= day and number in featured(built, d)
                    and dt.date.fromisoformat(d) >= dt.date.fromisoformat(later) - dt.timedelta(days=FOLLOW_UP_DAYS))
        md = section(report_path(built, later, "en.md").read_text(encoding="utf-8"), FOLLOW)
        [line] = [x for x in md.splitlines() if f"[PR #{number}](" in x]
        assert "merged" in line and line.endswith(f"[{first}]({first}.en.md))"), line
        zh = section(report_path(built, later, "zh.md").read_text(encoding="utf-8"), FOLLOW)
        [line] = [x for x in zh.splitlines() if f"[PR #{number}](" in x]
        assert "已合并" in line and f"[{first}]({first}.zh.md)" in line, line
        html = report_path(built, later, "en.html").read_text(encoding="utf-8")
        follow = html.split('id="follow-ups"', 1)[1].split("</section>", 1)[0]
        [item] = [x for x in follow.split("<li>") if f"/pull/{number}\"" in x]
        assert f'<a href="{first}.en.html">{first}</a>' in item, item
        # the links point at files beside the report, as on disk so on the published site (same layout)
        assert report_path(built, first, "en.md").is_file() and report_path(built, first, "en.html").is_file()


def test_every_follow_up_was_featured_earlier_and_moved_that_day(built):
    """Each follow-up line names an item an earlier report of the look-back featured; an item that merged
    or closed that day says so, as the day's appendix has it."""
    days = days_between(FIRST, LAST)
    checked = 0
    for i, day in enumerate(days):
        text = report_path(built, day, "en.md").read_text(encoding="utf-8")
        body = section(text, FOLLOW)
        earlier = set().union(*(featured(built, d) for d in days[max(0, i - FOLLOW_UP_DAYS):i]))
        appendix = lists(built, day)
        for line in body.splitlines():
            if not line.startswith("- "):
                continue
            number = int(REF.search(line).group(2))
            assert number in earlier, (day, line)
            moves = line.split(" · first reported in ", 1)[0].rsplit(" (", 1)[1].split(" · ")
            assert ("merged" in moves) == (number in appendix["merged_prs"]), (day, line)
            closed = number in appendix["closed_issues"] + appendix["closed_unmerged_prs"]
            assert ("closed" in moves) == closed, (day, line)
            checked += 1
        if i == 0:
            # the first day of the range has none of its days before it built, and says so
            assert body.splitlines()[1] == (f"Nothing featured in the last {FOLLOW_UP_DAYS} days moved in this window "
                                            f"(incomplete: only 0 of those {FOLLOW_UP_DAYS} days are in the warehouse).")
    assert checked > 10


def test_the_picks_are_the_items_each_report_features(built):
    """mart_section_picks holds, per day, exactly the items the report's analysis sections name (by section),
    so whatever the selection marts pick flows into the follow-ups of later days."""
    heads = {"key_changes": "### 🛠️", "notable": "### 💡", "discussions": "### 💬", "topics": "### 🔥", "focus": "### 🎯"}
    with duckdb.connect(str(built.warehouse_path), read_only=True) as con:
        for day in days_between(FIRST, LAST):
            picks: dict[str, set[int]] = {}
            for name, number in con.execute("SELECT section, number FROM mart_section_picks WHERE day = $d",
                                            {"d": dt.date.fromisoformat(day)}).fetchall():
                picks.setdefault(name, set()).add(number)
            text = report_path(built, day, "en.md").read_text(encoding="utf-8")
            shown = {name: {int(n) for _, n in NAMED.findall(section(text, head))} for name, head in heads.items()}
            assert {k: v for k, v in shown.items() if v} == picks, day
            assert set().union(*picks.values()) == featured(built, day)


def test_weekly_counts_are_the_sums_of_the_daily_counts(built):
    monday = monday_of(LAST)
    week = json.loads((report_path(built, "x", "json").parent / "weekly" / f"{monday}.json").read_text(encoding="utf-8"))
    this, previous = week_days(monday), [(dt.date.fromisoformat(d) - dt.timedelta(days=7)).isoformat()
                                         for d in week_days(monday)]
    daily = {d: json.loads(report_path(built, d, "json").read_text(encoding="utf-8"))["counts"] for d in this + previous}
    assert week["counts"] == {k: sum(daily[d][k] for d in this) for k in SET_NAMES}
    assert week["previous_counts"] == {k: sum(daily[d][k] for d in previous) for k in SET_NAMES}
    assert sum(week["counts"].values()) > 0 and week["days_held"] == 7
    md = (report_path(built, "x", "json").parent / "weekly" / f"{monday}.en.md").read_text(encoding="utf-8")
    assert f"| new PRs | {week['counts']['new_prs']} | {week['previous_counts']['new_prs']} |" in md
    # the week's follow-up outcomes count only items its own daily reports featured
    assert 0 < week["moved"] <= week["featured"]


def test_a_weekly_range_run_previews_its_last_week_in_every_language(built):
    """Like the daily report's: the last week's Markdown per language and its pages, and each week's counts."""
    metas = WEEKLY_RUN["metadata"]
    assert len(metas) == 2 and metas[0] == metas[1]  # a range run's metadata is on every week
    meta, folder = metas[0], report_path(built, "x", "json").parent / "weekly"
    last = monday_of(LAST)
    assert meta["preview_day"].value == last
    for lang in built.languages:
        assert meta[f"preview_{lang}"].value == (folder / f"{last}.{lang}.md").read_text(encoding="utf-8")
        assert meta[f"html_{lang}"].value == str(folder / f"{last}.{lang}.html")
    table = meta["counts_by_week"].value
    rows = {r.data["week"]: r.data for r in table.records}
    assert sorted(rows) == [FIRST, last]
    for monday, row in rows.items():
        on_disk = json.loads((folder / f"{monday}.json").read_text(encoding="utf-8"))["counts"]
        assert {k: row[k] for k in SET_NAMES} == on_disk


def test_the_site_lists_and_feeds_every_whole_week(built):
    index = (built.site_dir / "index.html").read_text(encoding="utf-8")
    feed = (built.site_dir / "feed.xml").read_text(encoding="utf-8")
    for monday in (FIRST, monday_of(LAST)):
        for lang in ("zh", "en"):
            page = report_path(built, "x", "json").parent / "weekly" / f"{monday}.{lang}.html"
            assert page.is_file()
            href = f"../reports/vllm-project/vllm/weekly/{monday}.{lang}.html"
            assert f'href="{href}"' in index and f'href="{href}"' in feed
            # a week's page links back to its days, beside it one folder up
            assert f'href="../{monday}.{lang}.html"' in page.read_text(encoding="utf-8")


RERUN_DAYS = ("2026-03-09", "2026-03-12")  # A ... D: a day before the re-run one, it, and the days after
RETITLE = " (retitled)"


def copy_sample(target):
    """The embedded sample, copied so a test can change what the source says."""
    from vllm_digest.core.sample_coverage import embedded_sample_root
    shutil.copytree(embedded_sample_root(), target)
    return target


def retitle(sample, number: int) -> str:
    """Rewrite the sample's item ``number`` with a new title, as if the source changed it; returns the title."""
    import gzip

    path = sample / "vllm-project__vllm" / "issues.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    [row] = [r for r in rows if r["number"] == number]
    row["title"] += RETITLE
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    return row["title"]


def follow_up_lines(settings, day: str) -> list[str]:
    text = report_path(settings, day, "en.md").read_text(encoding="utf-8")
    return [line for line in section(text, FOLLOW).splitlines() if line.startswith("- ")]


def test_rerunning_a_day_changes_it_and_its_followers_but_no_earlier_day(tmp_path):
    """Days A ... D are built; the source then retitles an item that day B featured and day C follows up
    (first reported on B). Re-running B rewrites B's files and no earlier day's (byte for byte); C keeps its
    files until the baseline sensor's follow-up run re-renders it, and then its follow-up line carries B's new
    pick (the new title)."""
    import dagster as dg

    from tests.orchestration.test_sensors import sensor_requests
    from vllm_digest.definitions import build_definitions
    from vllm_digest.core.keys import DAILY_JOB, RANGE_END_TAG, RANGE_START_TAG

    days = days_between(*RERUN_DAYS)
    first = copy_sample(tmp_path / "sample")
    settings = settings_at(tmp_path / "home", VLLM_DIGEST_SAMPLE_DIR=str(first))
    folder = report_path(settings, days[0], "json").parent
    (tmp_path / "dagster_home").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "dagster_home")) as instance:
        materialize(settings, days[0], days[-1], instance=instance)
        # an item first reported on B (not the first day) that a later day C follows up
        found = [(line.rsplit("[", 1)[1].split("]", 1)[0], day, int(REF.search(line).group(2)))
                 for day in days for line in follow_up_lines(settings, day)]
        candidates = [(b, c, n) for b, c, n in found if days[0] < b < c
                      and not any(n in featured(settings, d) for d in days if b < d < c)]
        assert candidates, found
        b, c, number = candidates[0]
        assert number in featured(settings, b) and not any(number in featured(settings, d) for d in days if d < b)
        before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}

        # the source now says something else about B's item: a re-run of B must show it
        changed = copy_sample(tmp_path / "sample_changed")
        title = retitle(changed, number)
        later = settings_at(tmp_path / "home", VLLM_DIGEST_SAMPLE_DIR=str(changed))
        rerun = materialize(later, b, instance=instance)
        after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
        assert sorted(after) == sorted(before)
        for name in before:
            if name[:10] < b:
                assert after[name] == before[name], name  # earlier days: byte-identical
            elif name[:10] == b and name.endswith(".md"):
                assert after[name] != before[name] and title in after[name].decode("utf-8"), name
            elif name[:10] > b:
                assert after[name] == before[name], name  # later days wait for their re-render
        assert number in featured(later, b)

        # the sensor re-renders the days after B (analytics and report, no fetch); C then follows B's new pick
        defs = build_definitions(later)
        daily = [r for r in sensor_requests(defs, instance, rerun) if r.job_name == DAILY_JOB]
        assert [(r.tags[RANGE_START_TAG], r.tags[RANGE_END_TAG]) for r in daily] == [
            (days[days.index(b) + 1], days[-1])]
        assert defs.resolve_job_def(DAILY_JOB).execute_in_process(
            instance=instance, tags=daily[0].tags, asset_selection=daily[0].asset_selection).success
    [line] = [x for x in follow_up_lines(settings, c) if f"[{REF.search(x).group(1)} #{number}](" in x]
    assert f" {title} (" in line and line.endswith(f"[{b}]({b}.en.md))"), line
    final = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert all(final[n] == before[n] for n in before if n[:10] < b)
    assert final[f"{c}.en.md"] != before[f"{c}.en.md"]


MOVE_STRENGTH = (("merged", 1), ("closed", 2), ("reopened", 3), ("linked ", 4), ("first maintainer reply", 6),
                 ("comments in the window", 7))


def strength(line: str) -> int:
    """How strong a follow-up line's first move is (follow_rank's order: merges first, bursts last)."""
    first = line.split(" · first reported in ", 1)[0].rsplit(" (", 1)[1].split(" · ")[0]
    if first.startswith("linked "):
        return 4 if first.endswith(" merged") else 5
    return next(rank for word, rank in MOVE_STRENGTH if first.startswith(word))


def test_the_follow_ups_list_the_strongest_few_and_count_the_rest(built):
    """A busy day moves more earlier items than a reader wants listed: the section lists FOLLOW_UPS_SHOWN,
    the strongest moves first (every merge of a featured item before any mere reply), and says how many more."""
    FOLLOW_UPS_SHOWN = load_taxonomy().picks["follow_ups_shown"]

    days = days_between(FIRST, LAST)
    capped = 0
    for i, day in enumerate(days):
        en = report_path(built, day, "en.md").read_text(encoding="utf-8")
        body = section(en, FOLLOW)
        lead = re.search(r"^(\d+) items featured in the last", body.splitlines()[1])
        if lead is None:
            continue
        moved = int(lead.group(1))
        lines = follow_up_lines(built, day)
        assert len(lines) == min(moved, FOLLOW_UPS_SHOWN), day
        ranks = [strength(x) for x in lines]
        assert ranks == sorted(ranks), (day, ranks)
        zh = section(report_path(built, day, "zh.md").read_text(encoding="utf-8"), "### 🔁")
        html = report_path(built, day, "en.html").read_text(encoding="utf-8").split('id="follow-ups"', 1)[1]
        if moved > FOLLOW_UPS_SHOWN:
            more = moved - FOLLOW_UPS_SHOWN
            assert f"**More**: and {more} more items moved" in body, body
            assert f"另有 {more} 个条目有新进展" in zh, zh
            assert f"and {more} more items moved" in html.split("</section>", 1)[0]
            # every merge of an earlier featured item is among the lines, while there is room for them
            earlier = set().union(*(featured(built, d) for d in days[max(0, i - FOLLOW_UP_DAYS):i]))
            merges = earlier & set(lists(built, day)["merged_prs"]) - in_focus(built, day)
            listed = {int(REF.search(x).group(2)) for x in lines}
            assert merges and (merges <= listed if len(merges) <= FOLLOW_UPS_SHOWN else listed <= merges), day
            capped += 1
        else:
            assert "**More**" not in body and "另有" not in zh
    assert capped, "the sample has days with more follow-ups than the section lists"


def test_a_day_sees_only_earlier_days_picks(built, tmp_path):
    """mart_follow_ups of a day reads the picks of the days before it, and of its own day only what its focus
    section lists (left out, not repeated): without the later days' picks and that day's other picks it is the
    same; without an earlier day's picks, what only that day featured is gone."""
    days = days_between(FIRST, LAST)
    day, before = days[-1], days[-2]
    copy = tmp_path / "warehouse.duckdb"
    shutil.copy(built.warehouse_path, copy)
    query = "SELECT number, first_reported, moves FROM mart_follow_ups WHERE day = $d ORDER BY number"
    taxonomy = taxonomy_from_settings(built)
    with duckdb.connect(str(copy)) as con:
        con.execute("SET TimeZone = 'UTC'")
        rows = con.execute(query, {"d": dt.date.fromisoformat(day)}).fetchall()
        assert rows
        con.execute("DELETE FROM mart_section_picks WHERE day > $d OR (day = $d AND section <> 'focus')",
                    {"d": dt.date.fromisoformat(day)})
        build_analytics(con, built.repos[0], [window_for_day(day, built)], taxonomy, models=["mart_follow_ups"])
        assert con.execute(query, {"d": dt.date.fromisoformat(day)}).fetchall() == rows
        con.execute("DELETE FROM mart_section_picks WHERE day = $d", {"d": dt.date.fromisoformat(before)})
        build_analytics(con, built.repos[0], [window_for_day(day, built)], taxonomy, models=["mart_follow_ups"])
        kept = [n for (n,) in con.execute("SELECT number FROM mart_follow_ups WHERE day = $d ORDER BY number",
                                          {"d": dt.date.fromisoformat(day)}).fetchall()]
    only_before = {n for n, first, _ in rows if first.isoformat() == before}
    assert only_before, "the day before featured something that moved the last day"
    assert kept == [n for n, _, _ in rows if n not in only_before]


def test_one_range_build_equals_building_the_days_one_by_one_in_order(tmp_path):
    """Inside a single run the days are built set-based, each reading only the picks of the days before it:
    the same rows as building them one at a time, in day order."""
    from tests.analytics.test_analytics import base_warehouse, build_marts, windows

    days = days_between(FIRST, LAST)
    tables = "SELECT * EXCLUDE (repo) FROM {} ORDER BY ALL"
    found = []
    for name, batches in (("range", [days]), ("steps", [[d] for d in days])):
        con = base_warehouse(tmp_path / name, days)
        for batch in batches:
            build_marts(con, windows(tmp_path / name, batch)[1], taxonomy_from_settings(settings_at(tmp_path)))
        found.append([con.execute(tables.format(t)).fetchall() for t in ("mart_section_picks", "mart_follow_ups")])
        con.close()
    assert found[0] == found[1] and found[0][1]


def test_rebuilding_a_day_of_a_rendered_week_asks_for_that_week_again(tmp_path):
    """The sensor: a run that rebuilt days of a week whose digest exists re-renders that week (weekly job,
    no fetch); a week never rendered is left to its schedule."""
    import dagster as dg

    from tests.orchestration.test_sensors import sensor_requests
    from vllm_digest.definitions import build_definitions
    from vllm_digest.orchestration.sensors import RERENDER_TAG
    from vllm_digest.core.keys import RANGE_END_TAG, RANGE_START_TAG, WEEKLY_JOB

    settings = settings_at(tmp_path / "home")
    defs = build_definitions(settings)
    monday = monday_of(LAST)
    days = week_days(monday)
    (tmp_path / "dagster_home").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "dagster_home")) as instance:
        materialize(settings, days[0], days[-1], instance=instance)
        materialize_weeks(settings, monday, instance=instance)
        before = (report_path(settings, "x", "json").parent / "weekly" / f"{monday}.en.md").read_bytes()
        late = materialize(settings, days[-2], days[-1], instance=instance)
        weekly = [r for r in sensor_requests(defs, instance, late) if r.job_name == WEEKLY_JOB]
        assert [(r.tags[RANGE_START_TAG], r.tags[RANGE_END_TAG]) for r in weekly] == [(monday, monday)]
        assert weekly[0].tags[RERENDER_TAG] == late.dagster_run.run_id
        rerun = defs.resolve_job_def(WEEKLY_JOB).execute_in_process(instance=instance, tags=weekly[0].tags)
        assert rerun.success
        assert sensor_requests(defs, instance, rerun) == []  # a weekly run changes no day
    # the same data: the same bytes
    assert (report_path(settings, "x", "json").parent / "weekly" / f"{monday}.en.md").read_bytes() == before


HEADS = {"key_changes": "### 🛠️", "notable": "### 💡", "discussions": "### 💬", "topics": "### 🔥", "focus": "### 🎯"}


def shown_order(text: str, head: str) -> list[int]:
    """The items a section names, in the order a reader meets them (each once, at its first mention)."""
    out: list[int] = []
    for line in section(text, head).splitlines():
        if line.startswith("- "):
            out.extend(int(n) for _, n in NAMED.findall(line) if int(n) not in out)
    return out


def test_each_sections_pick_rank_is_the_order_the_report_shows_its_items(built):
    """pick_rank follows the section as rendered: for the 🎯 section the largest theme first (ties by theme id),
    then the larger number, as report/sections/focus.py groups it, not the theme id alone."""
    reordered = 0
    with duckdb.connect(str(built.warehouse_path), read_only=True) as con:
        for day in days_between(FIRST, LAST):
            text = report_path(built, day, "en.md").read_text(encoding="utf-8")
            for name, head in HEADS.items():
                ranked = [n for (n,) in con.execute(
                    "SELECT number FROM mart_section_picks WHERE day = $d AND section = $s ORDER BY pick_rank",
                    {"d": dt.date.fromisoformat(day), "s": name}).fetchall()]
                assert ranked == shown_order(text, head), (day, name)
            themes = [line for line in section(text, HEADS["focus"]).splitlines() if line.startswith("**")]
            reordered += themes != sorted(themes)
    # the sample has days whose largest theme is not the first by id, so theme-id order would differ
    assert reordered


WEEK_TOPIC = re.compile(r"^\d+\. (.+): \d+ items over \d+ days, peak surprise \S+, listed by (\d+) daily reports$")


def listed_topics(settings, day: str) -> list[str]:
    """The topic headings of a day's 🔥 section, as its report prints them."""
    text = report_path(settings, day, "en.md").read_text(encoding="utf-8")
    # the topics' headings (" · 13 items"), not the story's headline above them
    return [line for line in section(text, HEADS["topics"]).splitlines()
            if line.startswith("**") and re.search(r" [·↑↓] \d+ items", line)]


def check_weekly_listed_days(settings, mondays) -> int:
    """Each weekly topic line's "listed by N daily reports" is the number of the week's days whose 🔥 section
    shows that topic; returns how many lines it checked."""
    checked = 0
    for monday in mondays:
        md = (report_path(settings, "x", "json").parent / "weekly" / f"{monday}.en.md").read_text(encoding="utf-8")
        for line in section(md, "### 🔥").splitlines():
            found = WEEK_TOPIC.match(line)
            if not found:
                continue
            name, listed = found.group(1), int(found.group(2))
            days = [d for d in week_days(monday) if any(h.startswith(f"**{name} ") for h in listed_topics(settings, d))]
            assert listed == len(days), (monday, line, days)
            checked += 1
    return checked


def test_a_weekly_topic_counts_the_days_whose_daily_report_listed_it(built):
    assert check_weekly_listed_days(built, (FIRST, monday_of(LAST))) >= 6


def test_a_topic_ranked_within_the_limit_but_not_listed_is_not_counted_as_listed(tmp_path):
    """With a story threshold no thread reaches, a day lists only its first three topics, though five rank
    within the limit: the weekly digest counts the days a topic was listed, not the days it ranked."""
    from vllm_digest.core.taxonomy.loader import DEFAULT_TAXONOMY
    bundled = DEFAULT_TAXONOMY.read_text(encoding="utf-8")
    assert "\nmin_story = 2.0\n" in bundled
    taxonomy = tmp_path / "taxonomy.toml"
    taxonomy.write_text(bundled.replace("\nmin_story = 2.0\n", "\nmin_story = 1000.0\n"), encoding="utf-8")
    settings = settings_at(tmp_path / "home", VLLM_DIGEST_TAXONOMY=str(taxonomy))
    monday = monday_of(LAST)
    materialize(settings, week_days(monday)[0], week_days(monday)[-1])
    materialize_weeks(settings, monday)
    assert all(len(listed_topics(settings, d)) == 3 for d in week_days(monday))
    assert check_weekly_listed_days(settings, (monday,)) >= 3


def test_only_mart_topic_daily_holds_the_topic_listing_rule():
    """One source of truth: the report's topic queries, the picks and the weekly digest read
    mart_topic_daily.listed / shown_threads instead of restating topic_rank <= $topic_limit and the threads' cap."""
    from vllm_digest.core.sqlmodel.files import sql_files

    rule = sql_files()["mart_topic_daily"]
    assert "$topic_limit" in rule.read_text() and "$topic_threads" in rule.read_text()
    readers = ("report_topics", "report_topic_members", "mart_section_picks", "report_weekly_topics")
    for path in sorted(sql_files().values()):
        text = path.read_text()
        if path != rule:
            assert "topic_rank <=" not in text and "$topic_threads" not in text and "listable_threads >" not in text, path
        if path.stem in readers:
            assert "listed" in text, path


def drain(defs, instance, result) -> list[tuple[str, str, str]]:
    """Run what the baseline sensor asks for after ``result``, and what it asks for after those runs, as the
    daemon would (each request once, in the order asked); returns (job, first, last) of every run launched."""
    from tests.orchestration.test_sensors import sensor_requests
    from vllm_digest.core.keys import RANGE_END_TAG, RANGE_START_TAG

    launched, queue = [], list(sensor_requests(defs, instance, result))
    while queue:
        request = queue.pop(0)
        launched.append((request.job_name, request.tags[RANGE_START_TAG], request.tags[RANGE_END_TAG]))
        job = defs.resolve_job_def(request.job_name)
        kwargs = {"asset_selection": request.asset_selection} if request.asset_selection else {}
        run = job.execute_in_process(instance=instance, tags=request.tags, **kwargs)
        assert run.success
        queue.extend(sensor_requests(defs, instance, run))
    return launched


def test_building_a_sunday_rerenders_the_next_weeks_digest_to_the_one_run_bytes(tmp_path):
    """The next week's days read the Sunday (their trend baselines and their follow-ups' picks), and so does
    its digest: building the week before after the next one was rendered ends, through the sensor's runs,
    with the next week's digest as one run over both weeks writes it."""
    import dagster as dg

    from vllm_digest.definitions import build_definitions
    from vllm_digest.core.keys import DAILY_JOB, WEEKLY_JOB

    before, after = week_days(FIRST), week_days(monday_of(LAST))
    settings = settings_at(tmp_path / "home")
    defs = build_definitions(settings)
    digest = report_path(settings, "x", "json").parent / "weekly" / f"{after[0]}.en.md"
    (tmp_path / "dagster_home").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "dagster_home")) as instance:
        materialize(settings, after[0], after[-1], instance=instance)
        materialize_weeks(settings, after[0], instance=instance)
        stale = digest.read_bytes()
        backfill = materialize(settings, before[0], before[-1], instance=instance)
        launched = drain(defs, instance, backfill)
    assert (DAILY_JOB, after[0], after[-1]) in launched and (WEEKLY_JOB, after[0], after[0]) in launched, launched
    one_run = settings_at(tmp_path / "one_run")
    materialize(one_run, before[0], after[-1])
    materialize_weeks(one_run, before[0], after[0])
    fresh = report_path(one_run, "x", "json").parent / "weekly" / f"{after[0]}.en.md"
    assert digest.read_bytes() == fresh.read_bytes() != stale


def test_a_follow_up_the_focus_section_shows_that_day_is_not_repeated(make_settings, tmp_path):
    """🔁 leaves out what the day's 🎯 lists: a ROCm issue featured one day and closed the next is in the next
    day's 🎯 (closed today), so 🔁 does not repeat it; an issue featured elsewhere is followed up as before."""
    from vllm_digest.testing.pipeline import write_sample

    base = {"labels": [], "comments": 0, "state": "closed", "author_association": "MEMBER", "body": None,
            "created_at": "2026-03-21T05:00:00Z", "updated_at": "2026-03-22T05:00:00Z",
            "closed_at": "2026-03-22T05:00:00Z"}
    items = [
        {**base, "number": 961, "title": "[ROCm] Fused MoE hangs on MI355X with fp8 weights",
         "user": {"login": "ann", "type": "User"}},
        {**base, "number": 962, "title": "[Bug] The KV cache manager evicts pinned prefix blocks under load",
         "user": {"login": "ben", "type": "User"}},
    ]
    api = "https://api.github.com/repos/vllm-project/vllm"
    events = [{"id": 70 + n, "event": "closed", "created_at": "2026-03-22T05:00:00Z", "actor": {"login": "cyd"},
               "commit_id": None, "issue": {"number": n, "url": f"{api}/issues/{n}"}} for n in (961, 962)]
    root = write_sample(tmp_path / "sample", items, events=events, start="2026-03-19T00:00:00Z")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(root))
    first, later = "2026-03-21", "2026-03-22"
    materialize(settings, first, later)
    assert {961, 962} <= featured(settings, first) and 961 in in_focus(settings, first)
    assert 961 in in_focus(settings, later)
    follow = {int(n) for _, n in REF.findall(section(report_path(settings, later, "en.md").read_text(encoding="utf-8"),
                                                      FOLLOW))}
    assert follow == {962}, follow
