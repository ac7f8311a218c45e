"""Untrusted titles, bodies and comments stay inert in every output we write.

A synthetic sample day holds one issue whose title, body and comment carry
HTML, a javascript: link, an image, Jinja markup, a 10 kB line, NUL and ANSI
escapes; the real Dagster graph renders it: Markdown, JSON, the HTML pages,
the site's index and its Atom feed. A second day holds bidi and invisible
controls in titles, logins, labels, bodies and comments.
"""

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

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
    # the author answers: two people make a discussion, so 💬 lists the item and prints both excerpts
    reply = {**comment, "id": 2, "user": {"login": "m-amd", "type": "User"}, "created_at": "2026-03-22T07:00:00Z",
             "updated_at": "2026-03-22T07:00:00Z", "body": "It still hangs after the update, on every run."}
    (folder / "issues.jsonl").write_text(json.dumps(issue) + "\n")
    (folder / "events.jsonl").write_text("")
    (folder / "comments.jsonl").write_text(json.dumps(comment) + "\n" + json.dumps(reply) + "\n")
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


# --- bidi and invisible controls -------------------------------------------------------------------

# embeddings and overrides, isolates, zero-width characters and marks, the byte-order mark
BIDI_AND_INVISIBLE = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), *range(0x200B, 0x2010), 0xFEFF)]
RLO = "\u202e"


def _spoof(text: str) -> str:
    """``text`` with every control of the list between its characters, cycling."""
    return "".join(ch + BIDI_AND_INVISIBLE[i % len(BIDI_AND_INVISIBLE)] for i, ch in enumerate(text))


def write_bidi_sample(root):
    """Two ROCm issues of the day: an unterminated right-to-left override in one title (it would mirror
    "— labels — by author (time)" after it), every control in the other, in logins, labels, bodies
    and a comment too."""
    folder = root / "vllm-project__vllm"
    folder.mkdir(parents=True)
    base = {"state": "open", "closed_at": None, "comments": 2,
            "created_at": "2026-03-22T05:00:00Z", "updated_at": "2026-03-22T05:30:00Z"}
    issues = [
        {**base, "number": 910, "title": f"ROCm engine hangs {RLO}detaerc :lebal yb",
         "user": {"login": f"m4llory{RLO}", "type": "User"},
         "labels": [{"name": "rocm"}, {"name": f"flaky-ci{RLO}"}],
         "body": f"The engine hangs on warmup every time {RLO}on gfx942 hardware."},
        {**base, "number": 911, "title": _spoof("ROCm kernel crash on MI300X"),
         "user": {"login": _spoof("trudy7"), "type": "User"},
         "labels": [{"name": "rocm"}, {"name": _spoof("triage")}],
         "body": _spoof("The kernel crashes on MI300X during the first warmup run.")},
    ]
    comments = [
        {"id": n, "issue_url": f"https://api.github.com/repos/vllm-project/vllm/issues/{number}",
         "user": {"login": _spoof("eve9"), "type": "User"}, "created_at": "2026-03-22T06:00:00Z",
         "updated_at": "2026-03-22T06:00:00Z", "body": _spoof("It also hangs here on the second attempt.")}
        for n, number in ((1, 910), (2, 911))
    ] + [
        # each author answers: two people make a discussion, so 💬 lists both items with their excerpts
        {"id": 10 + n, "issue_url": f"https://api.github.com/repos/vllm-project/vllm/issues/{i['number']}",
         "user": i["user"], "created_at": "2026-03-22T07:00:00Z", "updated_at": "2026-03-22T07:00:00Z",
         "body": _spoof("Thanks, it hangs on the first warmup only.")}
        for n, i in enumerate(issues)
    ]
    (folder / "issues.jsonl").write_text("".join(json.dumps(i) + "\n" for i in issues))
    (folder / "events.jsonl").write_text("")
    (folder / "comments.jsonl").write_text("".join(json.dumps(c) + "\n" for c in comments))
    (folder / "coverage.json").write_text(json.dumps({"start": "2026-03-20T00:00:00Z", "end": "2026-03-25T00:00:00Z"}))


class _Texts(HTMLParser):
    """Every text node of a page with the elements it sits in."""

    VOID = {"meta", "link", "br", "img", "hr", "input", "source", "wbr"}

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.nodes: list[tuple[str, tuple[str, ...]]] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        self.nodes.append((data, tuple(self.stack)))

    def containing(self, needle: str) -> list[tuple[str, tuple[str, ...]]]:
        return [(d, s) for d, s in self.nodes if needle in d]


# what each untrusted text reads once its controls are gone
SHOWN = {
    "title": ("ROCm engine hangs detaerc :lebal yb", "ROCm kernel crash on MI300X"),
    "login": ("m4llory", "trudy7", "eve9"),
    "label": ("flaky-ci", "triage"),
    "excerpt": ("It also hangs here on the second attempt.",),
}


def _assert_isolated(html: str, where: str, kinds=SHOWN) -> dict[str, int]:
    """Every text node holding an untrusted text sits inside <bdi>; returns how many of each kind."""
    nodes, found = _Texts(html), {}
    for kind, texts in kinds.items():
        found[kind] = 0
        for text in texts:
            for data, stack in nodes.containing(text):
                found[kind] += 1
                assert "bdi" in stack, f"{where}: the {kind} {text!r} sits in {'/'.join(stack)} without <bdi>: {data!r}"
    return found


def test_bidi_and_invisible_controls_reach_no_output(make_settings, tmp_path):
    write_bidi_sample(tmp_path / "sample")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "sample"))
    materialize(settings, "2026-03-22")
    written = sorted(p for root in (settings.reports_dir, settings.site_dir) for p in root.rglob("*") if p.is_file())
    suffixes = {p.name.split(".", 1)[1] for p in written}
    assert {"zh.md", "en.md", "zh.html", "en.html", "json"} <= suffixes and (settings.site_dir / "feed.xml") in written
    for path in written:
        text = path.read_text(encoding="utf-8")
        found = sorted({f"U+{ord(c):04X}" for c in text if c in BIDI_AND_INVISIBLE})
        assert not found, f"{path.name} holds {found}"
        # the JSON may escape them instead: \u202e is as bad once a page decodes it
        assert not re.search(r"\\u(?:202[a-e]|206[6-9]|200[b-f]|feff)", text, re.I), path.name

    for lang in ("zh", "en"):
        text = report_path(settings, "2026-03-22", f"{lang}.md").read_text(encoding="utf-8")
        # the appendix line keeps our words in their order after the title
        line = next(x for x in text.splitlines() if x.startswith("- [#910]("))
        assert " ROCm engine hangs detaerc :lebal yb — rocm,flaky-ci — by m4llory (" in line, line
        html = report_path(settings, "2026-03-22", f"{lang}.html").read_text(encoding="utf-8")
        # titles (appendix and sections), logins, labels and comment excerpts: each in its own <bdi>
        found = _assert_isolated(html, f"{lang}.html")
        assert found["title"] >= 4 and found["login"] >= 3 and found["label"] >= 2 and found["excerpt"] >= 1, found

    feed = (settings.site_dir / "feed.xml").read_text(encoding="utf-8")
    content = ET.fromstring(feed).find("{http://www.w3.org/2005/Atom}entry/{http://www.w3.org/2005/Atom}content").text
    assert _assert_isolated(content, "feed", {"title": SHOWN["title"]})["title"] >= 1
