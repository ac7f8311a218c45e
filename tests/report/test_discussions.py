"""💬 digests a thread (participants, maintainers by author_association, time to first response, one excerpt
per side that actually spoke, the maintainers' latest among them) and 🛠️ shows review verdicts and who gave
them; no side is invented for a thread where only the author spoke."""

from __future__ import annotations

import json

from vllm_digest.testing.pipeline import materialize, report_path

API = "https://api.github.com/repos/vllm-project/vllm"
DAY = "2026-03-22"


def _comment(i: int, number: int, login: str, assoc: str, at: str, body: str, kind: str = "User") -> dict:
    return {"id": i, "issue_url": f"{API}/issues/{number}", "user": {"login": login, "type": kind},
            "author_association": assoc, "created_at": at, "updated_at": at, "body": body}


def _review(i: int, number: int, login: str, assoc: str, at: str, state: str, body: str = "") -> dict:
    return {"id": i, "pull_request_url": f"{API}/pulls/{number}", "user": {"login": login, "type": "User"},
            "author_association": assoc, "state": state, "submitted_at": at, "body": body}


def _write_sample(root):
    folder = root / "vllm-project__vllm"
    folder.mkdir(parents=True)
    base = {"labels": [], "comments": 5, "created_at": "2026-03-22T05:00:00Z", "updated_at": "2026-03-22T10:00:00Z"}
    items = [
        {**base, "number": 901, "title": "[Core] Rework the prefix cache accounting", "state": "closed",
         "closed_at": "2026-03-22T10:00:00Z", "user": {"login": "alice", "type": "User"},
         "author_association": "CONTRIBUTOR", "pull_request": {"merged_at": "2026-03-22T10:00:00Z"},
         "body": "## Purpose\n\nCount `num_cached_tokens` once per request in the scheduler.\n"},
        {**base, "number": 902, "title": "[Bug] Sampler returns NaN", "state": "open", "closed_at": None,
         "comments": 2, "user": {"login": "frank", "type": "User"}, "author_association": "NONE", "body": None},
    ]
    comments = [
        _comment(1, 901, "bob", "MEMBER", "2026-03-22T06:30:00Z", "This breaks the prefix cache path for hybrid models."),
        _comment(2, 901, "carol", "NONE", "2026-03-22T07:00:00Z", "I see the same regression on H100 with Llama."),
        _comment(3, 901, "alice", "CONTRIBUTOR", "2026-03-22T08:00:00Z", "Fixed the prefix cache path in the latest push."),
        _comment(4, 901, "mergify[bot]", "NONE", "2026-03-22T08:10:00Z", "This pull request has merge conflicts.", "Bot"),
        _comment(5, 901, "bob", "MEMBER", "2026-03-22T09:00:00Z", "Looks good now, the hybrid path is covered."),
        _comment(6, 902, "frank", "NONE", "2026-03-22T06:00:00Z", "Also happens with top_p below 0.1 on every run."),
        _comment(7, 902, "frank", "NONE", "2026-03-22T07:00:00Z", "And with temperature zero, on both GPUs I have."),
    ]
    reviews = [
        _review(11, 901, "dave", "COLLABORATOR", "2026-03-22T08:30:00Z", "CHANGES_REQUESTED"),
        _review(12, 901, "bob", "MEMBER", "2026-03-22T09:05:00Z", "APPROVED"),
        _review(13, 901, "dave", "COLLABORATOR", "2026-03-22T09:30:00Z", "APPROVED"),
        _review(14, 901, "erin", "CONTRIBUTOR", "2026-03-22T09:40:00Z", "CHANGES_REQUESTED"),
    ]
    for name, rows in (("issues", items), ("comments", comments), ("reviews", reviews), ("events", [])):
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "coverage.json").write_text(json.dumps({"start": "2026-03-20T00:00:00Z", "end": "2026-03-25T00:00:00Z"}))


def _section(md: str, icon: str) -> str:
    return md.split(f"\n### {icon}", 1)[1].split("\n### ", 1)[0]


def test_threads_are_digested_by_side_and_reviews_named(make_settings, tmp_path):
    _write_sample(tmp_path / "sample")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "sample"))
    materialize(settings, DAY)
    en = report_path(settings, DAY, "en.md").read_text(encoding="utf-8")
    hot = _section(en, "💬").splitlines()
    at = next(k for k, line in enumerate(hot) if "/pull/901)" in line)
    # people's comments in the window (the bot's and the reviews left out) and the people who wrote them
    assert hot[at].endswith("(4 comments from 3 people this window · merged · maintainers: bob, dave"
                            " · first response after 1.5 h)"), hot[at]
    # one excerpt per side that spoke, in time order: the community, the author, the maintainers' latest
    assert hot[at + 1:at + 4] == [
        "  - carol: “I see the same regression on H100 with Llama.”",
        "  - alice (author): “Fixed the prefix cache path in the latest push.”",
        "  - bob (maintainer): “Looks good now, the hybrid path is covered.”",
    ]
    # only the author spoke on 902: two comments from one person are no discussion, so 💬 leaves it out
    assert not any("/issues/902)" in line for line in hot)
    key = next(line for line in _section(en, "🛠️").splitlines() if "/pull/901)" in line)
    assert key.endswith(" · approved by bob, dave · changes requested by erin)"), key
    zh = report_path(settings, DAY, "zh.md").read_text(encoding="utf-8")
    assert "  - alice（作者）: “Fixed the prefix cache path in the latest push.”" in zh
    assert " · 批准：bob、dave · 要求修改：erin)" in zh


def test_the_facts_pack_carries_the_digest_the_report_shows(make_settings, tmp_path):
    from vllm_digest.report.facts import discussions_facts
    from vllm_digest.core.calendar import windows_for_keys
    from vllm_digest.report.build import build_reports
    from vllm_digest.core.sqlmodel.resource import WarehouseResource
    _write_sample(tmp_path / "sample")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "sample"))
    materialize(settings, DAY)
    with WarehouseResource(path=str(settings.warehouse_path)).connect(read_only=True) as con:
        (day,) = build_reports(con, settings, settings.repos[0], windows_for_keys([DAY], settings))
    en = next(r for r in day if r.language == "en")
    facts = {i["number"]: i for i in discussions_facts(en, en.data, None)["items"]}
    shown = {e.number: e for s in en.sections if s.id == "discussions" for g in s.groups for e in g.items}
    assert set(facts) == set(shown) == {901}
    pr = facts[901]
    # the same excerpts as the report's 💬 lines, each with its side
    assert [(x["author"], x["side"], x["text"]) for x in pr["comment_excerpts"]] == [
        ("carol", "community", "I see the same regression on H100 with Llama."),
        ("alice", "author", "Fixed the prefix cache path in the latest push."),
        ("bob", "maintainer", "Looks good now, the hybrid path is covered."),
    ]
    for number, item in facts.items():
        assert [x["text"] for x in item["comment_excerpts"]] == [q.text for q in shown[number].quotes], number
    assert (pr["comments_in_window"], pr["participants"], pr["maintainers"], pr["first_response_hours"]) == (
        4, 3, ["bob", "dave"], 1.5)
    assert pr["latest_maintainer_comment"] == {"author": "bob", "text": "Looks good now, the hybrid path is covered."}
