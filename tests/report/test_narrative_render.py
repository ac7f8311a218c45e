"""An LLM-written body stays inert: safe Markdown (md_block) and text-only blocks
rendered by the autoescaped HTML macro, with the seed's section shapes kept."""

from pathlib import Path

import pytest

from vllm_digest.core.text.markdown_safe import md_block
from vllm_digest.report import render
from vllm_digest.report.narrative.blocks import narrative_blocks


SEED = Path(__file__).resolve().parents[1] / "golden" / "seed-2026-03-22.zh.md"
HOSTILE = (
    "Intro <script>alert(1)</script> <img src=x onerror=alert(1)> [click](javascript:alert(1)) "
    "![pixel](http://evil.example/p.png) <https://evil.example> https://evil.example www.evil.example"
)


def _seed_section(heading: str) -> str:
    return SEED.read_text(encoding="utf-8").split(heading + "\n", 1)[1].split("\n### ", 1)[0].strip()


def test_seed_shaped_body_passes_unchanged():
    body = _seed_section("### 🛠️ 重点技术变更")
    assert md_block(body) == body


@pytest.mark.parametrize(
    "line, expected",
    [
        ("# 新标题", "\\# 新标题"),
        ("### 🛠️ 重点技术变更", "\\### 🛠️ 重点技术变更"),
        ("---", "\\---"),
        ("===", "\\==="),
        ("> 引用", "\\> 引用"),
        ("```python", "\\```python"),
        ("[x]: https://evil.example", "\\[x]: https\\://evil.example"),
        ("- [x]: https://evil.example", "- \\[x]: https\\://evil.example"),
        ("see [#37798](https://github.com/vllm-project/vllm/pull/37798)", "see #37798"),
        ("![alt](http://evil.example/p.png)", "alt"),
        ("<div>x</div>", "&lt;div>x&lt;/div>"),
    ],
)
def test_md_block_makes_block_openers_and_links_literal(line, expected):
    assert md_block(f"Lead.\n{line}") == f"Lead.\n{expected}"


def test_md_block_keeps_lists_and_drops_extra_blank_lines():
    text = "1.  **A**\n    *   **影响**：`x`\n\n\n\n2.  **B**\r\n\t- c"
    assert md_block(text) == "1.  **A**\n    *   **影响**：`x`\n\n2.  **B**\n    - c"


def test_md_block_output_has_no_live_markup():
    out = md_block(HOSTILE)
    assert "<script" not in out and "<img" not in out and "<https" not in out
    assert "](" not in out and "![" not in out
    assert "https://" not in out and "www.evil" not in out


def _render(blocks) -> str:
    """The macro through the reports' own (autoescaping) environment."""
    env = render.environment(True)
    return env.from_string('{% from "_narrative.html.j2" import narrative_body %}{{ narrative_body(b) }}').render(b=blocks)


def test_blocks_keep_the_seed_structure():
    blocks = narrative_blocks(_seed_section("### 🛠️ 重点技术变更"))
    (changes,) = blocks
    assert changes["type"] == "list" and changes["ordered"] and len(changes["items"]) == 3
    first = changes["items"][0]
    assert first["spans"] == [{"text": "PR #37825: [Core] Add Tail-Optimized LRU (T-LRU) KV cache eviction policy",
                               "strong": True, "code": False}]
    (details,) = first["children"]
    assert not details["ordered"]
    assert [item["spans"][0]["text"] for item in details["items"]] == ["技术解读", "影响"]
    html = _render(blocks)
    assert html.count("<li>") == 9 and html.count("<ol>") == 1 and html.count("<ul>") == 3
    assert "<code>run_flashinfer_deepgemm_swapAB</code>" in html


def test_blocks_render_hostile_text_escaped():
    html = _render(narrative_blocks(f"{HOSTILE}\n\n- **<b>bold</b>** `<i>code</i>`\n\n**小结**：done"))
    assert "<script" not in html and "<img" not in html and "<b>" not in html and "<i>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "href" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<strong>&lt;b&gt;bold&lt;/b&gt;</strong>" in html and "<code>&lt;i&gt;code&lt;/i&gt;</code>" in html
    assert html.rstrip().endswith("<p><strong>小结</strong>：done</p>")
