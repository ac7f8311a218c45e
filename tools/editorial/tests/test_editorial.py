"""The editorial eval (tools/editorial/editorial.py): which items each section of a rendered report cites, the
figures it computes from them, and the wall between the pipeline and the original's picks
(selections.json is read by the eval only, never by the pipeline)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from tools.editorial.editorial import (
    Count,
    DayReport,
    EvalError,
    aggregate,
    days_in,
    leave_one_day_out,
    load_selections,
    main,
    score_day,
)
from vllm_digest.core.taxonomy.selection import load_selection_weights
from vllm_digest.testing.pipeline import ROOT, SHIPPED_SAMPLE, materialize, settings_at
from vllm_digest.testing.report_text import SECTIONS, cited_numbers, section_citations, split_sections


GOLDEN = ROOT / "tests" / "golden"
REPO = "vllm-project/vllm"


def test_sections_of_the_golden_zh_report():
    cited = section_citations((GOLDEN / "2026-03-22.zh.md").read_text(encoding="utf-8"), REPO)
    # the sample has no comment threads: 💬 says so in one line and cites nothing
    assert cited["discussions"] == set()
    assert cited["key_changes"] == {35162, 36097, 37830, 37800, 37811, 37818}
    assert cited["notable"] == {36155, 37823, 37804, 37836, 37839, 37832, 37828, 37837}
    # the fork sync and the "yes" PR are junk, the mass-labelled PRs demoted: none is in the focus section
    assert not {37807, 37791, 37781, 30030} & cited["focus"] and {37800, 37780} <= cited["focus"]
    # "in #35042" inside a title is a reference too
    assert 35042 in cited["focus"]
    assert {37825, 37823, 37843} <= cited["topics"] and 26897 not in cited["topics"]
    # #37643 is listed in the appendix only: 📋 and 📈 are not sections, and end the ones before them
    assert all(37643 not in numbers for numbers in cited.values())
    # 🔥: the story's three items, then the topics' threads (none again)
    assert len(cited["topics"]) == 18 and len(cited["focus"]) == 12  # 11 listed items and #35042 in a title


def test_en_report_cites_the_same_items_as_zh():
    zh = section_citations((GOLDEN / "2026-03-22.zh.md").read_text(encoding="utf-8"), REPO)
    en = section_citations((GOLDEN / "2026-03-22.en.md").read_text(encoding="utf-8"), REPO)
    assert en == zh


def test_sections_are_found_by_emoji_and_heading_level():
    md = "\n".join([
        "# Title #1",
        "### 🎯 Reworded focus",
        "- [PR #10](https://github.com/o/r/pull/10) see #11",
        "#### 🔥 a deeper heading stays inside the focus section #12",
        "### 📈 Activity #13",
        "### 🛠 Key changes without the variation selector",
        "- https://github.com/o/r/issues/14 and https://github.com/other/repo/pull/15, other/repo#16, &#17;",
        "## 📋 Appendix",
        "- #18",
    ])
    texts = split_sections(md)
    assert set(texts) == {"focus", "key_changes"}
    cited = section_citations(md, "o/r")
    assert cited["focus"] == {10, 11, 12}
    assert cited["key_changes"] == {14}
    assert cited["topics"] == cited["notable"] == cited["discussions"] == set()
    # without a repo, a link to any repository's item counts
    assert cited_numbers(texts["key_changes"]) == {14, 15}


def test_figures_micro_mean_and_ratio():
    day1 = score_day({k: set() for k in SECTIONS} | {"topics": {1, 2, 3, 4}},
                     DayReport({k: set() for k in SECTIONS} | {"topics": {1, 9, 99}}, {1, 2, 3, 4, 9}))
    day2 = score_day({k: set() for k in SECTIONS} | {"topics": {5}, "notable": {6}},
                     DayReport({k: set() for k in SECTIONS} | {"topics": {5, 7}}, {5, 6, 7}))
    # a day the original left empty in 🔥 (no day-list pick) while we cite three of its items there
    day3 = score_day({k: set() for k in SECTIONS} | {"notable": {8}},
                     DayReport({k: set() for k in SECTIONS} | {"topics": {8, 10, 11}, "notable": {8}}, {8, 10, 11}))
    assert day1["topics"] == Count(picks=4, hits=1, ours=2, ours_filled=2)  # #99 is not in the day's lists
    assert day2["all"] == Count(picks=2, hits=1, ours=2, ours_filled=2)
    assert day3["topics"] == Count(picks=0, hits=0, ours=3, ours_filled=0)
    # pooled, each section keeps its own filled days: 🔥's 3 items are out, 💡's 1 is in
    assert day3["all"] == Count(picks=1, hits=1, ours=4, ours_filled=1)
    topics = aggregate([day1["topics"], day2["topics"], day3["topics"]])
    assert topics.recall_micro == pytest.approx(2 / 5)
    assert topics.recall_mean == pytest.approx((1 / 4 + 1) / 2)
    assert topics.cite_ratio == pytest.approx(7 / 5)
    assert (topics.ours_filled, topics.cite_ratio_filled) == (4, pytest.approx(4 / 5))
    # a day without picks in the section stays out of the mean and leaves recall undefined alone
    focus = aggregate([day1["focus"], day2["focus"]])
    assert (focus.recall_micro, focus.recall_mean, focus.mean_days) == (None, None, 0)


def test_splits_and_leave_one_day_out_folds():
    days = [f"2026-03-{d:02d}" for d in range(1, 23) if d != 21]
    fit, report = days_in("fit", days), days_in("report", days)
    assert (fit[0], fit[-1], len(fit)) == ("2026-03-01", "2026-03-14", 14)
    assert (report[0], report[-1], len(report)) == ("2026-03-15", "2026-03-22", 7)
    folds = list(leave_one_day_out(fit))
    assert [test for _, test in folds] == fit
    for train, test in folds:
        assert test not in train and sorted((*train, test)) == fit and not set(train) & set(report)


def test_missing_selections_file_is_named(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "selections.json"
    with pytest.raises(EvalError, match=re.escape(str(missing))):
        load_selections(missing)
    # the command stops before materializing anything
    assert main(["--selections", str(missing), "--out", str(tmp_path / "out.md")]) == 2
    assert str(missing) in capsys.readouterr().err
    assert not (tmp_path / "out.md").exists()


def test_malformed_selections_entry_is_named(tmp_path):
    path = tmp_path / "selections.json"
    path.write_text(json.dumps([{"day": "2026-03-01", "sections": {"topics": {"cited_in_day_lists": ["#5"]}}}]))
    with pytest.raises(EvalError, match=r"entry 0 \(2026-03-01\): sections.topics.cited_in_day_lists"):
        load_selections(path)


# --- the pipeline never reads the original's picks -------------------------------------------------

def test_pipeline_sources_never_mention_selections():
    offenders = []
    # the pipeline: the package without its test harness (vllm_digest/testing parses reports for the tests
    # and this eval, and runs nowhere in a materialization)
    for folder in (ROOT / "vllm_digest",):
        for path in folder.rglob("*"):
            if not path.is_file() or path.suffix in {".gz", ".pyc"} or "testing" in path.relative_to(folder).parts:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            offenders += [f"{path.relative_to(ROOT)}:{i}" for i, line in enumerate(text.splitlines(), 1)
                          if "selections" in line.lower()]
    assert offenders == []


def test_embedded_sample_holds_no_selections():
    names = [p.name.lower() for p in (ROOT / "vllm_digest" / "samples").rglob("*")]
    assert names and not [n for n in names if n.startswith("selections")]


_OPENED: list[str] = []
_RECORDING = [False]


def _record_open(event: str, args: tuple) -> None:
    if _RECORDING[0] and event == "open" and isinstance(args[0], (str, bytes, Path)):
        _OPENED.append(str(args[0]))


@pytest.fixture(scope="module")
def materialized_day(tmp_path_factory):
    """2026-03-22 materialized from a copy of the sample that has the original's picks beside it,
    every file the run opens recorded (an audit hook: it sees Python's own opens, whoever calls them)."""
    base = tmp_path_factory.mktemp("editorial")
    sample = base / "sample"
    shutil.copytree(SHIPPED_SAMPLE, sample / SHIPPED_SAMPLE.name)
    (sample / SHIPPED_SAMPLE.name / "selections.json").write_text(json.dumps(
        [{"day": "2026-03-22", "sections": {k: {"cited": [], "cited_in_day_lists": []} for k in SECTIONS}}]))
    settings = settings_at(base / "home", VLLM_DIGEST_SAMPLE_DIR=str(sample))
    # an audit hook cannot be removed: it stays for the session, recording only while asked to
    sys.addaudithook(_record_open)
    _OPENED.clear()
    _RECORDING[0] = True
    try:
        materialize(settings, "2026-03-22")
    finally:
        _RECORDING[0] = False
    return base, list(_OPENED)


def test_pipeline_run_never_opens_selections(materialized_day):
    _, opened = materialized_day
    assert any(p.endswith("issues.jsonl.gz") for p in opened), "the hook saw the sample being read"
    assert [p for p in opened if "selections" in p.lower()] == []


def test_eval_command_on_a_materialized_day(materialized_day, tmp_path):
    base, _ = materialized_day
    picks = {k: [] for k in SECTIONS}
    # the golden's key changes include #37830 (not #37825); its notable issues include #37823
    picks["key_changes"] = [37830, 37825]
    picks["notable"] = [37823]
    selections = tmp_path / "picks.json"
    selections.write_text(json.dumps([{"day": "2026-03-22", "sections": {
        k: {"cited": v, "cited_in_day_lists": v} for k, v in picks.items()}}]))
    out = tmp_path / "editorial.md"
    assert main(["--home", str(base / "home"), "--reuse", "--selections", str(selections), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    report = text.split("## report:")[1].split("## all:")[0]
    # picks 2, hits 1, recall 50%, mean 50% over 1 day; our cited key changes (as many as the fitted
    # weights' limit) are all in the day's lists
    key, notable = (load_selection_weights().models[s].limit for s in ("key_changes", "notable"))
    assert f"| 🛠️ key changes | 2 | 1 | 50% | 50% (1) | {key} | {key / 2:.2f}× | {key} | {key / 2:.2f}× |" in report
    assert f"| 💡 notable | 1 | 1 | 100% | 100% (1) | {notable} | {notable:.2f}× | {notable} | {notable:.2f}× |" in report
    # 🎯 has no pick that day: its items count in the plain column only
    assert re.search(r"\| 🎯 focus \| 0 \| 0 \| — \| — \(0\) \| [1-9]\d* \| — \| 0 \| — \|", report)
    assert "| all five, pooled | 3 | 2 | 67% | 67% (1) |" in report
    assert "## fit: 2026-03-01 … 2026-03-14 (0 days)" in text
    assert "cite different items" not in text


def test_template_bodies_are_deterministic_and_in_vllms_templates(tmp_path):
    import gzip

    from vllm_digest.testing.template_bodies import PR_PLACEHOLDER, write

    first, second = write(tmp_path / "a"), write(tmp_path / "b")
    assert first == second, "the same seed gives the same Purpose sentences"
    rows = {}
    with gzip.open(tmp_path / "a" / "vllm-project__vllm" / "issues.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            rows[row["number"]] = row
    prs = [r for r in rows.values() if "pull_request" in r]
    assert len(first) == len(prs) > 2000
    unfilled = [n for n, p in first.items() if p is None]
    assert 0.04 < len(unfilled) / len(first) < 0.15, "about one PR in twelve leaves the placeholder"
    assert PR_PLACEHOLDER in rows[unfilled[0]]["body"]
    filled = next(n for n, p in first.items() if p)
    body = rows[filled]["body"]
    assert f"## Purpose\n\n{first[filled]}" in body and "Essential Elements" in body
    assert f"(change note {filled})." in first[filled], "each Purpose is distinctive"
    bugs = [r for r in rows.values() if "pull_request" not in r and r["title"].lower().startswith("[bug]")]
    assert bugs and all("ROCM used to build PyTorch   : N/A" in r["body"] and "### 🐛 Describe the bug" in r["body"]
                        for r in bugs)
    # the rest of the sample is copied as it is
    assert (tmp_path / "a" / "vllm-project__vllm" / "expected.json").read_bytes() == \
        (SHIPPED_SAMPLE / "expected.json").read_bytes()


def test_substance_counts_the_purpose_under_cited_prs_and_the_placeholder(tmp_path):
    from tools.editorial.editorial import substance
    purposes = {1: "This change addresses x by reworking how `num_cached_tokens` is handled.", 2: "Two does y.",
                3: None}
    (tmp_path / "2026-03-02.zh.md").write_text(
        "## 🛠️ 关键变更\n\n- #1 title\n  This change addresses x by reworking how `num_cached_tokens` is handled\n"
        "- #2 title\n  Two does z.\n- #3 title\n\n## 🎯 焦点\n\n- #2 again\n  Two does y.\n", encoding="utf-8")
    (tmp_path / "2026-03-03.zh.md").write_text(
        "## 🛠️ 关键变更\n\n- #1 title\n  This change addresses x by reworking how numcachedtokens is handled.\n"
        "PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS\n", encoding="utf-8")
    got = substance(purposes, tmp_path, ["2026-03-02", "2026-03-03"], "zh")
    # day 1: #1 shown (code marks dropped, underscores kept), #2 not in key changes, #2 shown in focus;
    # #3 has no Purpose. Day 2: #1 lost its underscores: not shown.
    assert (got.cited_prs, got.shown, got.placeholder_days) == (4, 2, ["2026-03-03"])


# --- stories: the original's numbered entries (issue 29) ---------------------------------------------

def _none(**given):
    return {k: set() for k in SECTIONS} | given


def test_story_told_when_the_section_cites_any_of_its_items():
    from tools.editorial.editorial_stories import StoryCount, aggregate_stories, score_stories

    entries = {"key_changes": (frozenset({1, 2, 3}), frozenset({4})), "topics": (frozenset({5, 6}),),
               "focus": (frozenset({7}),), "notable": (), "discussions": None}
    cited = _none(key_changes={1, 9}, notable={4}, topics={8})
    got = score_stories(entries, cited)
    # an entry of 3 items of which we cite 1 is told; #4 is cited in 💡, not in 🛠️: told anywhere only
    assert got["key_changes"] == StoryCount(given=True, entries=2, told=1, told_anywhere=2)
    assert (got["topics"].told, got["topics"].told_anywhere) == (0, 0)
    assert got["discussions"].given is False and got["notable"].given is True and got["notable"].entries == 0
    assert (got["all"].entries, got["all"].told, got["all"].told_anywhere) == (4, 1, 2)
    # the same day as items: 🛠️ finds 1 of its 4 picks, yet tells 1 of its 2 stories here and both anywhere
    items = score_day(_none(key_changes={1, 2, 3, 4}), DayReport(cited, {1, 2, 3, 4, 5, 6, 7, 8, 9}))
    assert (items["key_changes"].hits, items["key_changes"].picks) == (1, 4)
    figures = aggregate_stories([got["key_changes"], got["key_changes"]])
    assert (figures.recall, figures.recall_anywhere, figures.status) == (0.5, 1.0, None)
    # a section the file gives no entries for, and one without stories on these days, say so
    assert "not given" in aggregate_stories([got["discussions"]]).status
    assert "no entries" in aggregate_stories([got["notable"]]).status


def test_entries_are_read_and_a_malformed_one_is_named(tmp_path):
    from tools.editorial.editorial import load_entries
    path = tmp_path / "selections.json"
    path.write_text(json.dumps([{"day": "2026-03-01", "sections": {
        "topics": {"cited_in_day_lists": [5, 6], "entries": [[5], [6, 5]]},
        "notable": {"cited_in_day_lists": [], "entries": []},
        "key_changes": {"cited_in_day_lists": [7]}}}]))
    got = load_entries(path)["2026-03-01"]
    assert got["topics"] == (frozenset({5}), frozenset({5, 6})) and got["notable"] == ()
    assert got["key_changes"] is None and got["focus"] is None  # not given, not "no stories"
    path.write_text(json.dumps([{"day": "2026-03-02", "sections": {
        "topics": {"cited_in_day_lists": [5], "entries": [[5], ["#6"]]}}}]))
    with pytest.raises(EvalError, match=re.escape("entry 0 (2026-03-02): sections.topics.entries[1] ['#6']")):
        load_entries(path)
    path.write_text(json.dumps([{"day": "2026-03-02", "sections": {
        "topics": {"cited_in_day_lists": [5], "entries": [[]]}}}]))
    with pytest.raises(EvalError, match=re.escape("sections.topics.entries[0] []")):
        load_entries(path)


def _window(day: str, start: str, end: str, **lists) -> dict:
    return {"day": day, "window_start": start, "window_end": end, "lists": lists}


def test_editor_agreement_only_where_windows_overlap(tmp_path):
    from tools.editorial.editorial import agreement_lines
    from tools.editorial.editorial_stories import editor_agreement, load_windows

    path = tmp_path / "expected.json"
    path.write_text(json.dumps([
        # a and b overlap by 11 hours: #1, #2, #3 are new PRs in both; #4 is new in a and merged in b (not shared)
        _window("a", "2026-05-01T00:00:00+08:00", "2026-05-02T00:00:00+08:00", new_prs=[1, 2, 3, 4, 10]),
        _window("b", "2026-05-01T13:00:00+08:00", "2026-05-02T13:00:00+08:00", new_prs=[1, 2, 3], merged_prs=[4]),
        # c touches b's end without overlapping it
        _window("c", "2026-05-02T13:00:00+08:00", "2026-05-03T13:00:00+08:00", new_prs=[1, 2, 3]),
    ]))
    windows = load_windows(path)
    picks = {"a": _none(topics={1, 2, 4}), "b": _none(topics={1, 3, 4}, key_changes={2}), "c": _none(topics={1, 2, 3})}
    entries = {"a": {"topics": (frozenset({1}), frozenset({2, 10}), frozenset({4}))},
               "b": {"topics": (frozenset({1, 3}), frozenset({4}))}, "c": {"topics": (frozenset({1, 2, 3}),)}}
    got = editor_agreement(windows, picks, entries)
    assert (got.pairs, got.longest.total_seconds(), got.shared) == (1, 11 * 3600, 3)
    topics = got.sections["topics"]
    # shared and featured in 🔥: a {1, 2}, b {1, 3}: #1 again both ways, so 2 of 4
    assert (topics.featured, topics.again, topics.rate) == (4, 2, 0.5)
    # stories with a shared item: a's {1} (again), {2, 10} (b's 🔥 cites neither); b's {1, 3} (a cites #1)
    assert (topics.stories, topics.stories_again) == (3, 2)
    assert got.sections["key_changes"].featured == 1 and got.sections["key_changes"].again == 0
    text = "\n".join(agreement_lines(got))
    assert "1 pairs of overlapping windows, the longest overlap 660 min" in text
    assert "| 🔥 topics | 4 | 2 | 50% | 3 | 2 | 67% |" in text and "too few to read" in text
    # windows that never overlap, and no window file at all, are said as such rather than measured
    apart = editor_agreement({k: windows[k] for k in ("a", "c")}, picks, entries)
    assert "no two of the original's windows overlap" in "\n".join(agreement_lines(apart))
    assert load_windows(tmp_path / "missing.json") is None
    path.write_text(json.dumps([_window("a", "2026-05-01T00:00:00", "2026-05-02T00:00:00", new_prs=[])]))
    with pytest.raises(ValueError, match=r"entry 0 \(a\): window '2026-05-01T00:00:00'"):
        load_windows(path)


def test_eval_command_prints_story_recall_beside_item_recall(materialized_day, tmp_path):
    base, _ = materialized_day
    sections = {
        # #37830 is one of our key changes, #37825 and #37843 are not (they are 🔥 items): one story of three
        # items told here; #37823 is cited in 💡 and 🔥, not in 🛠️: told anywhere only
        "key_changes": {"cited_in_day_lists": [37830, 37825, 37843, 37823],
                        "entries": [[37830, 37825, 37843], [37823]]},
        # #37804 (one of our notable issues) is a pick that no entry holds: said in the header
        "notable": {"cited_in_day_lists": [37823, 37804], "entries": [[37823]]},
        "discussions": {"cited_in_day_lists": [], "entries": []},
        # #37643 is in the appendix only: told nowhere
        "focus": {"cited_in_day_lists": [37643], "entries": [[37643]]},
        "topics": {"cited_in_day_lists": [37825]},  # no entries given
    }
    selections = tmp_path / "picks.json"
    selections.write_text(json.dumps([{"day": "2026-03-22", "sections": sections}]))
    out = tmp_path / "editorial.md"
    assert main(["--home", str(base / "home"), "--reuse", "--selections", str(selections), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    report = text.split("## report:")[1].split("## all:")[0]
    assert "| 🛠️ key changes | 4 | 1 | 25% |" in report  # item recall stays as it was
    stories = report.split("Stories: the original's entries told by our report.")[1]
    assert "| 🛠️ key changes | 2 | 1 | 50% | 2 | 100% | 25% |" in stories
    assert "| 💡 notable | 1 | 1 | 100% | 1 | 100% | 100% |" in stories
    assert "| 🎯 focus | 1 | 0 | 0% | 0 | 0% | 0% |" in stories
    assert "| 💬 discussions | no entries: the original tells no story in this section on these days |" in stories
    assert "| 🔥 topics | not given: the selections file has no entries for this section |" in stories
    assert "| all five, pooled | 4 | 2 | 50% | 3 | 75% |" in stories
    assert "| 2026-03-22 | 0/1 (0) | 0/0 (0) | not given | 1/2 (2) | 1/1 (1) |" in text
    # the header says what is measured and how; no fit day here, and no window file beside these picks
    assert "A story is **told here** when our same section cites any of its items" in text
    assert "- entries and picks disagree (story and item recall count different items there): " \
           "2026-03-22 💡 notable: #37804 in picks, in no entry\n" in text
    assert "no fit days among the selections' days: no folds" in text
    assert "expected.json is missing): not computed" in text


def test_leave_one_day_out_counts_a_story_told_by_any_chosen_item(materialized_day):
    import duckdb

    from tools.editorial import fit_selection as fs
    from tools.editorial.editorial_stories import loo_stories
    from vllm_digest.core.taxonomy.selection import DEFAULT_WEIGHTS
    base, _ = materialized_day
    warehouse = base / "home" / "warehouse.duckdb"
    day = "2026-03-22"
    limit = json.loads(DEFAULT_WEIGHTS.read_text(encoding="utf-8"))["models"]["key_changes"]["limit"]
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        rows = fs.read_rows(con, "key_changes", {day: _none()}, [day])
    finally:
        con.close()
    # one day: its fold fits on no other day, so the candidates keep the section's base order
    order = [r[1] for r in fs.ranked(rows, *fs.fit([], 1.0), "key_changes")[day]]
    chosen, left = order[:limit], order[limit:]
    assert len(left) >= 3, "the day has candidates beyond the limit"
    picks = {day: _none(key_changes={chosen[0], *left[:3]})}
    entries = {day: {"key_changes": (frozenset({chosen[0], left[0], left[1]}), frozenset({left[2]}))}}
    got = loo_stories(warehouse, picks, entries, [day], DEFAULT_WEIGHTS)["key_changes"]
    # items: 1 of 4 picks among the first `limit`; stories: the entry holding it is told, the other is not
    assert (got.folds, got.limit, got.picks, got.hits, got.cited) == (1, limit, 4, 1, limit)
    assert (got.entries, got.told, got.story_recall) == (2, 1, 0.5)
