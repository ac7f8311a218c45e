"""The HTML report: the same context as the Markdown, self-contained, linked to
GitHub only through our own item URLs, with non-empty charts; and the report
and site materializations carry the paths and counts as metadata."""

import json
import re

import dagster as dg
import pytest

from vllm_digest.testing.pipeline import materialize, report_path, settings_at
from tests.html_helpers import ITEM_LINK, Page, assert_links_sound

RANGE = ("2026-03-20", "2026-03-22")
EMPTY_DAY = "2026-06-01"  # after the sample's coverage: every list and mart is empty
REPORT_KEY = dg.AssetKey(["vllm_project", "vllm", "daily_report"])


def _metadata(result, key):
    events = [e for e in result.get_asset_materialization_events() if e.asset_key == key]
    return [e.materialization for e in events]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    # END_DATE makes the empty day a partition: the sample's partitions would end on its last day
    settings = settings_at(tmp_path_factory.mktemp("home"), VLLM_DIGEST_END_DATE=EMPTY_DAY)
    ranged = materialize(settings, *RANGE)
    single = materialize(settings, EMPTY_DAY)
    return settings, ranged, single


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_html_links_the_items_the_markdown_links(built, lang):
    settings, _, _ = built
    md = report_path(settings, "2026-03-22", f"{lang}.md").read_text(encoding="utf-8")
    page = assert_links_sound(report_path(settings, "2026-03-22", f"{lang}.html"))
    item_links = page.hrefs("item")
    assert all(ITEM_LINK.match(h) for h in item_links)
    # one context feeds both formats: the same GitHub pages, every appendix item among them
    assert set(item_links) == set(re.findall(r"\]\((https://github\.com/[^)]+)\)", md))
    summary = json.loads(report_path(settings, "2026-03-22", "json").read_text(encoding="utf-8"))
    listed = {n for numbers in summary["lists"].values() for n in numbers}
    assert len(listed) == 95 and listed <= {int(h.rsplit("/", 1)[1]) for h in item_links}
    assert "https://github.com/vllm-project/vllm/issues/37839" in item_links
    assert "https://github.com/vllm-project/vllm/pull/36131" in item_links


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_html_is_self_contained_and_fits_a_phone(built, lang):
    settings, _, _ = built
    text = report_path(settings, "2026-03-22", f"{lang}.html").read_text(encoding="utf-8")
    page = Page(text)
    assert page.count("script") == 0 and page.count("img") == 0 and page.count("iframe") == 0
    assert not [a for t, a in page.tags if t == "link"], "no stylesheet or other linked resource"
    assert "url(" not in text and "@import" not in text
    assert not [v for v in page.attribute_values() if v.startswith(("http://", "//"))]
    assert ("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}) in page.tags
    assert "max-width:840px" in text
    headings = {"zh": "每日开发状态摘要", "en": "Daily summary"}
    assert f"📊 {headings[lang]}" in text


def test_charts_hold_the_trailing_days(built):
    settings, _, _ = built
    text = report_path(settings, "2026-03-22", "en.html").read_text(encoding="utf-8")
    counts = text.split('id="chart-counts"', 1)[1].split("</figure>", 1)[0]
    # five strips, three days of bars each (the warehouse holds 03-20 ... 03-22), tooltips by day
    assert Page(counts).count("svg") == 5
    assert counts.count("<title>2026-03-22: ") == 5 and counts.count("<title>2026-03-20: ") == 5
    assert "<title>2026-03-22: 48</title>" in counts  # new PRs of the day
    topics = text.split('id="chart-topics"', 1)[1].split("</figure>", 1)[0]
    assert Page(topics).count("polyline") == 5
    assert all(len(p.split()) == 3 for p in re.findall(r'<polyline points="([^"]+)"', topics))
    # the hotness chart shows the parts of the listed discussions' scores: the sample has no comment threads,
    # so 💬 lists none and the chart says so (tests/analytics/test_discussion_cut.py draws one on a day with threads)
    hotness = text.split('id="chart-hotness"', 1)[1].split("</figure>", 1)[0]
    assert Page(hotness).hrefs("item") == [] and "No hotness data for this window." in hotness


def test_empty_day_charts_say_no_data(built):
    settings, _, _ = built
    text = report_path(settings, EMPTY_DAY, "en.html").read_text(encoding="utf-8")
    assert "No topic data for this window." in text
    assert "No hotness data for this window." in text
    # the day itself has counts (all zero), so the counts chart is drawn
    assert "No daily counts yet." not in text and f"<title>{EMPTY_DAY}: 0</title>" in text
    zh = report_path(settings, EMPTY_DAY, "zh.html").read_text(encoding="utf-8")
    assert "本周期没有话题数据。" in zh and "⚠️ 数据不完整" in zh


def table_rows(value) -> dict[str, dict]:
    """A days (or weeks) table of the metadata, first column -> the row."""
    first = value.schema.columns[0].name
    return {r.data[first]: {k: v for k, v in r.data.items() if k != first} for r in value.records}


def test_report_metadata_has_paths_counts_and_single_day_preview(built):
    settings, ranged, single = built
    days = _metadata(ranged, REPORT_KEY)
    assert [m.partition for m in days] == ["2026-03-20", "2026-03-21", "2026-03-22"]
    # Dagster copies a range run's metadata onto every day: what is one day's says which day it is
    meta = days[0].metadata
    assert all(d.metadata == meta for d in days)
    by_day = table_rows(meta["counts_by_day"].value)
    assert sorted(by_day) == ["2026-03-20", "2026-03-21", "2026-03-22"]
    assert by_day["2026-03-22"]["new_prs"] == 48
    assert meta["reports_dir"].value == str(report_path(settings, "2026-03-22", "json").parent)
    assert not {"new_prs", "path_zh_html", "focus_items"} & set(meta)
    for day in by_day:
        on_disk = json.loads(report_path(settings, day, "json").read_text(encoding="utf-8"))["counts"]
        assert {k: v for k, v in by_day[day].items() if k != "complete"} == on_disk
        assert by_day[day]["complete"] is True
    # a preview of the LAST day of the range in every language, and its HTML pages
    assert meta["preview_day"].value == "2026-03-22"
    for lang in settings.languages:
        assert meta[f"preview_{lang}"].value == report_path(settings, "2026-03-22", f"{lang}.md").read_text(encoding="utf-8")
        assert meta[f"html_{lang}"].value == str(report_path(settings, "2026-03-22", f"{lang}.html"))
    assert meta["preview_zh"].value.startswith("# vLLM 开发动态报告 - 2026-03-22")
    assert meta["preview_en"].value.startswith("# vLLM ") and "2026-03-22" in meta["preview_en"].value.splitlines()[0]
    one = _metadata(single, REPORT_KEY)[0].metadata
    assert one["preview_zh"].value.startswith("# vLLM 开发动态报告 - 2026-06-01")
    assert one["preview_en"].value == report_path(settings, EMPTY_DAY, "en.md").read_text(encoding="utf-8")
    assert one["path_en_html"].value.endswith(f"{EMPTY_DAY}.en.html")
    assert one["path_zh_html"].value == str(report_path(settings, EMPTY_DAY, "zh.html"))
    assert (one["new_prs"].value, one["complete"].value) == (0, False)


def test_site_metadata_counts_every_day_on_disk(built):
    settings, ranged, single = built
    site_ranged = _metadata(ranged, dg.AssetKey(["site"]))[0].metadata
    assert site_ranged["days"].value == 3 and site_ranged["repos"].value == 1
    site = _metadata(single, dg.AssetKey(["site"]))[0].metadata
    # the second run rendered one day, but the site lists all four on disk
    assert site["days"].value == 4 and site["newest_day"].value == EMPTY_DAY
    assert site["path_index"].value == str(settings.site_dir / "index.html")
    assert site["path_feed"].value == str(settings.site_dir / "feed.xml")


def test_a_range_longer_than_a_month_reports_count_totals_not_a_dict_per_day(tmp_path):
    from types import SimpleNamespace

    from vllm_digest.core.calendar import PER_DAY_METADATA_MAX_DAYS
    from vllm_digest.report.assets import report_metadata

    settings = settings_at(tmp_path)
    days = [f"2026-01-{i:02d}" for i in range(1, PER_DAY_METADATA_MAX_DAYS + 1)] + ["2026-02-01"]
    # the fields report_metadata reads of each day's DayReport
    reports = [
        SimpleNamespace(day=d, counts={"new_issues": i, "merged_prs": 2},
                        fetch=SimpleNamespace(complete=d != "2026-01-05"))
        for i, d in enumerate(days)
    ]
    meta = report_metadata(settings, settings.repos[0], reports, written={})
    # the table holds the last month's days, the totals the whole range
    assert sorted(table_rows(meta["counts_by_day"].value)) == days[-PER_DAY_METADATA_MAX_DAYS:]
    assert meta["counts_total"].value == {"new_issues": sum(range(len(days))), "merged_prs": 2 * len(days)}
    assert (meta["complete"], meta["incomplete_days"]) == (False, "2026-01-05")
