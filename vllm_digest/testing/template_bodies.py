"""The embedded sample's real days, given bodies written in vLLM's own PR and issue templates.

    python -m vllm_digest.testing.template_bodies OUT_ROOT [--sample-dir DIR] [--seed N]

The sample has no bodies (they are null), so it cannot show how a report copes with real ones.
Real bodies are mostly template: the PR template's checklist and placeholder, the bug template's
``collect_env`` dump (``ROCM used to build PyTorch: N/A`` on every NVIDIA machine), RFC headings.
This writes a copy of a sample folder whose issues and PRs carry such bodies, so the same real
titles, labels and times can be materialized with bodies (``--sample-dir OUT_ROOT``) and served by
the GitHub emulator.

Every PR gets a distinctive Purpose sentence (most with an identifier such as ``num_cached_tokens``,
whose underscores a report must keep); about one PR in twelve leaves the template's placeholder
unfilled, which is no description at all. ``purposes.json`` beside the sample maps each PR number to
its Purpose sentence (null when unfilled), so a check can look for it under the item in a report.

With ``--rich`` a described PR also gets what real descriptions hold beyond the template: a Changes (or
Modifications) list, a benchmark table in its Test Result with the sentence that says what the figures
mean, and a benchmark log in a fence that itself quotes a fence. ``substance.json`` then maps each such PR
to what its body holds (its changes, the claim sentence, the table rows), so a check can look for each in a
facts pack. The rich parts come from a second ``random.Random`` per item, so the plain bodies' bytes do not
depend on the flag.

Everything comes from one ``random.Random`` per item, seeded by (seed, number): the same seed gives
the same bytes, and an item's body does not depend on which other items the folder holds.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EMBEDDED_SAMPLE = ROOT / "vllm_digest" / "samples"
REPO_DIR = "vllm-project__vllm"
SEED = 20260318

# vLLM's .github/PULL_REQUEST_TEMPLATE.md, as contributors receive it
PR_PLACEHOLDER = ("PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS (AT THE BOTTOM) "
                  "HAVE BEEN CONSIDERED.")
PR_CHECKLIST = """---
<details>
<summary> Essential Elements of an Effective PR Description Checklist </summary>

- [ ] The purpose of the PR, such as "Fix some issue (link existing issues this PR will resolve)".
- [ ] The test plan, such as providing test command.
- [ ] The test results, such as pasting the results comparison before and after, or e2e results
- [ ] (Optional) The necessary documentation update, such as updating `supported_models.md` and `examples` for a new model.
- [ ] (Optional) Release notes update. If your change is user facing, please update the release notes draft in the [Google Doc](https://docs.google.com/document/d/1YyVqrgX4gHTtrstbq8oWUImOyPCKSGnJ7xtTpmXzlRs/edit?tab=t.0).
</details>

**BEFORE SUBMITTING, PLEASE READ <https://docs.vllm.ai/en/latest/contributing>** (anything written below this line will be removed by GitHub Actions)
"""

# the bug template's environment section: the same dump on every machine, ROCm line included
ENV_DUMP = """### Your current environment

<details>
<summary>The output of <code>python collect_env.py</code></summary>

```text
Collecting environment information...
==============================
        System Info
==============================
OS                           : Ubuntu 22.04.5 LTS (x86_64)
GCC version                  : (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
==============================
       PyTorch Info
==============================
PyTorch version              : 2.9.0+cu128
Is debug build               : False
CUDA used to build PyTorch   : 12.8
ROCM used to build PyTorch   : N/A
==============================
       CUDA / GPU Info
==============================
Is CUDA available            : True
GPU models and configuration : GPU 0: {gpu}
Nvidia driver version        : 570.133.20
HIP runtime version          : N/A
MIOpen runtime version       : N/A
==============================
       vLLM Info
==============================
vLLM Version                 : 0.17.1
vLLM Build Flags:
  CUDA Archs: Not Set; ROCm: Disabled
```

</details>
"""
BEFORE_SUBMITTING = """
### Before submitting a new issue...

- [x] Make sure you already searched for relevant issues, and asked the chatbot living at the bottom right corner of the [documentation page](https://docs.vllm.ai/en/latest/), which can answer lots of frequently asked questions.
"""

IDENTIFIERS = ["num_cached_tokens", "max_num_batched_tokens", "kv_cache_spec", "block_table", "cudagraph_mode",
               "scheduler_output", "spec_token_ids", "attn_metadata", "tool_parser", "gpu_memory_utilization",
               "expert_map", "prefix_cache_hit", "lora_request", "mm_hashes", "num_speculative_tokens"]
GPUS = ["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA B200", "NVIDIA L40S", "NVIDIA GeForce RTX 4090"]
REASONS = ["which left requests stuck under load", "so that long prompts no longer fail at startup",
           "which cost about 8% throughput on our serving benchmark", "so the feature works without extra flags",
           "which returned wrong outputs for batched requests", "so the path matches the V1 engine's behaviour",
           "which crashed the worker when the cache was full", "to remove a copy on the hot path"]
RESULT_FIGURES = ["throughput 1520 tok/s -> 1688 tok/s", "TTFT p50 212 ms -> 187 ms", "gsm8k accuracy 0.91 -> 0.91",
                  "peak memory 61.2 GiB -> 58.7 GiB", "ITL p99 41 ms -> 35 ms"]


def _subject(title: str) -> str:
    """The title without its bracketed tags and conventional prefix: what the item is about."""
    text = re.sub(r"^\s*(\[[^\]]*\]\s*:?\s*)+", "", title or "")
    text = re.sub(r"^[A-Za-z][\w/ -]{0,20}:\s+", "", text)
    return text.strip().rstrip(".") or "this path"


def purpose_sentence(number: int, title: str, rng: random.Random) -> str:
    """One PR's distinctive Purpose sentence: its subject, an identifier it touches, a reason, a marker."""
    ident = rng.choice(IDENTIFIERS)
    subject = _subject(title)
    if subject[1:2].islower():  # "Fix x" reads "fix x" mid-sentence; "FLOP counting" keeps its acronym
        subject = subject[:1].lower() + subject[1:]
    return (f"This change addresses {subject} by reworking how `{ident}` is handled, "
            f"{rng.choice(REASONS)} (change note {number}).")


def pr_body(number: int, title: str, issue_numbers: list[int], rng: random.Random,
            rich: random.Random | None = None) -> tuple[str, str | None, dict | None]:
    """A PR body in vLLM's template, its Purpose sentence (None when the placeholder is left unfilled) and, with
    ``rich`` (the item's second generator), what its rich parts hold (``rich_parts``)."""
    if rng.random() < 1 / 12:
        return (f"<!-- markdownlint-disable -->\n{PR_PLACEHOLDER}\n\n## Purpose\n\n## Test Plan\n\n"
                f"## Test Result\n\n{PR_CHECKLIST}"), None, None
    purpose = purpose_sentence(number, title, rng)
    more = " It keeps the existing behaviour for other callers." if rng.random() < 0.5 else ""
    fixes = f"\n\nFIX #{rng.choice(issue_numbers)}" if issue_numbers and rng.random() < 0.3 else ""
    plan = f"```bash\npytest tests/{rng.choice(['v1/core', 'entrypoints', 'kernels', 'models'])} -q\n```"
    result = rng.choice(RESULT_FIGURES)
    # about one PR in six mentions other hardware in passing: CI ran there, not what the PR is about
    passing = "\n\nCI passes on the NVIDIA and AMD (ROCm) pipelines." if rng.random() < 1 / 6 else ""
    sections = [("## Purpose", purpose + more + fixes), ("## Test Plan", plan),
                ("## Test Result", result + passing)]
    if rng.random() < 0.15:  # some authors reorder the sections
        sections = [sections[0], sections[2], sections[1]]
    truth = None
    if rich is not None:
        changes_md, result_md, truth = rich_parts(number, rich)
        truth["fixes"] = [int(fixes.split("#")[1])] if fixes else []
        truth["result"] = result
        sections = [(h, f"{t}\n\n{result_md}" if h == "## Test Result" else t) for h, t in sections]
        sections.insert(1, ("", changes_md))
    body = "<!-- markdownlint-disable -->\n\n" + "\n\n".join(f"{h}\n\n{t}" if h else t for h, t in sections)
    return body + "\n\n" + PR_CHECKLIST, purpose, truth


CHANGE_LINES = ["Move the `{ident}` bookkeeping out of the scheduler's hot loop",
                "Add a fast path for requests that need no `{ident}` update",
                "Keep the old code path behind a flag for one release",
                "Cover the new path in the unit tests",
                "Document the new default in the configuration guide",
                "Drop a copy of `{ident}` per step",
                "Log the chosen path once at startup"]
CONFIGS = ["TP=1, batch 8", "TP=2, batch 32", "TP=4, batch 64", "TP=8, batch 128"]


def rich_parts(number: int, rng: random.Random) -> tuple[str, str, dict]:
    """What a described PR's body holds beyond the template (``--rich``): a Changes section, and a Test Result
    with a claim sentence, a benchmark table and a fenced log; with what a parser should find in them."""
    ident = rng.choice(IDENTIFIERS)
    changes = [line.format(ident=ident) for line in rng.sample(CHANGE_LINES, rng.randint(2, 7))]
    heading = rng.choice(["## Changes", "## Modifications", "### Changes"])
    rows, low, high = [], 99, 0
    for config in rng.sample(CONFIGS, rng.randint(2, 3)):
        before = rng.randrange(900, 3000)
        gain = rng.randint(1, 12)
        low, high = min(low, gain), max(high, gain)
        rows.append((config, f"{before} tok/s", f"{before * (100 + gain) // 100} tok/s", f"+{gain}%"))
    claim = f"Throughput improves by +{low}% to {high}%, depending on the configuration."
    table = "| config | before | after | change |\n|---|---:|---:|---:|\n" + "\n".join(
        "| " + " | ".join(r) + " |" for r in rows)
    # a benchmark log that quotes a fence of its own: its inner ``` lines do not close the outer ````
    log = (f"````text\n$ vllm bench serve --num-prompts 200\n```\n(config as above)\n```\n"
           f"Mean TTFT (ms): {rng.randrange(100, 300)}.{rng.randrange(10)}\n## not a heading\n````")
    changes_md = heading + "\n\n" + "\n".join(f"- {c}" for c in changes)
    result_md = f"{claim}\n\n{table}\n\n{log}"
    truth = {"changes": changes, "claim": claim, "rows": [list(r) for r in rows], "heading": heading}
    return changes_md, result_md, truth


def issue_body(title: str, rng: random.Random) -> str:
    """An issue body in the template its title tag names: RFC, feature, or (by default) bug."""
    subject = _subject(title)
    low = (title or "").lower()
    if "[rfc]" in low:
        return (f"### Motivation.\n\n{subject} is needed because the current design does not scale "
                f"past a single node.\n\n### Proposed Change.\n\nIntroduce a small interface around "
                f"`{rng.choice(IDENTIFIERS)}` and migrate the callers in two steps.\n\n### Feedback Period.\n\n"
                f"One week.\n\n### CC List.\n\n_No response_\n\n### Any Other Things.\n\n_No response_\n"
                + BEFORE_SUBMITTING)
    if "[feature" in low:
        return (f"### 🚀 The feature, motivation and pitch\n\n{subject}: it would let users "
                f"set `{rng.choice(IDENTIFIERS)}` per request.\n\n### Alternatives\n\n_No response_\n\n"
                f"### Additional context\n\n_No response_\n" + BEFORE_SUBMITTING)
    return (ENV_DUMP.format(gpu=rng.choice(GPUS)) + f"\n### 🐛 Describe the bug\n\n{subject} when "
            f"`{rng.choice(IDENTIFIERS)}` is set.\n\n```python\nfrom vllm import LLM\nllm = LLM(model=\"Qwen/Qwen3-8B\")\n```\n"
            + BEFORE_SUBMITTING)


def _read_jsonl(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write(out_root: Path, sample_root: Path = EMBEDDED_SAMPLE, seed: int = SEED,
          rich: bool = False) -> dict[int, str | None]:
    """Write ``out_root/vllm-project__vllm/`` (the sample with template bodies) and its purposes.json (with
    ``rich``, substance.json too); returns the PR number -> Purpose sentence map."""
    src, dst = sample_root / REPO_DIR, out_root / REPO_DIR
    if not (src / "issues.jsonl.gz").is_file():
        raise SystemExit(f"no sample at {src}: expected issues.jsonl.gz there")
    dst.mkdir(parents=True, exist_ok=True)
    for path in src.iterdir():
        if path.name != "issues.jsonl.gz" and path.is_file():
            shutil.copy2(path, dst / path.name)
    items = _read_jsonl(src / "issues.jsonl.gz")
    issue_numbers = sorted(i["number"] for i in items if "pull_request" not in i)
    purposes: dict[int, str | None] = {}
    substance: dict[int, dict] = {}
    for item in items:
        rng = random.Random(seed * 1_000_003 + item["number"])
        if "pull_request" in item:
            second = random.Random(seed * 1_000_033 + item["number"]) if rich else None
            item["body"], purposes[item["number"]], truth = pr_body(item["number"], item["title"], issue_numbers,
                                                                    rng, second)
            if truth is not None:
                substance[item["number"]] = truth
        else:
            item["body"] = issue_body(item["title"], rng)
    tmp = dst / "issues.jsonl.gz.tmp"
    with gzip.open(tmp, "wt", encoding="utf-8") as f:  # mtime in the gzip header varies; the content does not
        for item in items:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")
    tmp.replace(dst / "issues.jsonl.gz")
    (out_root / "purposes.json").write_text(
        json.dumps({str(k): v for k, v in sorted(purposes.items())}, ensure_ascii=False, indent=0) + "\n",
        encoding="utf-8")
    if rich:
        (out_root / "substance.json").write_text(
            json.dumps({str(k): v for k, v in sorted(substance.items())}, ensure_ascii=False, indent=0) + "\n",
            encoding="utf-8")
    return purposes


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vllm_digest.testing.template_bodies", description=__doc__.split("\n")[0])
    p.add_argument("out_root", type=Path, help="folder to write (it gets vllm-project__vllm/ and purposes.json)")
    p.add_argument("--sample-dir", type=Path, default=EMBEDDED_SAMPLE, help="the sample root to copy")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--rich", action="store_true", help="add Changes lists, benchmark tables and fenced logs")
    a = p.parse_args(argv)
    purposes = write(a.out_root, a.sample_dir, a.seed, a.rich)
    filled = sum(v is not None for v in purposes.values())
    print(f"wrote {a.out_root / REPO_DIR}: {len(purposes)} PRs ({filled} with a Purpose, "
          f"{len(purposes) - filled} with the placeholder unfilled)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
