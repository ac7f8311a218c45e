"""Untrusted titles, bodies and comments stay inert in every output we write.

A synthetic sample day holds one issue whose title, body and comment carry
HTML, a javascript: link, an image, Jinja markup, a 10 kB line, NUL and ANSI
escapes; the real Dagster graph renders it.
"""

import json
import re

from conftest import materialize, report_path

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
