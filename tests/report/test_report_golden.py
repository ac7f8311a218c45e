"""Golden reports of sample day 2026-03-22, zh and en, pinned byte for byte: the
header and appendix (our documented order, newest first) and every section body,
with every section heading present and in order.

After an intended change, regenerate with VLLM_DIGEST_WRITE_GOLDEN=1 and review
the diff before committing it.
"""

import os
from pathlib import Path

import pytest

from vllm_digest.testing.pipeline import materialize, report_path

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
HEADINGS = {
    "zh": ["### 📊 每日开发状态摘要", "### 🎯 AMD/ROCm 生态相关动态", "### 💬 高热度讨论分析",
           "### 🔥 热门话题与趋势分析", "### 🛠️ 重点技术变更", "### 🔁 进展追踪", "### 📈 开发活跃度观察", "### 💡 值得关注的问题"],
    "en": ["### 📊 Daily summary", "### 🎯 AMD/ROCm ecosystem", "### 💬 Hot discussions",
           "### 🔥 Hot topics and trends", "### 🛠️ Key changes", "### 🔁 Follow-ups", "### 📈 Activity", "### 💡 Issues to watch"],
}
FOLLOW_UPS = {"zh": "### 🔁 进展追踪", "en": "### 🔁 Follow-ups"}
APPENDIX = {"zh": "## 📋 附录：详细数据列表", "en": "## 📋 Appendix: the day's lists"}


def _header_and_appendix(text: str, lang: str) -> tuple[str, str]:
    return text.split("\n---\n", 1)[0], text.split(APPENDIX[lang], 1)[1]


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    from vllm_digest.core.config.settings import load_settings
    settings = load_settings({"VLLM_DIGEST_HOME": str(tmp_path_factory.mktemp("home")), "VLLM_DIGEST_CUTOFF": "11:39"})
    materialize(settings, "2026-03-22")
    return {lang: report_path(settings, "2026-03-22", f"{lang}.md").read_text(encoding="utf-8") for lang in ("zh", "en")}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_golden_header_and_appendix(reports, lang):
    ours = reports[lang]
    golden = GOLDEN / f"2026-03-22.{lang}.md"
    if os.environ.get("VLLM_DIGEST_WRITE_GOLDEN") == "1":
        golden.write_text(ours, encoding="utf-8")
        pytest.skip(f"wrote {golden.name}; review its diff before committing")
    expected = golden.read_text(encoding="utf-8")
    assert _header_and_appendix(ours, lang) == _header_and_appendix(expected, lang)
    assert ours == expected, "a section body changed; regenerate and review the golden diff"
    lines = ours.splitlines()
    positions = [lines.index(h) for h in HEADINGS[lang]]
    assert positions == sorted(positions), "sections out of order"
    for pos in positions:
        # a heading followed by nothing would mean a section silently rendered empty
        assert lines[pos + 1].strip(), lines[pos]


def test_zh_header_is_the_seeds():
    seed = (GOLDEN / "seed-2026-03-22.zh.md").read_text(encoding="utf-8")
    golden = (GOLDEN / "2026-03-22.zh.md").read_text(encoding="utf-8")
    assert golden.splitlines()[:4] == seed.splitlines()[:4]
    for h in HEADINGS["zh"]:
        # the follow-ups are ours: no daily report before tracked what became of its items
        assert h in seed.splitlines() or h == FOLLOW_UPS["zh"]
