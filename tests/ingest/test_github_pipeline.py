"""The whole Dagster graph with VLLM_DIGEST_SOURCE=github against the emulator
produces the same report as the embedded sample source."""

import dagster as dg

from vllm_digest.testing.github_emulator import Dataset, GitHubEmulator
from vllm_digest.testing.github_fixtures import TOKEN
from vllm_digest.testing.pipeline import materialize, report_path
from tests.storage_scan import files_holding


def test_github_source_report_equals_sample_report(make_settings, tmp_path, monkeypatch):
    # the token reaches the run the way it does in production: from the process environment
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    sample = make_settings(VLLM_DIGEST_HOME=str(tmp_path / "sample"))
    materialize(sample, "2026-03-22")
    with GitHubEmulator(Dataset.from_sample(), token=TOKEN, search_limit=1000) as emulator:
        github = make_settings(
            VLLM_DIGEST_HOME=str(tmp_path / "github"),
            VLLM_DIGEST_SOURCE="github",
            GITHUB_API_URL=emulator.base_url,
            GITHUB_TOKEN=TOKEN,
            GITHUB_WEB_URL="https://github.com",
            # the activity alone, as the sample holds it: no profile or changed-files enrichment
            VLLM_DIGEST_GITHUB_PEOPLE="0",
            VLLM_DIGEST_GITHUB_FILES="0",
        )
        (tmp_path / "dagster_home").mkdir()
        with dg.instance_for_test(temp_dir=str(tmp_path / "dagster_home")) as instance:
            materialize(github, "2026-03-22", instance=instance)
        requests = len(emulator.requests)
    ours = report_path(github, "2026-03-22").read_text(encoding="utf-8")
    assert "> 数据统计: 新 Issue 10 | 关闭 Issue 10 | 新 PR 48 | 合并 PR 21 | 关闭未合并 PR 15" in ours
    # the appendix (everything the lists print) is identical line for line
    appendix = lambda text: text.split("## 📋 附录", 1)[1]
    assert appendix(ours) == appendix(report_path(sample, "2026-03-22").read_text(encoding="utf-8"))
    assert 0 < requests <= 12
    # nowhere on disk: landings, warehouse, reports, nor Dagster's run and event storage
    found, scanned = files_holding(TOKEN, (tmp_path / "github", tmp_path / "dagster_home"))
    assert found == [] and scanned > 10
