"""The seven analysis sections, written from the context without an LLM."""

from __future__ import annotations

FOCUS_TITLE = {"zh": "AMD/ROCm 生态相关动态", "en": "AMD/ROCm ecosystem"}


def _summary(counts: dict) -> dict:
    zh = (
        f"本周期共新增 {counts['new_issues']} 个 Issue、关闭 {counts['closed_issues']} 个 Issue；"
        f"新增 {counts['new_prs']} 个 PR，合并 {counts['merged_prs']} 个，"
        f"另有 {counts['closed_unmerged_prs']} 个 PR 未合并即关闭。"
    )
    en = (
        f"This window saw {counts['new_issues']} new and {counts['closed_issues']} closed issues, "
        f"{counts['new_prs']} new PRs, {counts['merged_prs']} merged and "
        f"{counts['closed_unmerged_prs']} closed without merge."
    )
    return {"zh": zh, "en": en}


def build_sections(context: dict) -> dict:
    pending = {"zh": "本节暂无内容。", "en": "Nothing in this section yet."}
    return {
        "summary": _summary(context["counts"]),
        "focus": {**pending, "title_zh": FOCUS_TITLE["zh"], "title_en": FOCUS_TITLE["en"]},
        "discussions": pending,
        "topics": pending,
        "key_changes": pending,
        "activity": pending,
        "notable": pending,
    }
