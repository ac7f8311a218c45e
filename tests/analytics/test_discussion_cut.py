"""💬 lists only items people discussed in the window (at least 2 comments from at least 2 people: no bots,
no deleted accounts), and junk (empty titles, bot housekeeping such as dependency bumps or action pinning,
fork syncs, PRs closed at once) appears in no analysis section, whatever activity it drew.

A crafted day with comment threads: the cut is checked on the report's own text and on the mart that makes
it (mart_item_hotness.discussed, read through mart_section_picks)."""

from __future__ import annotations

import re

import duckdb

from vllm_digest.core.taxonomy.loader import DEFAULT_TAXONOMY
from vllm_digest.testing.pipeline import materialize, report_path, write_sample

DAY = "2026-03-22"  # with the default cutoff 11:39 UTC+8: [2026-03-22T03:39Z, 2026-03-23T03:39Z)
API = "https://api.github.com/repos/vllm-project/vllm"
REF = re.compile(r"(?:\[|\(with |, )(?:PR|Issue) #(\d+)")
APPENDIX = "\n---\n\n## 📋"


def _user(login: str, kind: str = "User") -> dict:
    return {"login": login, "type": kind}


def _comment(i: int, number: int, user: dict | None, hour: int, body: str) -> dict:
    at = f"2026-03-22T{hour:02d}:00:00Z"
    return {"id": i, "issue_url": f"{API}/issues/{number}", "user": user, "author_association": "NONE",
            "created_at": at, "updated_at": at, "body": body}


def _write(root):
    base = {"labels": [], "state": "open", "closed_at": None, "author_association": "CONTRIBUTOR",
            "created_at": "2026-03-22T05:00:00Z", "updated_at": "2026-03-22T12:00:00Z", "body": "Details below."}
    items = [
        {**base, "number": 701, "title": "[Bug] Scheduler stalls under long prompts", "comments": 0,
         "user": _user("ann")},
        {**base, "number": 702, "title": "[Bug] Tokenizer drops the last special token", "comments": 1,
         "user": _user("ben")},
        {**base, "number": 703, "title": "[Bug] Sampler returns NaN with top_p below 0.1", "comments": 2,
         "user": _user("cat")},
        {**base, "number": 704, "title": "[Bug] Prefix cache misses after a preemption", "comments": 2,
         "user": _user("dan")},
        {**base, "number": 705, "title": "[Bug] Speculative decoding slows down at batch 64", "comments": 2,
         "user": _user("eve")},
        {**base, "number": 706, "title": "[Bug] Structured output ignores the schema's enum", "comments": 2,
         "user": _user("fay")},
        # junk, each with a lively thread and a focus-area tag, so that only the junk rule keeps it out
        {**base, "number": 710, "title": "[ROCm] fix: pin 1 unpinned action(s)", "comments": 3,
         "user": _user("gus"), "pull_request": {"merged_at": None}},
        {**base, "number": 711, "title": "[ROCm] Bump the aiter kernels from 0.1.5 to 0.1.6", "comments": 3,
         "user": _user("dependabot[bot]", "Bot"), "pull_request": {"merged_at": None}},
        {**base, "number": 712, "title": "[ROCm][Bug]:", "comments": 3, "user": _user("hal")},
    ]
    comments = [
        _comment(1, 702, _user("zed"), 6, "Same here on the latest main branch."),
        # two comments, one person (the author): a note, not a discussion
        _comment(2, 703, _user("cat"), 6, "Also happens with temperature zero."),
        _comment(3, 703, _user("cat"), 7, "And on both of my GPUs."),
        # two people: a discussion
        _comment(4, 704, _user("zed"), 6, "I can reproduce this after every preemption."),
        _comment(5, 704, _user("dan"), 7, "Thanks, the eviction path looks wrong."),
        # a bot and a person: one person
        _comment(6, 705, _user("mergify[bot]", "Bot"), 6, "This issue has merge conflicts."),
        _comment(7, 705, _user("eve"), 7, "The slowdown starts at batch 64."),
        # a deleted account (GitHub's stand-in, and no user at all) and a person: one person
        _comment(8, 706, _user("ghost"), 6, "Seen this too."),
        _comment(9, 706, None, 6, "Me too."),
        _comment(10, 706, _user("fay"), 7, "The enum is dropped in the grammar."),
    ]
    for number in (710, 711, 712):
        comments += [_comment(100 + number * 3 + k, number, _user(login), 6 + k, "Looks fine to me.")
                     for k, login in enumerate(("zed", "yan", "xia"))]
    write_sample(root, items, comments=comments, start="2026-03-20T00:00:00Z")


def _section(md: str, icon: str) -> str:
    return md.split(f"\n### {icon}", 1)[1].split("\n### ", 1)[0].split(APPENDIX, 1)[0]


def test_only_a_discussion_of_two_people_is_listed_and_junk_is_in_no_analysis_section(make_settings, tmp_path):
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(_write_root(tmp_path)))
    materialize(settings, DAY)
    junk = {710, 711, 712}  # a pinning chore, a bot's bump, an empty title
    for lang in ("en", "zh"):
        md = report_path(settings, DAY, f"{lang}.md").read_text(encoding="utf-8")
        hot = {int(n) for n in REF.findall(_section(md, "💬"))}
        assert hot == {704}, (lang, hot)
        # no analysis section names a junk item (the appendix still lists every item of the day)
        sections = md.split("\n---\n", 1)[1].split(APPENDIX, 1)[0]
        assert not {int(n) for n in REF.findall(sections)} & junk, lang
        assert all(f"#{n}" in md.split(APPENDIX, 1)[1] for n in junk), lang
    en = report_path(settings, DAY, "en.md").read_text(encoding="utf-8")
    assert "(2 comments from 2 people this window · open · first response after 1.0 h)" in _section(en, "💬")
    html = report_path(settings, DAY, "en.html").read_text(encoding="utf-8").split('id="appendix"', 1)[0]
    assert not any(f"/{n}\"" in html for n in junk)
    # the section's chart shows the parts of the listed discussion's score, and of nothing else
    chart = html.split('id="chart-hotness"', 1)[1].split("</figure>", 1)[0]
    assert re.findall(r'href="([^"]+)"', chart) == ["https://github.com/vllm-project/vllm/issues/704"]
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        discussed = {n for (n,) in con.execute("SELECT number FROM mart_item_hotness WHERE discussed").fetchall()}
        picked = [n for (n,) in con.execute("SELECT number FROM mart_section_picks WHERE section = 'discussions' "
                                            "ORDER BY pick_rank").fetchall()]
        flagged = {n for (n,) in con.execute("SELECT number FROM int_item_junk").fetchall()}
    # on the marts: the junk threads are discussions, but junk: the mart's cut and the picks differ by exactly them
    assert discussed == {704, 710, 711, 712}
    assert flagged == junk
    assert picked == [704]


def test_the_section_lists_every_pick_of_the_mart_and_its_cut_is_the_taxonomys(make_settings, tmp_path):
    """The 💬 cut has one home: the taxonomy's [selection] values, with which the marts make it
    (mart_item_hotness.discussed, then mart_section_picks); the report lists every discussion the mart picked,
    in its order, re-cutting nothing, and its wording names the same values. Here a taxonomy that takes one
    comment from one person for a discussion and lists four: five of the crafted items qualify."""
    taxonomy = tmp_path / "taxonomy.toml"
    text = DEFAULT_TAXONOMY.read_text(encoding="utf-8")
    for key, value in (("hot_limit", 4), ("discussion_min_comments", 1), ("discussion_min_people", 1)):
        text, n = re.subn(rf"(?m)^{key} = \d+$", f"{key} = {value}", text)
        assert n == 1, key
    taxonomy.write_text(text, encoding="utf-8")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(_write_root(tmp_path)), VLLM_DIGEST_TAXONOMY=str(taxonomy))
    materialize(settings, DAY)
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        discussed = {n for (n,) in con.execute("SELECT number FROM mart_item_hotness WHERE discussed").fetchall()}
        picked = [n for (n,) in con.execute("SELECT number FROM mart_section_picks WHERE section = 'discussions' "
                                            "ORDER BY pick_rank").fetchall()]
    assert discussed - {710, 711, 712} == {702, 703, 704, 705, 706}
    assert len(picked) == 4
    for lang in ("en", "zh"):
        md = report_path(settings, DAY, f"{lang}.md").read_text(encoding="utf-8")
        assert [int(n) for n in REF.findall(_section(md, "💬"))] == picked, lang
    en = _section(report_path(settings, DAY, "en.md").read_text(encoding="utf-8"), "💬")
    assert "(at least 1 comments from 1 people)" in en
    # the chart shows one bar per listed discussion
    html = report_path(settings, DAY, "en.html").read_text(encoding="utf-8")
    chart = html.split('id="chart-hotness"', 1)[1].split("</figure>", 1)[0]
    assert [int(h.rsplit("/", 1)[1]) for h in re.findall(r'href="([^"]+)"', chart)] == picked


def test_a_day_with_threads_and_no_discussion_says_so_in_one_line(make_settings, tmp_path):
    root = tmp_path / "sample"
    base = {"labels": [], "state": "open", "closed_at": None, "author_association": "CONTRIBUTOR",
            "created_at": "2026-03-22T05:00:00Z", "updated_at": "2026-03-22T12:00:00Z", "body": None}
    write_sample(root, [{**base, "number": 801, "title": "[Bug] Engine hangs on shutdown", "comments": 1,
                         "user": _user("ann")}],
                 comments=[_comment(1, 801, _user("ben"), 6, "Seen it too.")], start="2026-03-20T00:00:00Z")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(root))
    materialize(settings, DAY)
    en = report_path(settings, DAY, "en.md").read_text(encoding="utf-8")
    body = [line for line in _section(en, "💬").splitlines()[1:] if line.strip()]
    assert body == ["No item drew a discussion in this window (at least 2 comments from 2 people)."]


def _write_root(tmp_path):
    root = tmp_path / "sample"
    _write(root)
    return root
