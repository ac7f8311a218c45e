"""Reader language: no word meant for us reaches a reader. Every reader-facing output of sample days (the daily
Markdown and HTML in both languages, the weekly digests, the site's index and feed, the chat payloads and the
e-mail) is read, and none may show one of our table names (the stems of */sql/*.sql: stg_, core_, int_, mart_,
ref_, report_), a column name of our tables (those with an underscore: a plain word like `title` is English),
or a taxonomy key (a topic's, focus area's or theme's id) as text.

The day's untrusted text (titles, labels, logins) and addresses are taken out first: a title may well say
`num_tokens`, and that is the author's word, not ours."""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import duckdb
import pytest

from vllm_digest.core.config.delivery import DeliveryConfig
from vllm_digest.core.sqlmodel.files import schema_files, sql_files
from vllm_digest.core.taxonomy.loader import taxonomy_from_settings
from vllm_digest.delivery.digest import read_digest
from vllm_digest.delivery.email import build_message
from vllm_digest.delivery.webhook import feishu_payload, json_payload, slack_payload
from vllm_digest.testing.pipeline import materialize, materialize_weeks, report_path, settings_at

FIRST, LAST, MONDAY = "2026-03-16", "2026-03-22", "2026-03-16"
LANGS = ("zh", "en")
TABLE_PREFIXES = ("stg_", "core_", "int_", "mart_", "ref_", "report_")


def _table_names() -> set[str]:
    return {name for name in sql_files() if name.startswith(TABLE_PREFIXES)}


def _column_names() -> set[str]:
    """Our tables' columns with an underscore (an identifier, never an English word)."""
    found: set[str] = set()
    for path in schema_files():
        for block in re.findall(r"CREATE TABLE IF NOT EXISTS \w+ \((.*?)\n\);", path.read_text(encoding="utf-8"), re.S):
            found |= {m for m in re.findall(r"^\s+([a-z]\w*_\w+)\s+[A-Z]", block, re.M)}
        found |= set(re.findall(r"ADD COLUMN IF NOT EXISTS ([a-z]\w*_\w+)", path.read_text(encoding="utf-8")))
    return found


def _taxonomy_keys(settings) -> set[str]:
    taxonomy = taxonomy_from_settings(settings)
    keys = {t.id for t in taxonomy.topics}
    for area in taxonomy.focus_areas:
        keys |= {area.id, *(th.id for th in area.themes)}
    return keys


def _visible(page: str) -> str:
    """An HTML page's text a reader sees: its text nodes and its tooltips, without style and script."""
    page = re.sub(r"<(style|script)\b.*?</\1>", " ", page, flags=re.S | re.I)
    tips = " ".join(re.findall(r'(?:title|aria-label|alt)="([^"]*)"', page))
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", page) + " " + tips)


def _strings(payload) -> str:
    """A JSON payload's string values, one a line."""
    if isinstance(payload, dict):
        return "\n".join(_strings(v) for v in payload.values())
    if isinstance(payload, list):
        return "\n".join(_strings(v) for v in payload)
    return payload if isinstance(payload, str) else ""


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, str]:
    settings = settings_at(tmp_path_factory.mktemp("reader") / "home", VLLM_DIGEST_SITE_URL="https://digest.example.org/")
    materialize(settings, FIRST, LAST)
    materialize_weeks(settings, MONDAY)
    repo = settings.repos[0]
    texts: dict[str, str] = {}
    for day in (FIRST, "2026-03-19", LAST):
        for lang in LANGS:
            texts[f"{day}.{lang}.md"] = report_path(settings, day, f"{lang}.md").read_text(encoding="utf-8")
            texts[f"{day}.{lang}.html"] = _visible(report_path(settings, day, f"{lang}.html").read_text(encoding="utf-8"))
        digest = read_digest(settings, repo, day)
        # a payload's keys are its format's (Slack's "type", the JSON hook's "counts"), read by programs: its
        # string values are what a reader sees
        texts[f"{day}.feishu"] = _strings(feishu_payload(digest, LANGS, False, None, 0))
        config = DeliveryConfig(smtp_from="digest@example.org", smtp_to=("reader@example.org",))
        for lang in LANGS:
            texts[f"{day}.{lang}.slack"] = _strings(slack_payload(digest, lang, False))
            texts[f"{day}.{lang}.json"] = _strings(json_payload(digest, lang, False, 0))
            texts[f"{day}.{lang}.subject"] = str(build_message(config, digest, lang, False)["Subject"])
    weekly = report_path(settings, "x", "json").parent / "weekly"
    for lang in LANGS:
        texts[f"weekly.{lang}.md"] = (weekly / f"{MONDAY}.{lang}.md").read_text(encoding="utf-8")
        texts[f"weekly.{lang}.html"] = _visible((weekly / f"{MONDAY}.{lang}.html").read_text(encoding="utf-8"))
    texts["site/index.html"] = _visible((settings.site_dir / "index.html").read_text(encoding="utf-8"))
    texts["site/feed.xml"] = _visible((settings.site_dir / "feed.xml").read_text(encoding="utf-8"))
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        untrusted = {v for row in con.execute("SELECT title, author_login FROM core_items").fetchall()
                     for v in row if v}
        untrusted |= {label for (labels,) in con.execute("SELECT labels FROM core_items").fetchall()
                      for label in labels or []}
    # longest first, so a title is taken out whole before a shorter text inside it
    cleaned = {}
    for name, text in texts.items():
        text = re.sub(r"https?://\S+|\S+\.(?:md|html|json|xml)\b", " ", text)
        for value in sorted(untrusted, key=len, reverse=True):
            text = text.replace(value, " ").replace(html_lib.escape(value, quote=False), " ")
        cleaned[name] = text
    return {"texts": cleaned, "settings": settings}


def _hits(texts: dict[str, str], words: set[str]) -> list[str]:
    found = []
    for name, text in texts.items():
        for word in sorted(words):
            for m in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text):
                found.append(f"{name}: {word!r} in …{text[max(0, m.start() - 40):m.end() + 40]!r}…")
    return found


def test_every_output_was_read(outputs):
    texts = outputs["texts"]
    assert len(texts) == 3 * (2 * 2 + 1 + 3 * 2) + 2 * 2 + 2
    assert all(t.strip() for t in texts.values())


def test_no_table_name_in_any_reader_facing_output(outputs):
    assert not _hits(outputs["texts"], _table_names())


def test_no_column_name_in_any_reader_facing_output(outputs):
    assert not _hits(outputs["texts"], _column_names() - _table_names())


def test_no_taxonomy_key_in_any_reader_facing_output(outputs):
    assert not _hits(outputs["texts"], _taxonomy_keys(outputs["settings"]))


def test_the_checks_see_what_they_look_for():
    """The scan itself finds a key, a column and a table where they stand as words (and not inside a word)."""
    text = {"x": "ranked by mart_key_changes · engine_core, hw_amd · comments_total 3 · hw_amdx"}
    assert len(_hits(text, {"mart_key_changes", "engine_core", "hw_amd", "comments_total"})) == 4
    assert sql_files() and "mart_key_changes" in _table_names() and "comments_total" in _column_names()
