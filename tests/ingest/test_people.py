"""People: GET /users/{login} once per login, cached across days and refreshed monthly with ETags; a vendor
employee is who the profile's company or bio says, never the login; the focus section counts them, and says
"not known" instead of 0 when no profile was fetched."""

from __future__ import annotations

import datetime as dt
import json

import dagster as dg
import duckdb
import pytest

from vllm_digest.ingest.github.people import PEOPLE_FILE, REFRESH_DAYS, PeopleCache
from vllm_digest.ingest.raw_store import repo_dir
from vllm_digest.testing.github_emulator import Dataset, GitHubEmulator
from vllm_digest.testing.github_fixtures import TOKEN
from vllm_digest.testing.pipeline import materialize, report_path

DAY, NEXT = "2026-03-21", "2026-03-22"
PROFILES = {
    # the company says AMD: an employee
    "andreaskaratzas": {"login": "AndreasKaratzas", "name": "Andreas", "company": "Advanced Micro Devices", "bio": None},
    "chuanli1101": {"login": "ChuanLi1101", "name": None, "company": "@AMD", "bio": "GPU kernels"},
    # a login that reads like a vendor's says nothing: the profile says another company
    "laudney": {"login": "laudney", "name": None, "company": "Independent", "bio": "RDNA4 hobbyist"},
}


def _dataset() -> Dataset:
    data = Dataset.from_sample()
    data.users = {k: {**v, "type": "User", "id": i, "public_repos": 3} for i, (k, v) in enumerate(PROFILES.items())}
    return data


def _users_asked(emulator: GitHubEmulator) -> list[str]:
    return [r.path.rsplit("/", 1)[1].lower() for r in emulator.requests if "/users/" in r.path]


def test_profiles_are_asked_once_per_login_refreshed_monthly_and_counted(make_settings, tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    with GitHubEmulator(_dataset(), token=TOKEN, search_limit=1000) as emulator:
        settings = make_settings(VLLM_DIGEST_SOURCE="github", GITHUB_API_URL=emulator.base_url, GITHUB_TOKEN=TOKEN,
                                 GITHUB_WEB_URL="https://github.com", VLLM_DIGEST_GITHUB_PEOPLE="500")
        (tmp_path / "dagster_home").mkdir()
        with dg.instance_for_test(temp_dir=str(tmp_path / "dagster_home")) as instance:
            materialize(settings, DAY, instance=instance)
            first = _users_asked(emulator)
            emulator.clear_log()
            materialize(settings, NEXT, instance=instance)
            second = _users_asked(emulator)
            # each login is asked once: the second day asks only the authors the first did not have
            assert first and len(set(first)) == len(first)
            assert not set(first) & set(second) and len(set(second)) == len(second)

            # a month later a profile is asked again, conditionally: unchanged, it answers 304
            cache_path = repo_dir(settings.raw_dir, settings.repos[0]) / PEOPLE_FILE
            entries = json.loads(cache_path.read_text(encoding="utf-8"))
            # (the cache keeps GitHub's clock: the emulator's, in March 2026)
            stored = dt.datetime.fromisoformat(entries["andreaskaratzas"]["fetched_at"])
            old = (stored - dt.timedelta(days=REFRESH_DAYS + 1)).isoformat()
            entries["andreaskaratzas"]["fetched_at"] = old
            cache_path.write_text(json.dumps(entries), encoding="utf-8")
            emulator.clear_log()
            materialize(settings, NEXT, instance=instance)
            again = [r for r in emulator.requests if "/users/" in r.path]
            assert [(r.path.rsplit("/", 1)[1], r.status, bool(r.headers.get("if-none-match"))) for r in again] == [
                ("AndreasKaratzas", 304, True)]
            assert PeopleCache.load(cache_path).entry("AndreasKaratzas")["fetched_at"] > old

    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        people = dict(con.execute("SELECT login, company FROM core_people WHERE day = DATE '2026-03-22' "
                                  "AND has_profile").fetchall())
        employees = dict(con.execute("SELECT author_login, bool_or(is_vendor_employee) FROM mart_focus_items "
                                     "WHERE day = DATE '2026-03-22' GROUP BY 1").fetchall())
    assert people.get("AndreasKaratzas") == "Advanced Micro Devices"
    assert employees["AndreasKaratzas"] and employees["ChuanLi1101"] and not employees["laudney"]
    en = report_path(settings, NEXT, "en.md").read_text(encoding="utf-8")
    zh = report_path(settings, NEXT, "zh.md").read_text(encoding="utf-8")
    # the focus list's 11 items: 9 by AndreasKaratzas and 1 by ChuanLi1101 (AMD profiles), 1 by laudney
    # laudney's profile names another company: known, and not an employee
    assert ("11 items concern AMD/ROCm; by their authors' GitHub profiles: 10 by AMD employees, 1 by people of"
            " other employers, employer not known for 0.") in en
    assert "AMD/ROCm 相关条目 11 项；据作者的 GitHub 账号资料，AMD 员工提交 10 项，其他公司人员提交 1 项，另有 0 项作者的雇主未知。" in zh
    assert "(AndreasKaratzas (AMD employee) · merged)" in en and "(laudney · open)" in en
    assert "; by GitHub profiles, 10 by AMD employees, 1 by people of other employers, employer not known for 0;" in en


def test_without_profiles_the_employee_count_is_not_known_rather_than_zero(make_settings):
    settings = make_settings()
    materialize(settings, NEXT)
    en = report_path(settings, NEXT, "en.md").read_text(encoding="utf-8")
    assert "0 of them by AMD employees" not in en and "0 by AMD employees" not in en
    assert "whether their authors work for AMD is not known (no GitHub profile names an employer)." in en


def test_a_damaged_cache_file_is_named_with_its_line_and_nothing_is_overwritten(tmp_path):
    from vllm_digest.ingest.github.pr_files import FilesCache
    people, files = tmp_path / "people.json", tmp_path / "pr_files.json"
    people.write_text('{"alice": {"etag": "x"},\n  oops\n}', encoding="utf-8")
    files.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        PeopleCache.load(people)
    assert f"people cache {str(people)!r} is not valid JSON (line 2)" in str(err.value)
    with pytest.raises(ValueError) as err:
        FilesCache.load(files)
    assert f"PR files cache {str(files)!r} holds list, not an object of PRs" in str(err.value)
    assert people.read_text(encoding="utf-8").startswith('{"alice"')
    # a cache saves only what changed, atomically, and reads back the same
    fresh = PeopleCache.load(tmp_path / "new.json")
    fresh.save()
    assert not (tmp_path / "new.json").exists()
    fresh.entries["bob"] = {"etag": "e"}
    fresh.changed = True
    fresh.save()
    assert PeopleCache.load(tmp_path / "new.json").entries == {"bob": {"etag": "e"}}


def test_an_item_author_who_did_nothing_in_the_window_keeps_their_profile(make_settings, tmp_path, monkeypatch):
    # on 2026-03-21 lcskrishna's merged ROCm PR is in the focus list, but lcskrishna has no event that day (others
    # merged and commented it): the author's profile must still count, and the people who took part stay the actors
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    data = Dataset.from_sample()
    data.users = {"lcskrishna": {"login": "lcskrishna", "name": None, "company": "AMD", "bio": None,
                                 "type": "User", "id": 7, "public_repos": 3}}
    with GitHubEmulator(data, token=TOKEN, search_limit=1000) as emulator:
        settings = make_settings(VLLM_DIGEST_SOURCE="github", GITHUB_API_URL=emulator.base_url, GITHUB_TOKEN=TOKEN,
                                 GITHUB_WEB_URL="https://github.com", VLLM_DIGEST_GITHUB_PEOPLE="500")
        materialize(settings, DAY)
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        acted = con.execute("SELECT count(*) FROM core_events WHERE day = DATE '2026-03-21' "
                            "AND actor_login = 'lcskrishna'").fetchone()[0]
        person = con.execute("SELECT company, has_profile, active, prs_opened, comments FROM core_people "
                             "WHERE day = DATE '2026-03-21' AND login = 'lcskrishna'").fetchall()
        employee = con.execute("SELECT is_vendor_employee, employee_rule FROM mart_focus_items "
                               "WHERE day = DATE '2026-03-21' AND number = 34692").fetchall()
        took_part = con.execute("SELECT count(DISTINCT actor_login) FILTER (WHERE NOT coalesce(actor_is_bot, false) "
                                "AND lower(actor_login) <> 'ghost') "
                                "FROM core_events WHERE day = DATE '2026-03-21'").fetchone()[0]
        inactive = con.execute("SELECT count(*) FROM core_people WHERE day = DATE '2026-03-21' "
                               "AND NOT active AND prs_opened + issues_opened + comments + reviews > 0").fetchone()[0]
    assert acted == 0
    assert person == [("AMD", True, False, 0, 0)]
    assert [(is_employee, rule.split(":", 1)[0]) for is_employee, rule in employee] == [(True, "profile")]
    assert inactive == 0
    en = report_path(settings, DAY, "en.md").read_text(encoding="utf-8")
    # 12 listed: the 13th, a label-only issue closed that day, is in the section's tail (demoted off_title)
    # the other authors have no profile: their employer is unknown, not "not AMD"
    assert ("12 items concern AMD/ROCm; by their authors' GitHub profiles: 1 by AMD employees, 0 by people of"
            " other employers, employer not known for 11.") in en
    assert "(lcskrishna (AMD employee) · merged)" in en
    # the people count is of those who took part, not of every author of the day's items
    assert f"; {took_part} non-bot people took part." in en
