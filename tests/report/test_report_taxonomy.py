"""The report's own words about a project come from its taxonomy: with another taxonomy (an Intel
XPU focus area, tests/fixtures/intel_xpu.toml) the focus section, the summary, the headings, the site,
the feed and the LLM prompts name that vendor, product and project, and nothing of the bundled one."""

import json
from pathlib import Path

import pytest

from vllm_digest.testing.pipeline import materialize, report_path
from tests.core.test_no_literals import taxonomy_words
from vllm_digest.core.taxonomy.loader import TaxonomyError, taxonomy_from_settings
from vllm_digest.definitions import build_definitions
from vllm_digest.report.narrative.prompts import voice

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "intel_xpu.toml"
DAY = "2026-03-22"


def _write_sample(root: Path) -> None:
    """One XPU PR by a vendor employee, one XPU issue and one docs PR, none naming the bundled vendor."""
    folder = root / "vllm-project__vllm"
    folder.mkdir(parents=True)
    base = {"state": "open", "closed_at": None, "comments": 1, "labels": [],
            "created_at": "2026-03-22T05:00:00Z", "updated_at": "2026-03-22T05:30:00Z"}
    pr = {"url": "https://api.github.com/repos/vllm-project/vllm/pulls/1"}
    items = [
        {**base, "number": 801, "title": "[XPU][Kernel] Fix oneDNN matmul on Arc B580 with IPEX",
         "user": {"login": "dev-intel", "type": "User"}, "pull_request": pr,
         "body": "The oneDNN matmul path returned wrong results on the Arc B580 with IPEX enabled."},
        {**base, "number": 802, "title": "[Bug] XPU attention crashes with IPEX 2.8",
         "user": {"login": "someone", "type": "User"}, "labels": [{"name": "intel-gpu"}],
         "body": "Running the attention backend on an XPU device crashes during warmup."},
        {**base, "number": 803, "title": "[Docs] Explain the sampling parameters",
         "user": {"login": "writer", "type": "User"}, "pull_request": pr,
         "body": "The documentation of the sampling parameters was missing two fields."},
    ]
    (folder / "issues.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    (folder / "events.jsonl").write_text("")
    (folder / "coverage.json").write_text(json.dumps({"start": "2026-03-20T00:00:00Z", "end": "2026-03-25T00:00:00Z"}))


def test_another_taxonomy_leaves_no_word_of_the_bundled_one(make_settings, tmp_path):
    _write_sample(tmp_path / "sample")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "sample"), VLLM_DIGEST_TAXONOMY=str(FIXTURE))
    materialize(settings, DAY)

    outputs = {
        name: path.read_text(encoding="utf-8")
        for name, path in [
            *((f"{lang}.{ext}", report_path(settings, DAY, f"{lang}.{ext}")) for lang in ("zh", "en") for ext in ("md", "html")),
            ("json", report_path(settings, DAY, "json")),
            ("index", settings.site_dir / "index.html"),
            ("feed", settings.site_dir / "feed.xml"),
        ]
    }
    bundled = taxonomy_words()
    assert {"vLLM", "AMD", "ROCm", "Quark"} <= bundled
    for name, text in outputs.items():
        found = sorted(w for w in bundled if w in text)
        assert not found, f"{name} still says {found}"

    zh, en = outputs["zh.md"], outputs["en.md"]
    assert zh.startswith("# XPU Watch 开发动态报告 - 2026-03-22\n")
    assert "### 🎯 Intel XPU 生态相关动态\n" in zh and "### 🎯 Intel XPU ecosystem\n" in en
    assert "Intel XPU 相关条目 2 项；据作者的 GitHub 账号资料，Intel 员工提交 1 项，其他公司人员提交 0 项，另有 1 项作者的雇主未知。" in zh
    assert (" 2 items concern Intel XPU; by their authors' GitHub profiles: 1 by Intel employees, 0 by people of"
            " other employers, employer not known for 1.") in en
    assert "; authors with “-intel” logins: 1 (a naming habit, not an employer)" in en
    assert "(dev-intel (Intel employee) · open)" in en
    assert "**小结**：共 2 项 Intel XPU 相关条目（" in zh and "IPEX 相关 2 项。" in zh
    assert "; IPEX is mentioned in 2 of them." in en
    # the themes are the fixture's
    assert "**Kernels and ops**" in en and "**内核与算子**" in zh and "(Kernels and ops 2)" in en
    assert "<h2>🎯 Intel XPU ecosystem</h2>" in outputs["en.html"]
    assert "<title>XPU Watch development digest - 2026-03-22</title>" in outputs["en.html"]
    assert "<title>XPU Watch development digest</title>" in outputs["feed"]

    # and the LLM is asked in the same words
    for lang in ("zh", "en"):
        spoken = voice(settings.catalog(lang), taxonomy_from_settings(settings).focus_areas[0], settings.display_name(settings.repos[0]))
        prompts = spoken.system + "".join(spoken.shapes.values())
        assert not sorted(w for w in bundled if w in prompts), lang
        assert "XPU Watch" in spoken.system and "Intel" in spoken.shapes["focus"]


def test_a_taxonomy_without_a_focus_area_stops_the_code_location(make_settings, tmp_path):
    path = tmp_path / "topics_only.toml"
    path.write_text('version = 1\n[[topic]]\nid = "x"\nzh = "甲"\nen = "X"\nkeywords = ["x"]\n', encoding="utf-8")
    with pytest.raises(TaxonomyError, match=r"topics_only\.toml'?: the report's focus section needs a \[\[focus\]\] area"):
        build_definitions(make_settings(VLLM_DIGEST_TAXONOMY=str(path)))
