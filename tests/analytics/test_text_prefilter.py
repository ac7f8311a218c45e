"""The taxonomy regexes' keyword prefilter (vllm_digest/analytics/prefilter.py) never drops a text
that DuckDB's RE2 matches: checked against real DuckDB on texts made to be awkward."""

from __future__ import annotations

import itertools
import string

import duckdb

from vllm_digest.analytics.prefilter import NONE_KNOWN, UNSAFE_CHARS, candidates, required_runs
from vllm_digest.core.taxonomy.loader import load_taxonomy


PATTERNS = [
    r"(?i)(?:\bkv[\s_-]?cache\b|\bscheduler\b)",
    r"(?i)(?:\b(?:tp|pp|dp|ep)[ =]?\d+\b|\bdp\+ep\b)",
    r"(?i)(?:\w+ReasoningParser\b)",
    r"(?i)(?:\bqwen\b|\bqwen2\.5\b|(?:\bqwen\d[\w.-]*))",
    r"(?i)-amd",
    r"\bCUDA\b",
    r"(?i)\bs\b",
    r"(?i)(?:\bgpt[\s_-]?oss\b)",
]

WORDS = ["kv", "KV", "cache", "Cache", "scheduler", "SCHEDULER", "tp", "dp", "ep", "4", "dp+ep", "qwen",
         "Qwen2.5", "qwen3-next", "MyReasoningParser", "x-amd", "CUDA", "cuda", "s", "gpt", "OSS",
         "\u017fcheduler", "\u212av", "\u0130dp", "x\u212adp", "a\u0130", "\u017f"]
GLUE = [" ", "-", "_", "", "\n", ".", "=", "\u00e9", "`"]


def _texts() -> list[str]:
    texts = []
    for a, b in itertools.product(WORDS, WORDS):
        for glue in GLUE:
            texts.append(f"{a}{glue}{b}")
    return texts


def test_required_runs_reads_the_keywords_of_each_alternative():
    assert required_runs(r"(?i)(?:\bkv[\s_-]?cache\b|\bscheduler\b)") == frozenset([
        frozenset([("kv", True, False), ("cache", False, True)]),
        frozenset([("scheduler", True, True)]),
    ])
    assert required_runs(r"(?i)(?:\w+ReasoningParser\b)") == frozenset([frozenset([("reasoningparser", False, True)])])
    # nothing known: an optional keyword, a bare class, a backreference it does not model
    assert required_runs(r"(?i)(?:foo)?\d+") == NONE_KNOWN
    assert required_runs(r"[a-z]+") == NONE_KNOWN
    assert required_runs(r"(a)\1") == NONE_KNOWN


def test_every_text_re2_matches_is_a_candidate():
    rules = PATTERNS + [r["pattern"] for r in load_taxonomy().rule_rows() if r["pattern"]]
    texts = _texts()
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT unnest($texts) AS text, unnest(range(len($texts))) AS id",
                {"texts": texts})
    needs = [required_runs(p) for p in rules]
    ids, rule_ids = candidates(((i, None, t) for i, t in enumerate(texts)), needs)
    allowed = set(zip(ids, rule_ids))
    missed, kept_out = [], 0
    for r, pattern in enumerate(rules):
        if needs[r] == NONE_KNOWN:
            continue
        matched = {i for (i,) in con.execute("SELECT id FROM t WHERE regexp_matches(text, $p)", {"p": pattern}).fetchall()}
        missed += [(pattern, texts[i]) for i in matched if (i, r) not in allowed]
        kept_out += len(texts) - len({i for i, rr in allowed if rr == r})
    assert missed == []
    assert kept_out > len(texts)  # and it does filter


def test_the_unsafe_characters_are_exactly_those_lowering_into_ascii_word_characters():
    word = set(string.ascii_lowercase + string.digits + "_")
    lowering = {chr(c) for c in range(0x80, 0x110000) if set(chr(c).lower()) & word}
    assert set(UNSAFE_CHARS) == lowering | {"\u017f"}
