"""Does a CommonMark parser (markdown-it-py, with GitHub's tables) read vLLM's PR descriptions better than the
regular expressions of warehouse/bodies.py? A measurement, not part of the pipeline.

    python -m tools.editorial.body_parsers [--out DIR]

It writes the sample's bodies in vLLM's templates with their rich parts (``template_bodies --rich``: a Changes
list, a benchmark table and claim sentence, a benchmark log in a longer fence that quotes a shorter one), and
for each described PR compares what each parser finds with what the generator wrote: the sections in body
order, the Changes list, the table's rows, and whether the log's lines stay inside their fence (its
"## not a heading" line is no section, its "(config as above)" line no prose). It prints each score and the
time per body.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

from markdown_it import MarkdownIt

from vllm_digest.testing.template_bodies import REPO_DIR, write
from vllm_digest.warehouse.bodies import heading_kind, parse_body

EXPECTED_KINDS = ("purpose", "changes", "test_plan", "test_result")


def _regex(body: str) -> dict:
    parts = parse_body(body)
    return {"kinds": [k for k in parts.sections if k in EXPECTED_KINDS],
            "changes": list(parts.changes),
            "rows": sum(c.startswith("config: ") for c in parts.claims),
            "fence_kept": "config as above" not in parts.test_result and "not a heading" not in parts.text}


def _markdown_it(md: MarkdownIt, body: str) -> dict:
    tokens = md.parse(body)
    kinds: list[str] = []
    changes: list[str] = []
    rows = 0
    kind = None
    fence_kept = True
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            kind = heading_kind(tokens[i + 1].content)
            if kind in EXPECTED_KINDS and kind not in kinds:
                kinds.append(kind)
        elif tok.type == "inline" and kind == "changes" and tokens[i - 2].type == "list_item_open":
            changes.append(tok.content.replace("`", ""))
        elif tok.type == "tr_open" and kind == "test_result" and tokens[i - 1].type != "thead_open":
            rows += 1
        elif tok.type == "inline" and ("config as above" in tok.content or "not a heading" in tok.content):
            fence_kept = False
    return {"kinds": kinds, "changes": changes, "rows": rows, "fence_kept": fence_kept}


def compare(out: Path) -> dict:
    write(out, rich=True)
    truth = {int(k): v for k, v in json.loads((out / "substance.json").read_text(encoding="utf-8")).items()}
    with gzip.open(out / REPO_DIR / "issues.jsonl.gz", "rt", encoding="utf-8") as f:
        bodies = {i["number"]: i["body"] for i in map(json.loads, f) if i["number"] in truth}
    md = MarkdownIt("commonmark").enable("table")
    scores: dict[str, dict[str, int]] = {"regex": {}, "markdown-it": {}}
    times: dict[str, float] = {}
    for name, read in (("regex", _regex), ("markdown-it", lambda b: _markdown_it(md, b))):
        parse_body.cache_clear()
        start = time.perf_counter()
        found = {n: read(b) for n, b in bodies.items()}
        times[name] = (time.perf_counter() - start) * 1000 / len(bodies)
        s = scores[name]
        for n, got in found.items():
            t = truth[n]
            order = [k for k in EXPECTED_KINDS if k != "changes"]
            # the generator puts Changes after Purpose; 15% of bodies put the Test Result before the Test Plan
            s["sections"] = s.get("sections", 0) + (sorted(got["kinds"]) == sorted(EXPECTED_KINDS)
                                                    and got["kinds"][:2] == ["purpose", "changes"]
                                                    and set(order) <= set(got["kinds"]))
            s["changes"] = s.get("changes", 0) + (got["changes"][:5] == [c.replace("`", "") for c in t["changes"]][:5])
            s["table_rows"] = s.get("table_rows", 0) + (got["rows"] == len(t["rows"]))
            s["fences"] = s.get("fences", 0) + got["fence_kept"]
    return {"bodies": len(bodies), "scores": scores, "ms_per_body": {k: round(v, 3) for k, v in times.items()}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.editorial.body_parsers", description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=None, help="folder for the generated bodies (default: a temp dir)")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        result = compare(a.out or Path(tmp))
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
