"""Untrusted titles, bodies and comments stay inert in every output we write.

A synthetic sample day holds one issue whose title, body and comment carry
HTML, a javascript: link, an image, Jinja markup, a 10 kB line, NUL and ANSI
escapes; the real Dagster graph renders it: Markdown, JSON, the HTML pages,
the site's index and its Atom feed.
"""

import json
import re
import xml.etree.ElementTree as ET

from conftest import materialize, report_path
from html_helpers import ITEM_LINK, Page, assert_links_sound

CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

HOSTILE = (
    "<script>alert(1)</script> [x](javascript:alert(1)) ![i](http://evil/x.png) "
    "{{ 7*7 }} {% raw %} \x00 \x1b[31mred\x1b[0m # not a heading\n- not an item"
)
LONG = "A" * 10_000


def _write_sample(root):
    folder = root / "vllm-project__vllm"
    folder.mkdir(parents=True)
    issue = {
        "number": 900, "title": HOSTILE, "user": {"login": "m-amd", "type": "User"},
        "labels": [{"name": "rocm"}, {"name": "bug"}], "state": "open",
        "created_at": "2026-03-22T05:00:00Z", "updated_at": "2026-03-22T05:00:00Z",
        "closed_at": None, "comments": 3,
        "body": f"{HOSTILE}\nThis body line is long enough to be the informative gist sentence. {LONG}",
    }
    comment = {
        "id": 1, "issue_url": "https://api.github.com/repos/vllm-project/vllm/issues/900",
        "user": {"login": "evil<b>", "type": "User"}, "created_at": "2026-03-22T06:00:00Z",
        "updated_at": "2026-03-22T06:00:00Z", "body": HOSTILE + " the comment says quite a lot here",
    }
    (folder / "issues.jsonl").write_text(json.dumps(issue) + "\n")
    (folder / "events.jsonl").write_text("")
    (folder / "comments.jsonl").write_text(json.dumps(comment) + "\n")
    (folder / "coverage.json").write_text(json.dumps({"start": "2026-03-20T00:00:00Z", "end": "2026-03-25T00:00:00Z"}))


def _assert_inert_markdown(text: str):
    assert "<script" not in text and "<b>" not in text
    assert "](javascript:" not in text and "javascript:" not in text
    assert "![" not in text
    assert "49" not in text, "template expression was evaluated"
    assert "\x00" not in text and "\x1b" not in text
    assert "A" * 1000 not in text, "a 10 kB line reached the report"
    for line in text.splitlines():
        # the only links are ours, to GitHub
        for target in re.findall(r"(?<!\\)\](?:\()([^)]*)\)", line):
            assert re.fullmatch(r"https://github\.com/vllm-project/vllm/(issues|pull)/\d+", target), line
        # no untrusted text starts a line: every line is ours up to its first untrusted byte
        assert not line.startswith(("# not", "- not", "{{", "{%")), line


def _assert_inert_html(text: str):
    page = Page(text)
    assert page.count("script") == 0 and page.count("img") == 0 and page.count("b") == 0
    assert "<script" not in text and "<b>" not in text
    assert not [v for v in page.attribute_values() if re.match(r"\s*(javascript|data|vbscript):", v, re.I)]
    for href in page.hrefs():
        # only our GitHub item links, relative links to our own files, and anchors
        assert ITEM_LINK.match(href) or not re.match(r"[a-z][a-z0-9+.-]*:|//", href, re.I), href
    assert not CONTROL.search(text), "a raw control character reached the page"
    assert "A" * 1000 not in text, "a 10 kB line reached the page"


def test_hostile_text_is_inert(make_settings, tmp_path):
    _write_sample(tmp_path / "sample")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "sample"))
    materialize(settings, "2026-03-22")
    for lang in ("zh", "en"):
        text = report_path(settings, "2026-03-22", f"{lang}.md").read_text(encoding="utf-8")
        _assert_inert_markdown(text)
        # the item is listed once in the appendix, on one line, and reaches three sections
        assert sum(1 for line in text.splitlines() if "issues/900)" in line) >= 3
        assert "{{ 7*7 }}" in text, "the literal text was dropped instead of shown"
    summary = json.loads(report_path(settings, "2026-03-22", "json").read_text(encoding="utf-8"))
    assert summary["lists"]["new_issues"] == [900]
    raw = report_path(settings, "2026-03-22", "json").read_text(encoding="utf-8")
    assert "<script" not in raw and "\\u0000" not in raw

    for lang in ("zh", "en"):
        path = report_path(settings, "2026-03-22", f"{lang}.html")
        text = path.read_text(encoding="utf-8")
        _assert_inert_html(text)
        assert_links_sound(path)
        # printed as text, escaped, in the appendix, the sections and the hotness chart
        assert text.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3
        assert "{{ 7*7 }}" in text and "{% raw %}" in text, "template syntax must print literally"
        assert "evil&lt;b&gt;" in text
        assert Page(text).hrefs("item").count("https://github.com/vllm-project/vllm/issues/900") >= 3

    index = settings.site_dir / "index.html"
    _assert_inert_html(index.read_text(encoding="utf-8"))
    assert_links_sound(index)
    feed = (settings.site_dir / "feed.xml").read_text(encoding="utf-8")
    assert not CONTROL.search(feed)
    root = ET.fromstring(feed)  # well-formed XML despite NUL and ANSI in the input
    content = root.find("{http://www.w3.org/2005/Atom}entry/{http://www.w3.org/2005/Atom}content").text
    _assert_inert_html(content)
    assert "https://github.com/vllm-project/vllm/issues/900" in Page(content).hrefs()
    assert "&lt;script&gt;" in content and "{{ 7*7 }}" in content
