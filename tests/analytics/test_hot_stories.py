"""🔥 tells the day's stories: items whose titles name one entity (an invented model family here, written three
ways), with the items linked to them (a revert, an issue its fix names), under a headline that counts what they
do; the project's vocabulary (its own name, a word on nearly every earlier day's titles) tells no story. The top
story is the day's headline: the report's header in both languages and formats, <day>.json, the site index and
the feed.

Crafted days through the real graph (dg.materialize), checked on the marts and on the outputs."""

from __future__ import annotations

import datetime as dt
import json
import re

import duckdb

from vllm_digest.core.taxonomy.loader import load_taxonomy
from vllm_digest.testing.pipeline import materialize, report_path, write_sample

DAY = "2026-03-22"  # with the default cutoff 11:39 UTC+8: [2026-03-22T03:39Z, 2026-03-23T03:39Z)
APPENDIX = "\n---\n\n## 📋"
HEADLINE_EN = "Zephyrine-7: 1 PR adds or extends support, 2 fixes, 1 revert, 1 issue"
HEADLINE_ZH = "Zephyrine-7：1 个 PR 新增或扩展支持、2 个修复、1 个回退、1 个 issue"


def _item(number: int, title: str, login: str, day: str = DAY, pr: bool = True, body: str | None = None) -> dict:
    at = f"{day}T05:{number % 60:02d}:00Z"
    item = {"number": number, "title": title, "user": {"login": login, "type": "User"}, "labels": [],
            "state": "open", "closed_at": None, "author_association": "CONTRIBUTOR", "created_at": at,
            "updated_at": at, "body": body, "comments": 0}
    return {**item, "pull_request": {"merged_at": None}} if pr else item


def _story_day(day: str = DAY, base: int = 900) -> list[dict]:
    return [
        # one invented model family, written three ways (case, dash, space): one story key
        _item(base + 1, "[Model] Add Zephyrine-7 support", "ann", day),
        _item(base + 2, "[Bugfix] Fix zephyrine7 tool parser", "ben", day),
        # a revert of the first: its title quotes the reverted one
        _item(base + 3, 'Revert "[Model] Add Zephyrine-7 support"', "cat", day),
        # an issue whose title names nothing, and the PR that fixes it ("Fixes #N" in its body)
        _item(base + 4, "[Bug]: Crash when loading sharded weights", "dan", day, pr=False),
        _item(base + 5, "[Bugfix] Load sharded weights in the Zephyrine 7 loader", "eve", day,
              body=f"Fixes #{base + 4}"),
        # the project's own name in three titles: vocabulary, not a story
        _item(base + 6, "[Misc] Tidy vLLM startup logging", "fay", day),
        _item(base + 7, "[Misc] Shorter vLLM banner", "gus", day),
        _item(base + 8, "[Doc] vLLM install notes for source builds", "hal", day, pr=True),
    ]


def _section(md: str, icon: str) -> str:
    return md.split(f"\n### {icon}", 1)[1].split("\n### ", 1)[0].split(APPENDIX, 1)[0]


def test_three_titles_of_one_family_make_one_story_with_a_headline_everywhere(make_settings, tmp_path):
    root = write_sample(tmp_path / "sample", _story_day(), start="2026-03-20T00:00:00Z")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(root))
    materialize(settings, DAY)
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        stories = con.execute("SELECT story_key, story_name, items, prs, issues, added, fixed, reverted, numbers, "
                              "listed FROM mart_hot_stories").fetchall()
        picks = [n for (n,) in con.execute("SELECT number FROM mart_section_picks WHERE section = 'topics' "
                                           "ORDER BY pick_rank").fetchall()]
    # one story: the family's three spellings, the revert, and the issue its fix links; the project's name is none
    assert len(stories) == 1, stories
    key, name, items, prs, issues, added, fixed, reverted, numbers, listed = stories[0]
    assert (key, name, listed) == ("zephyrine7", "Zephyrine-7", True)
    assert (items, prs, issues, added, fixed, reverted) == (5, 4, 1, 1, 2, 1)
    assert sorted(numbers) == [901, 902, 903, 904, 905]
    # the section's first picks are the story's shown items (the hottest three of five)
    assert set(picks[:3]) <= {901, 902, 903, 904, 905} and len(set(picks[:3])) == 3

    for lang, headline in (("en", HEADLINE_EN), ("zh", HEADLINE_ZH)):
        md = report_path(settings, DAY, f"{lang}.md").read_text(encoding="utf-8")
        # the story's group in 🔥, with its headline (one more item than it shows)
        assert f"**{headline}" in _section(md, "🔥"), lang
        # the day's headline in the header, above the sections
        assert headline in md.split("\n---\n", 1)[0], lang
        html = report_path(settings, DAY, f"{lang}.html").read_text(encoding="utf-8")
        assert re.search(r'<p class="headline"><strong>[^<]+</strong> ' + re.escape(headline) + "</p>", html), lang
        assert f"<h3>{headline}" in html, lang
    doc = json.loads(report_path(settings, DAY, "json").read_text(encoding="utf-8"))
    assert doc["headline"] == {"en": HEADLINE_EN, "zh": HEADLINE_ZH}
    # the site's index row of the day and the feed entry carry it (the site's first language: zh)
    index = (settings.site_dir / "index.html").read_text(encoding="utf-8")
    assert f'<td class="d">{DAY}<div class="headline">{HEADLINE_ZH}</div></td>' in index
    feed = (settings.site_dir / "feed.xml").read_text(encoding="utf-8")
    assert f" — {HEADLINE_ZH}</title>" in feed or f" — {HEADLINE_EN}</title>" in feed


def test_a_word_on_nearly_every_earlier_day_is_vocabulary_not_a_story(make_settings, tmp_path):
    # the 7 days before DAY all built (the history is read only then), and DAY
    history_days = load_taxonomy().picks["story_history_days"]
    first = dt.date.fromisoformat(DAY) - dt.timedelta(days=history_days)
    items = []
    for offset in range(history_days + 1):
        day = (first + dt.timedelta(days=offset)).isoformat()
        base = 1000 + 20 * offset
        # an invented product-like name in three titles every day
        items += [_item(base + k, f"[Core] Tidy the FooFrame buffers, part {k}", f"dev{k}", day) for k in range(3)]
    items += _story_day()
    root = write_sample(tmp_path / "sample", items, start=f"{first - dt.timedelta(days=1)}T00:00:00Z")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(root))
    materialize(settings, first.isoformat(), DAY)
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        keys = {(d.isoformat(), k) for d, k in con.execute("SELECT day, story_key FROM mart_hot_stories").fetchall()}
    # the first day has no history: the name is a story there; by the last day it was on every earlier day
    assert (first.isoformat(), "fooframe") in keys
    assert (DAY, "fooframe") not in keys
    assert (DAY, "zephyrine7") in keys
    en = report_path(settings, DAY, "en.md").read_text(encoding="utf-8")
    assert "FooFrame:" not in _section(en, "🔥") and f"**{HEADLINE_EN}" in _section(en, "🔥")
