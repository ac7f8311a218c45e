"""Issue 18's check with the github source against the emulator: a sample day whose items carry bodies in
vLLM's templates (vllm_digest/testing/template_bodies.py) and whose PRs have changed files. For at least 90% of the PRs
cited in 🛠️ and 🎯 the report shows the PR's Purpose sentence under it, and never the template's placeholder;
the day's key-change and focus candidates have their files fetched (at most 20, with ETags) and say where
they land ("touches: ...")."""

from __future__ import annotations

import dagster as dg
import duckdb

from vllm_digest.testing.github_fixtures import REPO as EMULATED_REPO, TOKEN
from vllm_digest.testing.report_text import cited_numbers, plain, split_sections


EDITORIAL_REPO = EMULATED_REPO.full_name
from vllm_digest.testing.github_emulator import Dataset, GitHubEmulator
from vllm_digest.testing.pipeline import materialize, report_path
from vllm_digest.testing.template_bodies import PR_PLACEHOLDER, write as write_bodies

DAY = "2026-03-22"
FILES = {
    # a focus PR of the day (its title says [ROCm]) that changes ROCm kernels and the scheduler
    37838: [{"filename": "csrc/rocm/fused_rms_norm.cu", "status": "modified", "additions": 40, "deletions": 5},
            {"filename": "csrc/rocm/ops.h", "status": "modified", "additions": 2, "deletions": 0},
            {"filename": "vllm/v1/core/sched/scheduler.py", "status": "modified", "additions": 3, "deletions": 1},
            {"filename": "tests/kernels/test_rms.py", "status": "modified", "additions": 1, "deletions": 1}],
}


def test_purpose_under_cited_prs_and_code_areas_from_the_emulator(make_settings, tmp_path, monkeypatch):
    purposes = write_bodies(tmp_path / "bodies")
    data = Dataset.from_sample(tmp_path / "bodies" / "vllm-project__vllm")
    data.files = {n: list(rows) for n, rows in FILES.items()}
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    with GitHubEmulator(data, token=TOKEN, search_limit=1000) as emulator:
        settings = make_settings(VLLM_DIGEST_SOURCE="github", GITHUB_API_URL=emulator.base_url, GITHUB_TOKEN=TOKEN,
                                 GITHUB_WEB_URL="https://github.com", VLLM_DIGEST_GITHUB_FILES="20")
        (tmp_path / "dagster_home").mkdir()
        with dg.instance_for_test(temp_dir=str(tmp_path / "dagster_home")) as instance:
            materialize(settings, DAY, instance=instance)
            first = [r.path for r in emulator.requests if r.path.endswith("/files")]
            emulator.clear_log()
            materialize(settings, DAY, instance=instance)
            second = [r.path for r in emulator.requests if r.path.endswith("/files")]
    # at most 20 PRs' files a day, the focus candidate among them; unchanged PRs are not asked again
    assert 0 < len(first) <= 20 and any(p.endswith("/pulls/37838/files") for p in first)
    assert second == []

    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        areas = con.execute("SELECT area_id, files, lines FROM int_item_areas WHERE number = 37838 "
                            "ORDER BY lines DESC").fetchall()
    assert areas == [("rocm_kernels", 2, 47), ("scheduler", 1, 4), ("tests", 1, 2)]

    for lang in ("zh", "en"):
        md = report_path(settings, DAY, f"{lang}.md").read_text(encoding="utf-8")
        assert plain(PR_PLACEHOLDER[:40]) not in plain(md)
        sections = split_sections(md)
        cited = shown = 0
        for key in ("key_changes", "focus"):
            for n in cited_numbers(sections.get(key, ""), EDITORIAL_REPO):
                if purposes.get(n):
                    cited += 1
                    shown += plain(purposes[n]).rstrip(".") in plain(sections[key])
        assert cited >= 10 and shown >= 0.9 * cited, (lang, shown, cited)
        line = next(x for x in sections["focus"].splitlines() if "/pull/37838)" in x)
        touches = "touches: ROCm kernels, scheduler, tests" if lang == "en" else "涉及：ROCm 内核、调度器、测试"
        assert touches in line and plain(purposes[37838]).rstrip(".") in plain(line)
