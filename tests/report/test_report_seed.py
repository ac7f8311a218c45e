"""Sample day 2026-03-22 at cutoff 11:39 through the real Dagster graph
reproduces the seed report's header and appendix; re-runs change nothing."""

import json
import re
from pathlib import Path

from vllm_digest.testing.pipeline import materialize, report_path
from tests.pipeline_helpers import table_hashes

SEED = Path(__file__).resolve().parents[2] / "tests" / "golden" / "seed-2026-03-22.zh.md"
HEADINGS = ("新增 Issue", "已关闭 Issue", "新增 PR", "已合并 PR", "关闭但未合并的 PR")
TIME = re.compile(r"\((?:创建于|关闭于|合并于): (\d{4}-\d\d-\d\d \d\d:\d\d) \(UTC\+8\)\)$")


def appendix_lists(text: str) -> dict[str, list[str]]:
    lists: dict[str, list[str]] = {}
    current = None
    for line in text.split("## 📋 附录：详细数据列表", 1)[1].splitlines():
        if line.startswith("### "):
            current = line[4:]
            lists[current] = []
        elif line.startswith("- ") and current:
            lists[current].append(line)
    return lists


def test_seed_header_and_appendix(make_settings):
    settings = make_settings()
    materialize(settings, "2026-03-22")
    ours = report_path(settings, "2026-03-22").read_text(encoding="utf-8")
    seed = SEED.read_text(encoding="utf-8")
    assert ours.splitlines()[:4] == seed.splitlines()[:4]
    assert "> 数据统计: 新 Issue 10 | 关闭 Issue 10 | 新 PR 48 | 合并 PR 21 | 关闭未合并 PR 15" in ours
    ours_lists, seed_lists = appendix_lists(ours), appendix_lists(seed)
    assert list(ours_lists) == list(HEADINGS)
    for heading in HEADINGS:
        assert sorted(ours_lists[heading]) == sorted(seed_lists[heading]), heading
        # documented order: newest first, ties by larger number first
        times = [TIME.search(line).group(1) for line in ours_lists[heading]]
        assert times == sorted(times, reverse=True), heading
    summary = json.loads(report_path(settings, "2026-03-22", "json").read_text(encoding="utf-8"))
    assert summary["counts"] == {
        "new_issues": 10, "closed_issues": 10, "new_prs": 48, "merged_prs": 21, "closed_unmerged_prs": 15,
    }
    assert 37839 in summary["lists"]["new_issues"] and 36131 in summary["lists"]["closed_unmerged_prs"]
    assert summary["window"]["start"] == "2026-03-22T11:39:00+08:00"


def test_rematerialize_is_identical(make_settings):
    settings = make_settings()
    materialize(settings, "2026-03-21", "2026-03-22")
    first_tables = table_hashes(settings)
    first_report = report_path(settings, "2026-03-22").read_bytes()
    materialize(settings, "2026-03-22")
    assert table_hashes(settings) == first_tables
    assert report_path(settings, "2026-03-22").read_bytes() == first_report
    materialize(settings, "2026-03-21", "2026-03-22")
    assert table_hashes(settings) == first_tables
    # 2026-03-22 alone has 104 list members; the hash covers both days
    assert int(first_tables["mart_five_sets"].rsplit(":", 1)[1]) > 104


def test_empty_lists_render_as_none(make_settings):
    # after the sample's coverage: END_DATE makes it a partition (the sample's would end on its last day)
    settings = make_settings(VLLM_DIGEST_END_DATE="2026-06-01")
    materialize(settings, "2026-06-01")
    text = report_path(settings, "2026-06-01").read_text(encoding="utf-8")
    lists = appendix_lists(text)
    assert all(lines == ["- 无"] for lines in lists.values())
    assert "> ⚠️ 数据不完整" in text
