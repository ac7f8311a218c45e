"""The analysis sections print what the analytics marts decided, in their order."""

import re

import duckdb

from vllm_digest.core.taxonomy.selection import load_selection_weights
from vllm_digest.testing.pipeline import materialize, report_path


REF = re.compile(r"\[(?:PR|Issue) #(\d+)\]")


def _section(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n### ", 1)[0]


def test_sections_follow_the_marts(make_settings):
    settings = make_settings()
    materialize(settings, "2026-03-15", "2026-03-22")
    text = report_path(settings, "2026-03-22").read_text(encoding="utf-8")

    focus = {int(n) for n in REF.findall(_section(text, "### 🎯"))}
    assert {37800, 37826, 37833, 37838, 37835, 37780, 37723, 37717} <= focus

    # the sample has no comment threads: no discussion can be told from a lone comment, so none is listed
    assert REF.findall(_section(text, "### 💬")) == []

    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        ranked = [n for (n,) in con.execute(
            "SELECT number FROM mart_key_changes WHERE day = DATE '2026-03-22' AND selected ORDER BY key_rank"
        ).fetchall()]
        limit = con.execute("SELECT count(*) FROM mart_key_changes WHERE day = DATE '2026-03-22'").fetchone()[0]
        top_topic = con.execute(
            "SELECT topic_zh FROM mart_topic_daily WHERE day = DATE '2026-03-22' AND topic_rank = 1"
        ).fetchone()[0]
    # the day has more PRs to rank than the fitted section length: an empty mart must not pass
    assert len(ranked) == load_selection_weights().models["key_changes"].limit < limit
    assert [int(n) for n in REF.findall(_section(text, "### 🛠️"))] == ranked
    topics = _section(text, "### 🔥")
    assert f"**{top_topic} " in topics
    # seven earlier days are built, so each topic states its expected count, not "baseline incomplete"
    assert "（预期 " in topics and "基线不完整" not in topics
