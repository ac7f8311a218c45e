"""Issue 36.1 and 36.2: facts packs with substance, and claims that may be repeated only as their item's.

A sample day whose PRs carry rich template bodies (vllm_digest/testing/template_bodies.py ``rich``: Purpose,
a Changes list, a Test Result with a claim sentence and a benchmark table, ``FIX #N``), with a maintainer's
approval and a comment before each merge of the window, is narrated through the OpenAI emulator:

- every featured PR's pack holds its state (with the time), purpose, changes, claims and fixes wherever its
  body has them, and its reviews and thread where the window has them;
- a scripted answer that quotes a claim as its item's author's passes, and the report prints it; the same
  answer with the claim moved to another item is refused, naming whose claim it is;
- the day's prompts are measured in the metadata, and a pack past its budget loses its lowest-ranked
  items' details first, never a sentence's end.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import re
from types import SimpleNamespace

import dagster as dg
import pytest

from vllm_digest.core.i18n import load_catalog
from vllm_digest.core.text.limits import PACK_TOKENS
from vllm_digest.report.facts import TRIMMED_NOTE, fit_budget, pack_tokens
from vllm_digest.report.narrative.prompts import messages_tokens
from vllm_digest.report.narrative.validator import validate
from vllm_digest.testing.narrative_replies import claim_reply, claimed_items, grounded_reply, parse_request
from vllm_digest.testing.openai_emulator import OpenAIEmulator
from vllm_digest.testing.pipeline import materialize, report_path, settings_at
from vllm_digest.testing.template_bodies import REPO_DIR, write as write_bodies

DAY = "2026-03-22"  # with cutoff 11:39 UTC+8: [2026-03-22T03:39Z, 2026-03-23T03:39Z)
START, END = "2026-03-22T03:39:00Z", "2026-03-23T03:39:00Z"
API = "https://api.github.com/repos/vllm-project/vllm"
FEATURED = ("focus", "discussions", "key_changes", "notable")
STATES = {"merged", "open", "closed without merge", "closed"}


def _rows(path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _minutes_before(at: str, minutes: int) -> str:
    moment = dt.datetime.fromisoformat(at.replace("Z", "+00:00")) - dt.timedelta(minutes=minutes)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _with_reviews_threads_and_a_fixed_issue(folder, truth: dict[int, dict]) -> dict[int, str]:
    """Each PR merged in the day's window gets a maintainer's approval two hours before its merge, a community
    comment one hour before it (inside the window either way), and closes an issue opened that day, so its
    pack can give that issue's title and state; returns PR number -> the comment's text."""
    merged = {e["issue"]["number"]: e["created_at"] for e in _rows(folder / "events.jsonl.gz")
              if e["event"] == "merged" and START <= _minutes_before(e["created_at"], 120) < END}
    items = _rows(folder / "issues.jsonl.gz")
    opened = sorted(i["number"] for i in items if "pull_request" not in i and START <= i["created_at"] < END)
    for item in items:
        if item["number"] in merged and item["number"] in truth:
            item["body"] += f"\n\nCloses #{opened[0]}"
            truth[item["number"]]["fixes"] = list(dict.fromkeys([*truth[item["number"]]["fixes"], opened[0]]))
    with gzip.open(folder / "issues.jsonl.gz", "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(i) + "\n" for i in items)
    reviews, comments, said = [], [], {}
    for k, (number, at) in enumerate(sorted(merged.items())):
        said[number] = f"Confirmed on my machine: the fix holds for case {k}."
        reviews.append({"id": 10_000 + k, "pull_request_url": f"{API}/pulls/{number}", "state": "APPROVED",
                        "user": {"login": "maintainer-m", "type": "User"}, "author_association": "MEMBER",
                        "submitted_at": _minutes_before(at, 120), "body": "LGTM, thanks."})
        comments.append({"id": 20_000 + k, "issue_url": f"{API}/issues/{number}", "created_at": _minutes_before(at, 60),
                         "updated_at": _minutes_before(at, 60), "user": {"login": "user-c", "type": "User"},
                         "author_association": "NONE", "body": said[number]})
    for name, rows in (("reviews", reviews), ("comments", comments)):
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return said


def _responder(moved: bool):
    def answer(body: dict) -> str:
        section, lang, facts = parse_request(body)
        if section == "key_changes":
            return claim_reply(section, lang, facts, moved=moved)
        return grounded_reply(section, lang, facts)
    return answer


def _run(home, sample, moved: bool) -> SimpleNamespace:
    with OpenAIEmulator(responder=_responder(moved)) as emulator:
        settings = settings_at(home, VLLM_DIGEST_SAMPLE_DIR=str(sample),
                               VLLM_DIGEST_LLM_BASE_URL=emulator.base_url, VLLM_DIGEST_LLM_MODEL="writer",
                               VLLM_DIGEST_LLM_TIMEOUT="5")
        result = materialize(settings, DAY, instance=dg.DagsterInstance.ephemeral())
        requests = list(emulator.requests)
    event = next(e for e in result.get_asset_materialization_events() if e.asset_key.path[-1] == "daily_report")
    meta = {k: v.value for k, v in event.materialization.metadata.items() if not k.startswith("preview")}
    packs = {}
    for r in requests:
        section, lang, facts = parse_request(r.body)
        packs.setdefault((section, lang), facts)
    return SimpleNamespace(settings=settings, meta=meta, requests=requests, packs=packs)


@pytest.fixture(scope="module")
def day(tmp_path_factory):
    root = tmp_path_factory.mktemp("substance")
    purposes = write_bodies(root / "bodies", rich=True)
    truth = {int(k): v for k, v in json.loads((root / "bodies" / "substance.json").read_text("utf-8")).items()}
    said = _with_reviews_threads_and_a_fixed_issue(root / "bodies" / REPO_DIR, truth)
    attributed = _run(root / "attributed", root / "bodies", moved=False)
    moved = _run(root / "moved", root / "bodies", moved=True)
    return SimpleNamespace(purposes=purposes, truth=truth, said=said, attributed=attributed, moved=moved)


def _featured_prs(packs: dict, whole: bool = False) -> list[dict]:
    """The PRs the featuring sections' packs hold; ``whole``: only those whose details the budget left whole
    (a pack past it loses the lowest-ranked items' details first, and says so)."""
    return [i for (section, _), facts in packs.items() if section in FEATURED
            for i in facts.get("items") or [] if i["kind"] == "pr"
            and (not whole or TRIMMED_NOTE not in (facts.get("notes") or []) or "tests" in i)]


def test_every_featured_pr_pack_holds_state_purpose_changes_claims_and_fixes(day):
    prs = _featured_prs(day.attributed.packs)
    described = [i for i in _featured_prs(day.attributed.packs, whole=True) if i["number"] in day.truth]
    assert len(described) >= 10, len(described)
    for item in prs:
        assert item["state"] in STATES and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\dZ", item["state_since"]), item
    for item in described:
        truth = day.truth[item["number"]]
        purpose = day.purposes[item["number"]].replace("`", "")
        assert purpose in item.get("purpose", item.get("gist", "")), item
        assert item["changes"] == [c.replace("`", "") for c in truth["changes"]][:5], item
        assert truth["claim"] in item["claims"], item
        rows = [c for c in item["claims"] if c.startswith("config: ")]
        assert rows and all(r[0] in rows[k] and r[2] in rows[k] for k, r in enumerate(truth["rows"][:len(rows)]))
        assert [f["number"] for f in item.get("fixes", [])] == truth["fixes"], item
        for fixed in item.get("fixes", []):
            # an issue of the day comes with its title and state; one outside it is a number only
            assert ("title" in fixed) == ("state" in fixed)
        assert item["tests"]["ran"][0].startswith("pytest tests/"), item
    assert any("title" in f for i in described for f in i.get("fixes", []))


def test_a_pr_merged_in_the_window_carries_its_reviews_and_thread(day):
    (_, facts), = [(k, v) for k, v in day.attributed.packs.items() if k == ("key_changes", "en")]
    merged = [i for i in facts["items"] if i["number"] in day.said]
    assert merged, [i["number"] for i in facts["items"]]
    for item in merged:
        assert item["reviews"] == [{"reviewer": "maintainer-m", "verdict": "approved", "maintainer": True}]
        thread = item["thread"]
        assert {"login": "user-c", "role": "community"} in thread["participants"]
        assert thread["last_word_before_merge"]["text"] == day.said[item["number"]]
        assert thread["last_word_before_merge"]["maintainer"] is False


def test_an_attributed_claim_passes_and_is_printed(day):
    run = day.attributed
    assert run.meta["narrative_fallbacks"] == {}
    for lang in ("zh", "en"):
        assert run.meta["narrative_sections"][f"{lang}/key_changes"] == "llm"
        facts = run.packs[("key_changes", lang)]
        owner = claimed_items(facts)[0]
        claim = next(c for c in owner["claims"] if "#" not in c)
        md = report_path(run.settings, DAY, f"{lang}.md").read_text(encoding="utf-8")
        # the renderer puts the item's state after its #N (a badge in parentheses)
        badge = r"(?: \([^)]*\))?"
        said = {"en": rf"#{owner['number']}{badge}'s author reports",
                "zh": rf"据 #{owner['number']}{badge} ?作者报告"}[lang]
        line = next(x for x in md.splitlines() if re.search(said, x))
        assert claim.split(";")[0] in line, line


def test_the_same_claim_moved_to_another_item_is_refused(day):
    fallbacks = day.moved.meta["narrative_fallbacks"]
    for lang in ("zh", "en"):
        facts = day.moved.packs[("key_changes", lang)]
        owner = claimed_items(facts)[0]["number"]
        violations = fallbacks[f"{lang}/key_changes"]["violations"]
        # a figure two items claim names both
        whose = rf"(?:#\d+ / )*#{owner}(?: / #\d+)*"
        assert any(re.match(rf"number \S+ is {whose}'s author's claim, not #\d+'s", v) for v in violations), violations
        assert day.moved.meta["narrative_sections"][f"{lang}/key_changes"] == "deterministic"


def test_the_day_prompts_cost_is_measured(day):
    run = day.attributed
    # every request was a first request (no repair): their estimated tokens are the day's prompt cost
    assert run.meta["narrative_prompt_tokens"] == sum(messages_tokens(r.body["messages"]) for r in run.requests)
    assert run.meta["narrative_prompt_tokens_per_day"] == run.meta["narrative_prompt_tokens"] > 0
    for facts in run.packs.values():
        assert pack_tokens(facts) <= PACK_TOKENS


# --- the rule, on its own -----------------------------------------------------------------------------

PACK = {"repo": "vllm-project/vllm", "day": "2026-03-22", "items": [
    {"number": 38007, "kind": "pr", "title": "Speed up the scheduler", "state": "merged",
     "claims": ["Throughput improves by +1% to 8%, depending on the configuration."],
     "selection": {"probability": 0.5, "parts": {"ttft_p90": 0.25}}},
    {"number": 37000, "kind": "pr", "title": "Fix the tokenizer", "state": "open"},
]}


def _entry(lang: str, sentence: str) -> str:
    if lang == "zh":
        return f"1.  **PR #38007: Speed up the scheduler**\n    *   **技术解读**：{sentence}\n    *   **影响**：更快。"
    return f"1.  **PR #38007: Speed up the scheduler**\n    *   **What changed**: {sentence}\n    *   **Impact**: faster."


@pytest.mark.parametrize("lang, sentence", [
    ("en", "#38007's author reports +1% to 8% throughput, depending on the configuration."),
    ("en", "According to #38007's author, throughput improves by up to 8%."),
    ("zh", "据 #38007 作者报告，吞吐提升 1% 至 8%，视配置而定。"),
    ("en", "The model's p90 part of #38007 is small."),  # a key of the pack is a word, not a figure
])
def test_a_claim_attributed_to_its_item_passes(lang, sentence):
    assert validate(_entry(lang, sentence), "key_changes", load_catalog(lang), PACK) == []


@pytest.mark.parametrize("lang, sentence, problem", [
    ("en", "Throughput improves by up to 8%.", "number 8% is #38007's author's claim, stated as a finding"),
    ("en", "#38007 raises throughput by 8%.", "number 8% is #38007's author's claim, stated as a finding"),
    ("en", "#37000's author reports up to 8% throughput.", "number 8% is #38007's author's claim, not #37000's"),
    ("zh", "吞吐提升 8%。据 #38007 作者报告。", "number 8% is #38007's author's claim, stated as a finding"),
    ("zh", "据 #37000 作者报告，吞吐提升 8%。", "number 8% is #38007's author's claim, not #37000's"),
    ("en", "#38007's author reports 12% throughput.", "number 12% does not appear in the facts"),
])
def test_a_claim_stated_as_ours_or_moved_to_another_item_is_refused(lang, sentence, problem):
    violations = validate(_entry(lang, sentence), "key_changes", load_catalog(lang), PACK)
    assert any(v.startswith(problem) for v in violations), violations


def test_a_pack_past_its_budget_loses_the_lowest_ranked_details_first_and_no_sentence_is_cut():
    claim = "Throughput improves by +1% to 8%, depending on the configuration."
    items = [{"number": n, "kind": "pr", "title": f"Change {n}", "state": "merged", "purpose": claim * 3,
              "claims": [claim] * 4, "changes": ["Move the bookkeeping out of the hot loop"] * 5,
              "thread": {"excerpts": [{"author": "a", "side": "community", "text": claim}]}}
             for n in range(100, 130)]
    facts = {"repo": "vllm-project/vllm", "day": DAY, "items": items}
    budget = pack_tokens(facts) // 2
    fitted = fit_budget(facts, budget)
    assert pack_tokens(fitted) <= budget and TRIMMED_NOTE in fitted["notes"]
    assert [i["number"] for i in fitted["items"]] == [i["number"] for i in items]  # every item stays
    assert fitted["items"][0] == items[0]  # the top of the ranking keeps everything
    kept = [len(i) for i in fitted["items"]]
    assert kept == sorted(kept, reverse=True)  # details go from the bottom up
    for got, was in zip(fitted["items"], items):
        assert all(got[k] == was[k] for k in got)  # what stays is whole
    assert fit_budget(facts, pack_tokens(facts)) is facts
