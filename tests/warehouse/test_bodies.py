"""Body parsing (warehouse/bodies.py) on vLLM's real PR and issue templates and their variants:
filled, unfilled (the placeholder), sections missing or reordered, bug reports with a collect_env dump,
RFCs, and identifiers that must keep their underscores."""

from __future__ import annotations

import json

import duckdb

from vllm_digest.core.text.limits import WHAT_CHARS
from vllm_digest.testing.pipeline import materialize, report_path
from vllm_digest.warehouse.bodies import parse_body

PLACEHOLDER = "PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS (AT THE BOTTOM) HAVE BEEN CONSIDERED."
CHECKLIST = """---
<details>
<summary> Essential Elements of an Effective PR Description Checklist </summary>

- [ ] The purpose of the PR, such as "Fix some issue (link existing issues this PR will resolve)".
- [ ] The test plan, such as providing test command.
- [ ] The test results, such as pasting the results comparison before and after, or e2e results
- [ ] (Optional) The necessary documentation update, such as updating `supported_models.md` and `examples` for a new model.
- [ ] (Optional) Release notes update. If your change is user facing, please update the release notes draft in the [Google Doc](https://docs.google.com/document/d/1YyVqrgX4gHTtrstbq8oWUImOyPCKSGnJ7xtTpmXzlRs/edit?tab=t.0).
</details>

**BEFORE SUBMITTING, PLEASE READ <https://docs.vllm.ai/en/latest/contributing> (anything written below this line will be removed by GitHub Actions)**
"""


def pr_body(purpose: str = "", plan: str = "", result: str = "", placeholder: bool = True) -> str:
    head = f"<!-- markdownlint-disable -->\n{PLACEHOLDER}\n\n" if placeholder else ""
    return (f"{head}## Purpose\n{purpose}\n\n## Test Plan\n{plan}\n\n## Test Result\n{result}\n\n"
            f"## (Optional) Documentation Update\n\n{CHECKLIST}")


ENV = """<details>
<summary>The output of <code>python collect_env.py</code></summary>

```text
Collecting environment information...
PyTorch version: 2.8.0+cu128
ROCM used to build PyTorch: N/A
OS: Ubuntu 22.04.5 LTS (x86_64)
```

</details>"""
BEFORE = """### Before submitting a new issue...

- [X] Make sure you already searched for relevant issues, and asked the chatbot living at the bottom right corner of the [documentation page](https://docs.vllm.ai/en/latest/), which can answer lots of frequently asked questions."""


def test_a_filled_pr_template_gives_purpose_plan_result_figures_and_references():
    body = pr_body(
        purpose="FIX #31245\n\nThe scheduler now reports `num_cached_tokens` per request, so prefix-cache hits show "
                "in the metrics. It also renames a helper.",
        plan="```bash\npytest tests/v1/core/test_scheduler.py -k cached\n```",
        result="Before: 812 tok/s, after: 1,104 tok/s (1.36x). TTFT p50 48.2 ms -> 31.0 ms.",
    )
    parts = parse_body(body)
    assert parts.what == "The scheduler now reports num_cached_tokens per request, so prefix-cache hits show in the metrics."
    assert "num_cached_tokens" in parts.purpose and "FIX #31245" in parts.purpose
    assert parts.references == (31245,)
    assert "pytest" not in parts.test_plan  # a command block is not prose
    assert parts.figures == ("812 tok/s", "1,104 tok/s", "1.36x", "48.2 ms", "31.0 ms")
    assert "Essential" not in parts.text and "PLEASE FILL" not in parts.text and "BEFORE SUBMITTING" not in parts.text
    assert "Test Plan" not in parts.text and "812" not in parts.text  # the results are not what it is about


def test_the_unfilled_template_is_no_description():
    parts = parse_body(pr_body())
    assert parts.what == "" and parts.purpose == "" and parts.text == "" and not parts.has_description
    # the placeholder alone, or with the checklist ticked, says nothing either
    assert parse_body(PLACEHOLDER).what == ""
    assert parse_body(pr_body().replace("- [ ]", "- [x]")).text == ""


def test_identifiers_keep_their_underscores_and_emphasis_goes():
    parts = parse_body(pr_body(purpose="Make **max_num_batched_tokens** honour `_get_num_new_tokens()` and __init__ "
                                       "defaults in *every* path of the _whole scheduler_."))
    assert parts.what == "Make max_num_batched_tokens honour _get_num_new_tokens() and __init__ defaults in every path of the whole scheduler."


def test_missing_and_reordered_sections():
    # only Test Plan filled: nothing says what it does
    assert parse_body(pr_body(plan="Ran the unit tests on MI300X for a while.")).what == ""
    # Test Result before Purpose, no Test Plan, no placeholder: the Purpose is still found
    body = ("## Test Result\nAll 212 tests pass in 41 s.\n\n## Purpose\nAdd a fused MoE kernel path for gfx950 "
            "so MI355X runs DeepSeek-V3 faster.\n")
    parts = parse_body(body)
    assert parts.what == "Add a fused MoE kernel path for gfx950 so MI355X runs DeepSeek-V3 faster."
    assert parts.figures == ("41 s",)
    # no template at all: the first sentence of the prose
    assert parse_body("Bump the ROCm base image to 7.0.\nThis also drops gfx908.").what == "Bump the ROCm base image to 7.0."
    # a Purpose written after the placeholder line without any heading
    assert parse_body(f"{PLACEHOLDER}\nRemoves the dead code path in the block manager.").what == (
        "Removes the dead code path in the block manager.")
    # "Purpose:" on one line, in bold
    assert parse_body("**Purpose:** Speed up the tokenizer warm-up by caching the vocab.\n\n**Test Plan:** CI").what == (
        "Speed up the tokenizer warm-up by caching the vocab.")


def test_a_purpose_of_only_references_falls_to_its_next_sentence():
    parts = parse_body(pr_body(purpose="Closes #100, #101 and https://github.com/vllm-project/vllm/issues/102\n\n"
                                       "Guard the KV transfer against an empty block table."))
    assert parts.what == "Guard the KV transfer against an empty block table."
    assert parts.references == (100, 101, 102)


def test_a_line_of_run_together_references_is_read_at_once():
    # references written without spaces between them could be split in exponentially many ways by the "only
    # references" rule: 16 of them took 7 s, 18 a minute; the line is read once, and it is a reference line
    refs = "https://github.com/vllm-project/vllm/issues/1" * 18
    parts = parse_body(pr_body(purpose=f"{refs}\n\nGuard the KV transfer against an empty block table."))
    assert parts.what == "Guard the KV transfer against an empty block table."
    # the same line with a word after it is not only references: it is the what (cut at 300 characters)
    parts = parse_body(pr_body(purpose=f"{refs} x\n\nGuard the KV transfer against an empty block table."))
    assert parts.what == refs[:WHAT_CHARS - 1] + "…"


def test_sentence_cut_skips_abbreviations_and_versions():
    what = parse_body(pr_body(purpose="Support e.g. Qwen3 v0.11.2 checkpoints in the loader. Second sentence.")).what
    assert what == "Support e.g. Qwen3 v0.11.2 checkpoints in the loader."
    long = "Word " * 80
    cut = parse_body(pr_body(purpose=long)).what
    assert len(cut) <= WHAT_CHARS and cut.endswith("…") and not cut.endswith(" …")


def test_a_bug_report_keeps_the_bug_and_drops_the_environment():
    body = (f"### Your current environment\n\n{ENV}\n\n### 🐛 Describe the bug\n\nServing Llama-3 with "
            f"`enable_prefix_caching=True` crashes after 2 requests.\n\n```\nTraceback ...\n```\n\n{BEFORE}")
    parts = parse_body(body)
    assert parts.what == "Serving Llama-3 with enable_prefix_caching=True crashes after 2 requests."
    assert "ROCM" not in parts.text and "PyTorch" not in parts.text and "Make sure" not in parts.text
    assert "Traceback" not in parts.text


def test_an_environment_pasted_outside_details_is_dropped_too():
    body = ("### Your current environment\n\n```\nROCM used to build PyTorch: N/A\n```\n\n### 🐛 Describe the bug\n\n"
            "The sampler returns NaN logits.\n\n```text\nCollecting environment information...\nROCM used to build PyTorch: N/A\n```")
    parts = parse_body(body)
    assert "ROCM" not in parts.text and parts.what == "The sampler returns NaN logits."


def test_an_rfc_keeps_motivation_and_proposed_change():
    body = ("### Motivation.\n\nThe v0 engine is gone and its flags confuse users.\n\n### Proposed Change.\n\n"
            "Remove the `VLLM_USE_V1` flag in two releases.\n\n### Feedback Period.\n\nTwo weeks.\n\n### CC List.\n\n"
            "@someone\n\n### Any Other Things.\n\n_No response_\n\n" + BEFORE)
    parts = parse_body(body)
    assert parts.what == "The v0 engine is gone and its flags confuse users."
    assert "Remove the VLLM_USE_V1 flag" in parts.purpose and "VLLM_USE_V1" in parts.text
    assert "Two weeks" not in parts.text and "@someone" not in parts.text


def test_a_proposed_change_alone_is_the_what():
    body = "### Motivation.\n\n_No response_\n\n### Proposed Change.\n\nShard the expert weights across 8 ranks by default."
    assert parse_body(body).what == "Shard the expert weights across 8 ranks by default."


def test_a_feature_request_and_an_html_comment():
    body = ("<!-- Please describe the feature -->\n### 🚀 The feature, motivation and pitch\n\nAllow "
            "`--max-model-len auto` to size the context from free memory.\n\n### Alternatives\n\n_No response_")
    assert parse_body(body).what == "Allow --max-model-len auto to size the context from free memory."
    assert "Please describe" not in parse_body(body).text


def test_a_large_adversarial_body_is_parsed_whole():
    # what made the underscore-phrase regex backtrack, quadratic in a line's length: a lone underscore before a
    # 64 KB line of words (31 s to parse), with a long closed phrase, underscore runs and "_a " patterns
    what = "Keep num_cached_tokens and the fast path intact in __init__."
    closed = "_" + "c d " * 2000 + "end_"
    unclosed = "_" + "a b " * 16384
    runs = ("_" * 7 + " x ") * 1000
    pattern = "_a " * 2000
    body = pr_body(purpose=f"Keep num_cached_tokens and the _fast path_ intact in __init__.\n\n{closed}",
                   plan=unclosed, result=f"{runs}\n\n{pattern}")
    assert len(unclosed) > 64 * 1024

    def clip(text: str) -> str:  # a section is kept to 4,000 characters
        return text[:3999].rstrip() + "…"

    parts = parse_body(body)
    assert parts.what == what
    # the closed phrase loses its markers; the unclosed underscore, the runs and the "_a " stay as written
    assert parts.purpose == clip(f"{what}\n" + "c d " * 2000 + "end")
    assert parts.test_plan == clip(unclosed.strip())
    assert parts.test_result == clip(runs.strip())
    assert parts.figures == () and parts.references == ()


def test_long_lines_of_headings_and_initials_are_read_whole():
    # a heading line padded with blanks (11 s for 64 KB) and a line of initials, each of which is tried as a
    # sentence's end (18 s): both were read once per position of the line
    body = "# Summary" + " " * 65536 + "#\n" + "A. " * 21000
    parts = parse_body(body)
    assert parts.sections == ("purpose",)
    # no sentence ends (every "A." is an initial): cut at the last word before 300 characters
    assert parts.what == "A. " * 98 + "A.…" and len(parts.what) < WHAT_CHARS
    assert parts.purpose == ("A. " * 21000)[:3999].rstrip() + "…"
    # the initial rule still holds: "J. Smith." is one sentence, its end after "Smith."
    assert parse_body("## Purpose\nReviewed by J. Smith. Then merged.").what == "Reviewed by J. Smith."


UNCLOSED = ("[a ", "![a ", "[a](x ", "<a ", "<details ", "{{ ", "{% ")


def test_long_runs_of_unclosed_markup_are_kept_as_written():
    # a link, image, tag, <details> or template mark that never closes is text; a 64 KB run of them was tried
    # again from each opening to the line's end (7 to 18 s)
    from vllm_digest.core.text.gist import excerpt
    what = "Keep the fast path and this intact."
    for run in UNCLOSED:
        line = (run * (65536 // len(run))).strip()
        parts = parse_body(f"## Purpose\nKeep the [fast path](https://x.y) and <b>this</b> {{{{ x }}}} intact.\n\n{line}")
        assert parts.what == what, run
        assert parts.purpose == f"{what}\n{line}"[:3999].rstrip() + "…", run
        # the 💬 excerpt of a comment that is such a run
        assert excerpt(line) == line[:119].rstrip() + "…", run


def test_empty_and_none():
    assert parse_body(None) == parse_body("") == parse_body("  \n ")
    assert not parse_body(None).has_description


# --- through the graph: core_item_texts is landed and the report shows the what, never the placeholder -----

FILLED_PURPOSE = "Expose num_cached_tokens in the ROCm attention metadata so prefix hits are counted."


def _item(number: int, title: str, body: str, merged: bool, label: str = "rocm") -> dict:
    return {
        "number": number, "title": title, "user": {"login": f"dev{number}", "type": "User"},
        "labels": [{"name": label}], "state": "closed" if merged else "open",
        "created_at": "2026-03-22T05:00:00Z", "updated_at": "2026-03-22T07:00:00Z",
        "closed_at": "2026-03-22T07:00:00Z" if merged else None, "comments": 0,
        "pull_request": {"merged_at": "2026-03-22T07:00:00Z" if merged else None}, "body": body,
    }


def _write_template_sample(root):
    folder = root / "vllm-project__vllm"
    folder.mkdir(parents=True)
    items = [
        _item(801, "[ROCm] Count cached tokens",
              pr_body(purpose=f"FIX #700\n\n{FILLED_PURPOSE}", result="Hit rate 0% -> 41.5%."), True),
        _item(802, "[ROCm] Unfilled template", pr_body(), False),
        _item(803, "[ROCm] Environment only", f"### Your current environment\n\n{ENV}\n\n{BEFORE}", False),
        # a bug report whose only AMD word is in its environment dump ("ROCM used to build PyTorch: N/A")
        {**_item(804, "[Bug] Sampler returns NaN logits", f"### Your current environment\n\n{ENV}\n\n### 🐛 Describe "
                 "the bug\n\nThe sampler returns NaN logits with top_p below 0.1.\n\n" + BEFORE, False, "bug"),
         "pull_request": None},
    ]
    (folder / "issues.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    (folder / "events.jsonl").write_text("")
    (folder / "comments.jsonl").write_text("")
    (folder / "coverage.json").write_text(json.dumps({"start": "2026-03-20T00:00:00Z", "end": "2026-03-25T00:00:00Z"}))


def test_the_report_shows_what_an_item_does_and_never_the_placeholder(make_settings, tmp_path):
    _write_template_sample(tmp_path / "sample")
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "sample"))
    materialize(settings, "2026-03-22")
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        rows = {r[0]: r[1:] for r in con.execute(
            "SELECT number, has_description, what, referenced_items, result_figures, meaningful_text "
            "FROM core_item_texts WHERE day = DATE '2026-03-22' ORDER BY number").fetchall()}
    assert rows[801][:4] == (True, FILLED_PURPOSE, [700], ["0%", "41.5%"])
    assert rows[802][:3] == (False, "", []) and rows[803][:2] == (False, "")
    assert "ROCM used to build" not in rows[803][4]
    assert rows[804][:2] == (True, "The sampler returns NaN logits with top_p below 0.1.")
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        focus = [n for (n,) in con.execute("SELECT number FROM mart_focus_items ORDER BY number").fetchall()]
        topics = dict(con.execute("SELECT number, list_sort(list(topic_id)) FROM mart_item_topics GROUP BY number").fetchall())
    # the environment dump makes no item AMD news; the template's words ("Test Plan", "Documentation
    # Update", "e2e results") make no item a test or docs item
    assert focus == [801, 802, 803]
    assert {n: [t for t in topics.get(n, []) if t in ("docs", "ci_build_tests", "hw_amd")] for n in (801, 802, 804)} == {
        801: ["hw_amd"], 802: ["hw_amd"], 804: []}
    for lang in ("zh", "en"):
        md = report_path(settings, "2026-03-22", f"{lang}.md").read_text(encoding="utf-8")
        focus = md.split("\n### 🎯", 1)[1].split("\n### ", 1)[0]
        line = next(x for x in focus.splitlines() if "pull/801)" in x)
        assert f"Count cached tokens — {FILLED_PURPOSE} (" in line
        assert "PLEASE FILL" not in md and "Essential Elements" not in md
        for bare in ("pull/802)", "pull/803)"):
            line = next(x for x in focus.splitlines() if bare in x)
            assert " — " not in line, line  # no description: nothing after the title
        html = report_path(settings, "2026-03-22", f"{lang}.html").read_text(encoding="utf-8")
        assert html.count(f'<span class="gist">— <bdi>{FILLED_PURPOSE}</bdi></span>') >= 1
        assert "PLEASE FILL" not in html


def test_fenced_blocks_found_line_by_line_are_the_patterns_blocks():
    # sub_fenced replaces FENCED_BLOCK's lazy scan; it must find exactly its blocks: unclosed ones running to
    # the end, a longer or indented fence, a fence with text after it (no close), \r and Unicode blanks (not
    # blanks to the pattern), an opening fence on the last line (no block), ~~~ not closing ```
    import random

    from vllm_digest.core.text.markup import FENCED_BLOCK, sub_fenced

    def mark(block: str) -> str:
        return f"<{len(block)}:{block[:4]}>"

    cases = ["a\n```py\nx\n```\nb", "```\n```", "```", "x\n```", "  ```\nx\n  ```  \ny", "```\nx\n~~~\ny",
             "~~~\nx", "````\nx\n````\n```\nz", "```\nx```\n```\r\n```", "\t~~~\n\u00a0~~~\n~~~\n", "```\n\n```\n\n"]
    rng = random.Random(7)
    pieces = ["```", "~~~", "````", "``", " ", "\t", "\r", "x", "\u00a0", "\u2028"]
    cases += ["\n".join("".join(rng.choice(pieces) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(0, 7)))
              for _ in range(3000)]
    for text in cases:
        assert sub_fenced(text, mark) == FENCED_BLOCK.sub(lambda m: mark(m.group(0)), text), repr(text)


def test_changes_claims_with_their_sentence_or_table_row_and_test_commands():
    """Issue 36.1: what the facts pack quotes beyond the purpose. A figure keeps the sentence or the table row
    that says what it means; a Changes list is its own part (its first 5 items, each whole); the Test Plan's
    command is what was run; a benchmark log in ```` that quotes a ``` block stays one code block."""
    changes = "\n".join(f"- Step {n}: move the `kv_cache_spec` bookkeeping out of the hot loop" for n in range(1, 8))
    result = ("Throughput improves by +1% to 8%, depending on the configuration. The rest is noise.\n\n"
              "| config | before | after |\n|---|---:|---:|\n| TP=2, batch 32 | 1989 tok/s | 2128 tok/s |\n"
              "| notes | n/a | n/a |\n\n"
              "````text\n$ vllm bench serve\n```\n(config as above)\n```\n## not a heading\n"
              "Mean TTFT: 187.2 ms\n````\n\ngsm8k accuracy 0.91 -> 0.93")
    body = pr_body(purpose="Speed up the scheduler, which cost about 8% throughput before.\n\n## Modifications\n\n"
                   + changes, plan="```bash\npytest tests/v1/core -q\n```", result=result, placeholder=False)
    parts = parse_body(body)
    assert parts.what == "Speed up the scheduler, which cost about 8% throughput before."
    assert parts.changes == tuple(f"Step {n}: move the kv_cache_spec bookkeeping out of the hot loop"
                                  for n in range(1, 6))
    assert "Step 1" not in parts.purpose  # the list is its own part, not the purpose's
    assert parts.claims == (
        "Throughput improves by +1% to 8%, depending on the configuration.",
        "gsm8k accuracy 0.91 -> 0.93",
        "config: TP=2, batch 32; before: 1989 tok/s; after: 2128 tok/s",
        "Mean TTFT: 187.2 ms",
        "Speed up the scheduler, which cost about 8% throughput before.",
    )
    assert parts.test_commands == ("pytest tests/v1/core -q",)
    # the log's lines stay inside its fence: no section of its own, no prose of the result
    assert "not a heading" not in parts.text and "config as above" not in parts.test_result
    assert parts.sections == ("purpose", "changes", "test_plan", "test_result", "skip")
