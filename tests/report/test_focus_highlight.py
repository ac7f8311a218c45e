"""The focus section's closing count of items mentioning the area's highlighted product (taxonomy
`highlight`, any case) reads each focus item's title and body: the body comes with the focus rows
(report_focus.sql), since the report's item rows carry none."""

from __future__ import annotations

from vllm_digest.testing.pipeline import materialize, report_path, write_sample

DAY = "2026-03-22"


def _write_sample(root):
    base = {"labels": [], "comments": 0, "state": "open", "closed_at": None, "author_association": "NONE",
            "created_at": "2026-03-22T05:00:00Z", "updated_at": "2026-03-22T06:00:00Z"}
    items = [
        # the highlight only in the body, in lower case
        {**base, "number": 801, "title": "[ROCm] Faster fp8 GEMM on MI300X", "user": {"login": "ann", "type": "User"},
         "body": "Uses the quark quantizer's scales for the fp8 path on gfx942."},
        # a focus item that does not mention it
        {**base, "number": 802, "title": "[ROCm] Fix the HIP graph capture on MI325X", "user": {"login": "ben", "type": "User"},
         "body": "Capture the graph once per batch size."},
        # the highlight in the body of an item outside the focus area: not counted
        {**base, "number": 803, "title": "[Docs] Update the README", "user": {"login": "cat", "type": "User"},
         "body": "Mentions Quark in passing."},
    ]
    write_sample(root, items, start="2026-03-20T00:00:00Z")


def test_a_focus_items_body_mentioning_the_highlight_is_counted(make_settings, tmp_path):
    _write_sample(tmp_path / "sample")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "sample"))
    materialize(settings, DAY)
    en = report_path(settings, DAY, "en.md").read_text(encoding="utf-8")
    focus = en.split("\n### 🎯", 1)[1].split("\n### ", 1)[0]
    assert "/issues/801)" in focus and "/issues/802)" in focus and "/issues/803)" not in focus
    assert "; Quark is mentioned in 1 of them." in focus, focus
