"""The report claims only what its data says (issue 29.4, 27.12):

- 🎯: an author's employer is known only from a GitHub profile that names one (its company, or a vendor
  match); a fetched profile without a company says nothing, so "0 by AMD employees" is never printed for it.
  A login convention ('-amd') is counted as what it is, never as employment.
- 📈: a first-time contributor is one GitHub marks FIRST_TIME_CONTRIBUTOR or FIRST_TIMER; NONE means "no
  association". Deleted accounts (GitHub's stand-in `ghost`, or no user) are not people who took part.
"""

from __future__ import annotations

import duckdb

from vllm_digest.testing.github_emulator import Dataset, GitHubEmulator
from vllm_digest.testing.github_fixtures import TOKEN
from vllm_digest.testing.pipeline import materialize, report_path, write_sample

DAY = "2026-03-22"  # with the default cutoff 11:39 UTC+8: [2026-03-22T03:39Z, 2026-03-23T03:39Z)
BASE = {"labels": [], "comments": 0, "state": "open", "closed_at": None, "body": None,
        "created_at": "2026-03-22T05:00:00Z", "updated_at": "2026-03-22T06:00:00Z"}


def _section(md: str, icon: str) -> str:
    return md.split(f"\n### {icon}", 1)[1].split("\n### ", 1)[0]


def test_a_vendor_login_suffix_is_reported_as_a_login_convention_not_employment(make_settings, tmp_path):
    items = [
        {**BASE, "number": 901, "title": "[ROCm] Fix the fp8 GEMM tuning on MI300X", "author_association": "MEMBER",
         "user": {"login": "gronsti-amd", "type": "User"}},
        {**BASE, "number": 902, "title": "[ROCm] Enable the AITER MLA path on gfx950", "author_association": "MEMBER",
         "user": {"login": "xaguilar-amd", "type": "User"}},
        {**BASE, "number": 903, "title": "[ROCm] Add the MI325X tuned MoE configs", "author_association": "MEMBER",
         "user": {"login": "xaguilar-amd", "type": "User"}},
        {**BASE, "number": 904, "title": "[ROCm] Widen the Triton MoE range to gfx12", "author_association": "NONE",
         "user": {"login": "ann", "type": "User"}},
    ]
    root = write_sample(tmp_path / "sample", items, start="2026-03-20T00:00:00Z")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(root))
    materialize(settings, DAY)
    en = report_path(settings, DAY, "en.md").read_text(encoding="utf-8")
    focus = _section(en, "🎯")
    assert "; authors with “-amd” logins: 2 (a naming habit, not an employer)" in focus, focus
    assert "whether their authors work for AMD is not known" in focus
    assert "AMD employee" not in focus and "by AMD employees" not in en
    zh = report_path(settings, DAY, "zh.md").read_text(encoding="utf-8")
    assert "2 位作者的账号名含“-amd”（仅是命名习惯，不代表雇主）" in zh


def test_profiles_without_a_company_leave_the_employer_unknown_not_zero(make_settings, tmp_path, monkeypatch):
    """The focus authors of the sample's 2026-03-22 have profiles, none naming a company: no employer is known."""
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    data = Dataset.from_sample()
    data.users = {login.lower(): {"login": login, "name": None, "company": company, "bio": "GPU kernels",
                                  "type": "User", "id": i, "public_repos": 3}
                  for i, (login, company) in enumerate((("AndreasKaratzas", None), ("ChuanLi1101", ""),
                                                        ("laudney", "  ")))}
    with GitHubEmulator(data, token=TOKEN, search_limit=1000) as emulator:
        settings = make_settings(VLLM_DIGEST_SOURCE="github", GITHUB_API_URL=emulator.base_url, GITHUB_TOKEN=TOKEN,
                                 GITHUB_WEB_URL="https://github.com", VLLM_DIGEST_GITHUB_PEOPLE="500")
        materialize(settings, DAY)
    en = report_path(settings, DAY, "en.md").read_text(encoding="utf-8")
    assert "0 of them by AMD employees" not in en and "0 by AMD employees" not in en
    assert "11 items concern AMD/ROCm; whether their authors work for AMD is not known" in en
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        known = con.execute("SELECT bool_or(author_profile_known), bool_or(author_employer_known) "
                            "FROM mart_focus_items WHERE day = DATE '2026-03-22'").fetchone()
    assert known == (True, False)  # profiles fetched, none names an employer


def test_only_first_timers_are_first_time_contributors_and_deleted_accounts_take_no_part(make_settings, tmp_path):
    api = "https://api.github.com/repos/vllm-project/vllm"
    items = [
        {**BASE, "number": 951, "title": "[Bug] Engine hangs on shutdown", "author_association": "NONE",
         "user": {"login": "alice", "type": "User"}},
        {**BASE, "number": 952, "title": "[Bug] Scheduler stalls under long prompts", "author_association": "NONE",
         "user": {"login": "bob", "type": "User"}},
        {**BASE, "number": 953, "title": "[Docs] Explain the prefix cache metrics", "author_association": "FIRST_TIMER",
         "user": {"login": "cyd", "type": "User"}},
        {**BASE, "number": 954, "title": "[Bug] Tokenizer drops a special token", "author_association": "NONE",
         "user": {"login": "ghost", "type": "User"}},
        {**BASE, "number": 955, "title": "[Bug] Sampler returns NaN at top_p 0.05", "author_association": "NONE",
         "user": None},
    ]
    comments = [{"id": 1, "issue_url": f"{api}/issues/951", "user": {"login": "ghost", "type": "User"},
                 "author_association": "NONE", "created_at": "2026-03-22T06:00:00Z",
                 "updated_at": "2026-03-22T06:00:00Z", "body": "Same here."}]
    root = write_sample(tmp_path / "sample", items, comments=comments, start="2026-03-20T00:00:00Z")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(root))
    materialize(settings, DAY)
    en = _section(report_path(settings, DAY, "en.md").read_text(encoding="utf-8"), "📈")
    # cyd only (NONE is "no association"); the people: alice, bob and cyd, not the deleted accounts
    assert "- first-time contributors: 1" in en, en
    assert "; 3 non-bot people took part." in en and "- non-bot participants: 3" in en, en
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        row = con.execute("SELECT first_time_contributors, first_time_basis, contributors FROM mart_activity_daily "
                          "WHERE day = DATE '2026-03-22'").fetchone()
    assert row == (1, "author_association", 3)


def test_a_source_without_associations_prints_no_first_time_figure(make_settings):
    """The embedded sample carries no author_association: the figure's basis is unknown, so it is not printed."""
    settings = make_settings()
    materialize(settings, DAY)
    for lang, label in (("en", "first-time contributors"), ("zh", "首次贡献者")):
        assert label not in report_path(settings, DAY, f"{lang}.md").read_text(encoding="utf-8")
