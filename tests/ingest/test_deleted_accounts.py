"""Items whose author's account was deleted count and render like any other item.

GitHub hands such an item its stand-in user ``ghost``; some payloads carry ``"user": null``
instead. Both land as received (the warehouse keeps the null), both count in the day's lists,
and both print an author in every line that names one: GitHub's stand-in, ``ghost``.
"""

import json
import re

from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.testing.pipeline import materialize, report_path


DAY = "2026-03-22"  # with cutoff 11:39 UTC+8: [2026-03-22T03:39Z, 2026-03-23T03:39Z)
GHOST = {"login": "ghost", "id": 10137, "type": "User"}
ALICE = {"login": "alice", "type": "User"}


def _issue(number, user, created, title, closed=None, pr=False):
    item = {
        "number": number, "title": title, "user": user, "labels": [{"name": "bug"}] if number % 2 else [],
        "state": "closed" if closed else "open", "created_at": created, "updated_at": closed or created,
        "closed_at": closed, "comments": 1, "body": "Steps to reproduce the failure in the scheduler.",
        "author_association": "NONE",
    }
    if pr:
        item["pull_request"] = {"merged_at": None}
    return item


def _closed(event_id, number, at):
    return {"id": event_id, "event": "closed", "created_at": at, "actor": None, "commit_id": None,
            "issue": {"number": number}}


def _write_sample(root):
    folder = root / "vllm-project__vllm"
    folder.mkdir(parents=True)
    old = "2025-01-01T00:00:00Z"
    items = [
        _issue(901, ALICE, old, "Scheduler hangs on long prompts", closed="2026-03-22T05:00:00Z"),
        _issue(902, GHOST, old, "Scheduler drops requests", closed="2026-03-22T06:00:00Z"),
        _issue(903, None, old, "Scheduler leaks memory", closed="2026-03-22T07:00:00Z"),
        _issue(904, None, "2026-03-22T08:00:00Z", "Crash when the user is unknown"),
        _issue(905, GHOST, "2026-03-22T09:00:00Z", "[Core] Fix the scheduler", pr=True),
        _issue(906, None, "2026-03-22T10:00:00Z", "[Core] Tidy the scheduler", pr=True),
    ]
    events = [_closed(1, 901, "2026-03-22T05:00:00Z"), _closed(2, 902, "2026-03-22T06:00:00Z"),
              _closed(3, 903, "2026-03-22T07:00:00Z")]
    comment = {"id": 7, "issue_url": "https://api.github.com/repos/vllm-project/vllm/issues/901", "user": None,
               "created_at": "2026-03-22T11:00:00Z", "updated_at": "2026-03-22T11:00:00Z",
               "body": "Same here, it hangs after a few minutes."}
    (folder / "issues.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (folder / "comments.jsonl").write_text(json.dumps(comment) + "\n")
    (folder / "coverage.json").write_text(json.dumps({"start": "2026-03-20T00:00:00Z", "end": "2026-03-25T00:00:00Z"}))


LINE = re.compile(r"^- \[#(\d+)\]\(https://github\.com/vllm-project/vllm/(?:issues|pull)/\1\) .+ — .+ — by (\S+) "
                  r"\((?:创建于|关闭于|created|closed): 2026-03-2[23] \d\d:\d\d \(UTC\+8\)\)$")


def test_ghost_and_null_authors_count_and_render_like_any_other(make_settings, tmp_path):
    _write_sample(tmp_path / "sample")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "sample"))
    materialize(settings, DAY)

    with WarehouseResource(path=str(settings.warehouse_path)).connect(read_only=True) as con:
        counts = con.execute("SELECT new_issues, closed_issues, new_prs FROM mart_daily_counts").fetchone()
        landed = dict(con.execute("SELECT number, author_login FROM stg_issues").fetchall())
    assert counts == (1, 3, 2)
    # the landing keeps what was received: the stand-in as GitHub sent it, a null as a null
    assert (landed[902], landed[903], landed[905], landed[906]) == ("ghost", None, "ghost", None)

    summary = json.loads(report_path(settings, DAY, "json").read_text(encoding="utf-8"))
    assert summary["lists"]["closed_issues"] == [903, 902, 901]
    assert summary["lists"]["new_issues"] == [904] and summary["lists"]["new_prs"] == [906, 905]

    for lang in ("zh", "en"):
        text = report_path(settings, DAY, f"{lang}.md").read_text(encoding="utf-8")
        appendix = text[text.index("## 📋"):] if lang == "zh" else text[text.rindex("\n## "):]
        lines = [line for line in appendix.splitlines() if line.startswith("- [#")]
        authors = {int(m.group(1)): m.group(2) for m in map(LINE.match, lines) if m}
        assert len(authors) == len(lines) == 6, lines  # every appendix line has the same shape
        assert authors == {901: "alice", 902: "ghost", 903: "ghost", 904: "ghost", 905: "ghost", 906: "ghost"}
        assert "by  " not in text and "by (" not in text and "作者  " not in text
        html = report_path(settings, DAY, f"{lang}.html").read_text(encoding="utf-8")
        # the login is untrusted text, isolated in <bdi> (issue 15)
        assert html.count("— by <bdi>ghost</bdi> (") == 5 and html.count("— by <bdi>alice</bdi> (") == 1
        assert "— by  (" not in html and "<bdi></bdi>" not in html and "<strong></strong>" not in html


def test_the_samples_deleted_accounts_are_counted_and_named(make_settings):
    """2026-03-07 of the embedded sample, at its report's own cutoff: three of its 37 closed issues are by ghost."""
    settings = make_settings(VLLM_DIGEST_CUTOFF="11:26")
    materialize(settings, "2026-03-07")
    summary = json.loads(report_path(settings, "2026-03-07", "json").read_text(encoding="utf-8"))
    assert summary["counts"]["closed_issues"] == len(summary["lists"]["closed_issues"]) == 37
    text = report_path(settings, "2026-03-07", "zh.md").read_text(encoding="utf-8")
    ghost_lines = [line for line in text.splitlines() if line.startswith("- [#") and " — by ghost (" in line]
    assert sorted(int(re.match(r"- \[#(\d+)\]", line).group(1)) for line in ghost_lines) == [28212, 28213, 28300]
    assert all("(关闭于: 2026-03-08 10:1" in line for line in ghost_lines)
