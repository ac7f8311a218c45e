"""States and employers in the narrative, through the real path: the sample day (or the GitHub emulator with
profiles), a real DuckDB warehouse, the OpenAI emulator answering each section, the real report step.

A state word next to a #N that contradicts the item's state, or an employer the facts pack does not give, is
sent back once and then falls back; a right state and an employer the pack gives pass; every #N of a narrative
is printed with its state from the warehouse (a badge in HTML, "(merged)" / "(已合并)" in Markdown), once."""

from __future__ import annotations

from types import SimpleNamespace

import dagster as dg
import pytest

from tests.report.test_narrative_report import (
    API_KEY, DAY, deterministic_context, html_section, llm_settings, report_metadata, reports, section_body,
)
from vllm_digest.core.config.settings import load_settings
from vllm_digest.core.i18n import load_catalog
from vllm_digest.report.narrative.states import badge_words, badges, mark
from vllm_digest.report.narrative.validator import validate
from vllm_digest.testing.github_emulator import Dataset, GitHubEmulator
from vllm_digest.testing.github_fixtures import TOKEN
from vllm_digest.testing.narrative_replies import GroundedWriter, parse_request
from vllm_digest.testing.openai_emulator import OpenAIEmulator
from vllm_digest.testing.pipeline import materialize, report_path

# the sample day: #37800 is an open PR among the key changes and the focus items, #35162 and #37780 merged PRs,
# #37823 an open issue to watch, #36155 an issue whose author's login ends in a company's name; no profiles
KC_EN_WRONG = "1.  **PR #37800**\n    *   **What changed**: #37800 has landed.\n    *   **Impact**: faster."
KC_EN_RIGHT = ("1.  **PR #37800**\n    *   **What changed**: #37800 is still under review.\n    *   **Impact**: none yet.\n"
               "2.  **PR #35162**\n    *   **What changed**: #35162 was merged.\n    *   **Impact**: faster.")
KC_ZH_WRONG = "1.  **PR #37800**\n    *   **技术解读**：#37800 已合并。\n    *   **影响**：更快。"
NOTABLE_EN_WRONG = "1.  **Issue #37823**: #37823 is fixed, so nothing to watch."
NOTABLE_ZH_EMPLOYER = "1.  **Issue #36155**：#36155 的作者是 Red Hat 员工，值得关注。"
FOCUS_EN_EMPLOYER = ("Items of the day.\n1.  **Kernels**\n    *   **PR #37780 (`AndreasKaratzas`)**: fixes tests "
                     "(AMD employee).\n\n**Summary**: one item.")
FOCUS_ZH_RIGHT = ("本期条目如下。\n1.  **内核**\n    *   **PR #37780 (`AndreasKaratzas`)**：#37780 已合并，修复了测试。\n"
                  "    *   **PR #37800 (`ChuanLi1101`)**：#37800 仍在审查中。\n\n**小结**：两项。")


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    with dg.instance_for_test(temp_dir=str(tmp_path_factory.mktemp("dagster_home"))) as inst:
        yield inst


@pytest.fixture(scope="module")
def key_in_environment():
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VLLM_DIGEST_LLM_API_KEY", API_KEY)
        yield


@pytest.fixture(scope="module")
def day(tmp_path_factory, instance, key_in_environment):
    writer = GroundedWriter()
    writer.script("key_changes", "en", KC_EN_WRONG, KC_EN_RIGHT)
    writer.script("key_changes", "zh", KC_ZH_WRONG, KC_ZH_WRONG)
    writer.script("notable", "en", NOTABLE_EN_WRONG, NOTABLE_EN_WRONG)
    writer.script("notable", "zh", NOTABLE_ZH_EMPLOYER, NOTABLE_ZH_EMPLOYER)
    writer.script("focus", "en", FOCUS_EN_EMPLOYER, FOCUS_EN_EMPLOYER)
    writer.script("focus", "zh", FOCUS_ZH_RIGHT)
    with OpenAIEmulator(responder=writer) as emulator:
        settings = llm_settings(tmp_path_factory.mktemp("states"), emulator.base_url)
        result = materialize(settings, DAY, instance=instance)
        yield SimpleNamespace(settings=settings, meta=report_metadata(result), files=reports(settings),
                              requests=list(emulator.requests))


def _asked(run, section, lang):
    return [r for r in run.requests if parse_request(r.body)[:2] == (section, lang)]


def _falls_back(run, section, lang, violation):
    first, repair = _asked(run, section, lang)
    assert violation in repair.body["messages"][3]["content"]
    fell = run.meta["narrative_fallbacks"][f"{lang}/{section}"]
    assert fell["reason"] == "grounding violations after repair" and violation in fell["violations"]
    det = deterministic_context(run.settings)[lang].section(section).markdown
    assert section_body(run.files[lang], lang, section) == det.strip()


def test_an_open_pr_called_landed_is_sent_back_and_the_right_state_is_used(day):
    first, repair = _asked(day, "key_changes", "en")
    assert "#37800 is called 'landed', but the data says it is open" in repair.body["messages"][3]["content"]
    assert day.meta["narrative_sections"]["en/key_changes"] == "llm"
    body = section_body(day.files["en"], "en", "key_changes")
    # the right states stand as written, with no second badge; each entry's header gets its badge
    assert "**PR #37800 (open)**" in body and "**PR #35162 (merged)**" in body
    assert "#37800 is still under review" in body and "#35162 was merged" in body


def test_an_open_pr_called_merged_in_zh_falls_back(day):
    _falls_back(day, "key_changes", "zh", "#37800 is called '已合并', but the data says it is open")


def test_an_open_issue_called_fixed_falls_back(day):
    _falls_back(day, "notable", "en", "#37823 is called 'fixed', but the data says it is open")


def test_an_employer_read_off_a_login_falls_back(day):
    _falls_back(day, "notable", "zh", "affiliation 'Red Hat 员工' is not in the data: it gives no employer 'Red Hat' "
                                      "for #36155; say whom someone works for only where the data says so")


def test_an_employee_tag_without_a_profile_falls_back(day):
    _falls_back(day, "focus", "en", "affiliation 'AMD employee' is not in the data: it gives no employer 'AMD' for "
                                    "#37780, AndreasKaratzas; say whom someone works for only where the data says so")


def test_a_right_state_in_zh_passes_and_is_badged_once(day):
    assert day.meta["narrative_sections"]["zh/focus"] == "llm"
    assert len(_asked(day, "focus", "zh")) == 1
    body = section_body(day.files["zh"], "zh", "focus")
    assert "**PR #37780 (已合并) (`AndreasKaratzas`)**" in body and "**PR #37800 (进行中) (`ChuanLi1101`)**" in body
    assert "#37780 已合并，" in body and "#37800 仍在审查中" in body
    assert "(已合并) 已合并" not in body and "(进行中) 仍在" not in body


def test_every_narrated_ref_gets_its_badge_in_html(day):
    part = html_section(day.files["zh.html"], "focus")
    assert '<span class="state state-merged">已合并</span>' in part
    assert '<span class="state state-open">进行中</span>' in part
    en = html_section(day.files["en.html"], "key_changes")
    assert '<span class="state state-open">open</span>' in en and '<span class="state state-merged">merged</span>' in en
    # the deterministic sections keep their own state words and get no badge
    assert 'class="state' not in html_section(day.files["en.html"], "notable")


# --- an employer the pack gives: the GitHub source with profiles ----------------------------------

PROFILES = {
    "andreaskaratzas": {"login": "AndreasKaratzas", "name": "Andreas", "company": "Advanced Micro Devices", "bio": None},
    "laudney": {"login": "laudney", "name": None, "company": "Independent", "bio": "RDNA4 hobbyist"},
}
TAGGED = ("Items of the day.\n1.  **Kernels**\n    *   **PR #{n} (`{login}`)**: adds a test (AMD employee).\n\n"
          "**Summary**: one item.")


def test_an_employer_the_pack_gives_passes_and_one_it_does_not_is_sent_back(tmp_path, instance, key_in_environment,
                                                                             monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    data = Dataset.from_sample()
    data.users = {k: {**v, "type": "User", "id": i, "public_repos": 3} for i, (k, v) in enumerate(PROFILES.items())}
    invented, given = TAGGED.format(n=37826, login="laudney"), TAGGED.format(n=37780, login="AndreasKaratzas")
    writer = GroundedWriter()
    writer.script("focus", "en", invented, given)
    with GitHubEmulator(data, token=TOKEN, search_limit=1000) as github, OpenAIEmulator(responder=writer) as llm:
        base = llm_settings(tmp_path / "home", llm.base_url, VLLM_DIGEST_LANGUAGES="en")
        env = {"VLLM_DIGEST_HOME": str(tmp_path / "home"), "VLLM_DIGEST_CUTOFF": "11:39", "VLLM_DIGEST_LANGUAGES": "en",
               "VLLM_DIGEST_SOURCE": "github", "GITHUB_API_URL": github.base_url, "GITHUB_TOKEN": TOKEN,
               "GITHUB_WEB_URL": "https://github.com", "VLLM_DIGEST_GITHUB_PEOPLE": "500",
               "VLLM_DIGEST_LLM_MODEL": "qwen-test", "VLLM_DIGEST_LLM_API_KEY": API_KEY,
               "VLLM_DIGEST_LLM_BASE_URL": base.narrative.base_url, "VLLM_DIGEST_LLM_TIMEOUT": "5"}
        settings = load_settings(env)
        result = materialize(settings, DAY, instance=instance)
        requests = [r for r in llm.requests if parse_request(r.body)[:2] == ("focus", "en")]
    first, repair = requests
    facts = parse_request(first.body)[2]
    by_number = {i["number"]: i for i in facts["items"]}
    assert by_number[37780]["is_vendor_employee"] is True and by_number[37826]["is_vendor_employee"] is False
    assert facts["vendor"] == "AMD"
    assert "affiliation 'AMD employee' is not in the data: it gives no employer 'AMD' for #37826, laudney" in (
        repair.body["messages"][3]["content"])
    meta = report_metadata(result)
    assert meta["narrative_sections"]["en/focus"] == "llm"
    body = section_body(report_path(settings, DAY, "en.md").read_text(encoding="utf-8"), "en", "focus")
    assert "**PR #37780 (merged) (`AndreasKaratzas`)**: adds a test (AMD employee)." in body


# --- the rules one by one, on a hand-made pack ----------------------------------------------------

EN, ZH = load_catalog("en"), load_catalog("zh")
PACK = {"repo": "o/r", "day": "2026-03-22", "vendor": "Acme", "items": [
    {"number": 1, "kind": "pr", "state": "open", "author": "ann"},
    {"number": 2, "kind": "pr", "state": "closed", "author": "bob-acme"},
    {"number": 3, "kind": "pr", "state": "merged", "author": "cy", "is_vendor_employee": True},
    {"number": 4, "kind": "issue", "state": "open", "author": "dee"},
    {"number": 5, "kind": "issue", "state": "closed", "author": "eve"},
    {"number": 6, "kind": "pr", "title": "no state given"},
]}


def _states_and_employers(text: str, catalog) -> list[str]:
    return [v for v in validate(text, "topics", catalog, PACK) if "is called" in v or v.startswith("affiliation")]


@pytest.mark.parametrize("catalog, text, refused", [
    (EN, "#2 landed today.", "#2 is called 'landed', but the data says it is closed without merge"),
    (EN, "The merged PR #1 adds a kernel.", "#1 is called 'merged', but the data says it is open"),
    (EN, "#4 was resolved.", "#4 is called 'resolved', but the data says it is open"),
    (EN, "#3 is still open.", "#3 is called 'still open', but the data says it is merged"),
    (EN, "#6 was merged.", "#6 is called 'merged', but the data gives no state for #6"),
    (ZH, "#2 已合入主干。", "#2 is called '已合入', but the data says it is closed without merge"),
    (ZH, "已合并的 PR #1 增加了内核。", "#1 is called '已合并的', but the data says it is open"),
    (ZH, "#4 已修复。", "#4 is called '已修复', but the data says it is open"),
    (EN, "#2 is by an Intel engineer.", "affiliation 'Intel engineer' is not in the data"),
    (EN, "`bob-acme` from NVIDIA opened #2.", "affiliation '`bob-acme` from NVIDIA' is not in the data"),
    (EN, "#2 comes from an Acme employee.", "affiliation 'Acme employee' is not in the data"),
    (ZH, "#2 的作者是 Intel 的工程师。", "affiliation 'Intel 的工程师' is not in the data"),
    (ZH, "#1 作者来自 NVIDIA。", "affiliation '作者来自 NVIDIA' is not in the data"),
])
def test_a_wrong_state_or_an_invented_employer_is_refused(catalog, text, refused):
    assert any(v.startswith(refused) for v in _states_and_employers(text, catalog)), _states_and_employers(text, catalog)


@pytest.mark.parametrize("catalog, text", [
    (EN, "#1 is still open; #3 was merged; #2 was closed without merge; #5 is closed."),
    (EN, "#2 is not merged, and #1 hasn't landed yet."),
    (EN, "#3 closes #4, which its author reports as fixed in their runs."),
    (EN, "#3 (merged) keeps the socket open and fixed the hang."),
    (EN, "#3 by an Acme engineer; the Kernel engineers reviewed #1."),
    (EN, "Two items come from Acme employees."),
    (ZH, "#1 仍处于开放状态，#3 已合并，#2 未合并即关闭，#5 已关闭。"),
    (ZH, "#1 并没有被合并；#3 修复了 #4。"),
    (ZH, "#3 的作者是 Acme 员工。"),
    (EN, "`#6 merged` is code."),
])
def test_a_right_state_or_a_given_employer_passes(catalog, text):
    assert _states_and_employers(text, catalog) == []


def test_a_badge_follows_every_ref_once_and_never_inside_code():
    statuses = {1: "open", 2: "closed_unmerged", 3: "merged"}
    text = "**PR #3: x** adds; #3 was merged; #1 (open), #2 and `#1`."
    assert badges(mark(text, statuses, EN), badge_words(EN)) == (
        "**PR #3 (merged): x** adds; #3 was merged; #1 (open), #2 (closed without merge) and `#1`.")
    assert badges(mark("已合并的 #3；#1 进行中，#2 和 #9", statuses, ZH), badge_words(ZH)) == (
        "已合并的 #3；#1 进行中，#2 (关闭未合并) 和 #9")
