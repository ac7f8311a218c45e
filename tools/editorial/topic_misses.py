"""Error analysis (issue 17, 🔥 topics): where are the original's topic picks that our section misses?

    python -m tools.editorial.topic_misses [--home DIR [--reuse]] [--selections PATH] [--out FILE]

On the sample's **fit** days only (tools.editorial.editorial.SPLITS; the report days are scored only by the ``--check``
line of the points search, never chosen on), each of the original's 🔥 picks (``cited_in_day_lists``) is put in
one bucket:

- ``hit``: our 🔥 section cites it;
- ``a``: its one report topic (mart_item_topics.is_primary) is listed, but its thread is not among the
  ``shown_threads`` we show (with why: a tie in points with the last shown thread, lower points, or under the
  taxonomy's min_story);
- ``b``: its report topic is not listed (with the topic's rank: 6–8, 9–12, 13+, or a generic bucket ranked last);
- ``c``: it has no topic at all.

Each bucket is split by the kind of item the title makes it (``kind_of``: RFC, tool parser/calling,
memory/OOM, a model-specific issue, a bug fix PR ...) and by its state (issue or PR, opened in the window or not).

Then it re-scores the topic ranking's thread points ([topic_rank] of the taxonomy) over a grid, with a
simulator of mart_topic_daily's listing rule (``simulate_day``), and compares the best grid point in sample
with the same search by leave-one-day-out over the fit days: a gain that does not survive the held-out days
is the search fitting noise. The pipeline does not use this script; it writes tools/editorial/topic_misses.md.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from tools.editorial.editorial import (EvalError, REPO, ROOT, days_in, labelled_days_args, labelled_days_parser,
                             leave_one_day_out, load_selections, materialize, read_day, write_markdown)

MODEL_NAMES = r"qwen|deepseek|kimi|glm|llama|gemma|mistral|nemotron|minimax|gpt-oss"
KINDS = (  # (kind, item kind or None for both, title regex), first match wins
    ("RFC", None, r"\[rfc\]"),
    ("tool parser/calling", None, r"tool|function.call"),
    ("memory/OOM", None, r"\boom\b|out of memory|memory|leak"),
    ("model-specific issue", "issue", MODEL_NAMES),
    ("other bug report", "issue", r"\[bug\]"),
    ("other issue (feature, perf, usage)", "issue", r""),
    ("new model PR", "pr", r"\[model\]|new model|support for"),
    ("hardware PR", "pr", r"rocm|amd|xpu|tpu|cpu|nvidia|blackwell|sm_?1\d\d|spark"),
    ("bug fix PR", "pr", r"\[bugfix\]|\bfix"),
    ("other PR (feature, perf, kernel)", "pr", r""),
)
GRID = {  # the [topic_rank] points searched; every other parameter stays the taxonomy's
    "issue_points": (0.5, 1.0, 2.0, 3.0),
    "new_points": (1.0, 2.0, 3.0),
    "lead_tag_points": (0.0, 0.5, 1.0),
    "merged_penalty": (0.5, 1.0, 2.0),
    "thread_points": (0.5, 1.0, 2.0),
    "min_story": (2.0, 2.5, 3.0),
    "surprise_weight": (0.0, 0.5, 1.0),
}
MAX_RATIO = 1.75  # a grid point may cite at most this many items per pick on the training days


def kind_of(title: str | None, kind: str | None) -> str:
    """What kind of story the title makes the item (KINDS, first match); items not in the day: 'unknown'."""
    if kind is None:
        return "unknown"
    for name, only, pattern in KINDS:
        if (only is None or only == kind) and re.search(pattern, title or "", re.IGNORECASE):
            return name
    return "unknown"


def bucket(number: int, cited: set[int], topic: dict | None) -> tuple[str, str]:
    """(bucket, detail) of one pick: hit, a (listed topic, thread not shown), b (topic not listed), c (no topic).

    ``topic`` is the pick's primary topic row of mart_topic_daily (listed, topic_rank, generic,
    shown_threads, threads) or None when the item has no topic."""
    if number in cited:
        return "hit", ""
    if topic is None:
        return "c", ""
    if topic["listed"]:
        threads = topic["threads"]
        mine = next(t for t in threads if number in t["numbers"])
        last = threads[topic["shown_threads"] - 1]["points"]
        if mine["points"] == last:
            return "a", "tie in points with the last shown thread"
        return "a", "below min_story" if mine["points"] < topic["min_story"] else "lower points"
    if topic["generic"]:
        return "b", "generic topic, ranked last"
    rank = topic["topic_rank"]
    return "b", "rank 6-8" if rank <= 8 else "rank 9-12" if rank <= 12 else "rank 13+"


@dataclass(frozen=True)
class Item:
    """A primary item of the day, as mart_topic_daily's points read it."""
    number: int
    topic: str
    kind: str
    head: int
    new: bool
    closed_unmerged: bool
    merged: bool
    tags: frozenset[str]


def simulate_day(items: Sequence[Item], topics: dict[str, tuple[float | None, bool]], p: dict,
                 limit: int = 5, per_topic: int = 3, minimum: int = 3) -> set[int]:
    """The numbers our 🔥 section would show under thread points ``p``: mart_topic_daily's rule, in Python.

    topics: topic -> (surprise, generic). Thread points = its best item's + thread_points when it holds an
    issue and a PR; a topic's score = surprise_weight x surprise + its best 3 listable threads' points;
    rank: topics with a listable thread first, generic ones (surprise < generic_unusual_z) after the
    specific, then score, then id; listed: the first ``minimum``, then up to ``limit`` with a listable thread;
    shown: its listable threads up to ``per_topic``, at least its best one."""
    threads: dict[tuple[str, int], dict] = defaultdict(lambda: {"numbers": [], "best": None, "kinds": set()})
    for it in items:
        pts = ((p["issue_points"] if it.kind == "issue" else 0) + (p["new_points"] if it.new else 0)
               + (p["proposal_points"] if it.tags & set(p["proposal_tags"]) else 0)
               + (p["lead_tag_points"] if it.tags & set(p["lead_tags"]) else 0)
               - (p["minor_tag_penalty"] if it.tags & set(p["minor_tags"]) else 0)
               - (p["closed_penalty"] if it.closed_unmerged else 0) - (p["merged_penalty"] if it.merged else 0))
        t = threads[(it.topic, it.head)]
        t["numbers"].append(it.number)
        t["best"] = pts if t["best"] is None else max(t["best"], pts)
        t["kinds"].add(it.kind)
    by_topic: dict[str, list[tuple[float, int, list[int]]]] = defaultdict(list)
    for (topic, head), t in threads.items():
        by_topic[topic].append((t["best"] + (p["thread_points"] if len(t["kinds"]) == 2 else 0), head, t["numbers"]))
    ranked = []
    for topic, ths in by_topic.items():
        ths.sort(key=lambda t: (-t[0], -t[1]))
        listable = [t for t in ths if t[0] >= p["min_story"]]
        surprise, generic = topics[topic]
        score = p["surprise_weight"] * (surprise or 0) + sum(t[0] for t in listable[:3])
        ranked.append(((not listable, generic and (surprise or 0) < p["generic_unusual_z"], -score, topic),
                       ths, listable))
    ranked.sort(key=lambda r: r[0])
    shown: set[int] = set()
    for i, (_, ths, listable) in enumerate(ranked[:limit]):
        if i >= minimum and not listable:
            break
        for t in (listable or ths)[:max(min(len(listable), per_topic), 1)]:
            shown.update(t[2])
    return shown


def read_days(con, home: Path, days: Sequence[str]) -> dict:
    """Per day: its five lists' items, its primary items (Item) and its topics' (surprise, generic)."""
    out = {}
    for day in days:
        lists = json.loads((home / "reports" / REPO / f"{day}.json").read_text(encoding="utf-8"))["lists"]
        rows = con.execute(
            """SELECT it.number, it.topic_id, it.kind, it.thread_head, coalesce(h.opened_in_window, false),
                      coalesce(h.closed_in_window AND NOT h.merged_in_window, false),
                      coalesce(h.merged_in_window, false),
                      coalesce((SELECT list(lower(f.value)) FROM int_item_features AS f
                                WHERE f.repo = it.repo AND f.day = it.day AND f.number = it.number
                                  AND f.kind = 'tag'), [])
               FROM mart_item_topics AS it
               LEFT JOIN mart_item_hotness AS h ON h.repo = it.repo AND h.day = it.day AND h.number = it.number
               WHERE it.repo = ? AND it.day = ? AND it.is_primary ORDER BY it.number""", [REPO, day]).fetchall()
        items = [Item(n, t, k, h, bool(o), bool(c), bool(m), frozenset(tags)) for n, t, k, h, o, c, m, tags in rows]
        topics = {t: (s, bool(g)) for t, s, g in con.execute(
            "SELECT topic_id, surprise, generic FROM mart_topic_daily WHERE repo = ? AND day = ?", [REPO, day]).fetchall()}
        out[day] = ({int(n) for v in lists.values() for n in v}, items, topics)
    return out


def breakdown(con, home: Path, picks: dict, days: Sequence[str], min_story: float) -> tuple[Counter, list]:
    counts: Counter = Counter()
    misses = []
    for day in days:
        cited = read_day(home / "reports" / REPO, day, "zh").cited["topics"]
        topic_rows = {}
        for r in con.execute("""SELECT topic_id, listed, topic_rank, generic, shown_threads, threads
                                FROM mart_topic_daily WHERE repo = ? AND day = ?""", [REPO, day]).fetchall():
            topic_rows[r[0]] = dict(listed=r[1], topic_rank=r[2], generic=r[3], shown_threads=r[4], threads=r[5],
                                    min_story=min_story)
        new = {r[0] for r in con.execute("SELECT number FROM mart_item_hotness WHERE repo = ? AND day = ? "
                                         "AND opened_in_window", [REPO, day]).fetchall()}
        for n in sorted(picks[day]["topics"]):
            info = con.execute("SELECT kind, title FROM core_items WHERE repo = ? AND day = ? AND number = ?",
                               [REPO, day, n]).fetchone()
            kind, title = info if info else (None, None)
            primary = con.execute("SELECT topic_id FROM mart_item_topics WHERE repo = ? AND day = ? AND number = ? "
                                  "AND is_primary", [REPO, day, n]).fetchone()
            b, detail = bucket(n, cited, topic_rows[primary[0]] if primary else None)
            counts[(b, "total")] += 1
            counts[(b, "kind", kind_of(title, kind))] += 1
            counts[(b, "state", f"{kind or 'not in the day'}, {'opened' if n in new else 'older'}")] += 1
            if detail:
                counts[(b, "why", detail)] += 1
            if b != "hit":
                misses.append((day, n, b, detail, title))
    return counts, misses


def search(data: dict, picks: dict, days: Sequence[str], base: dict) -> tuple[list[dict], dict]:
    """Every grid point's (hits, picks, cited) per day: {index: {day: (h, p, c)}}, index 0 = the taxonomy's."""
    points = [dict(base)] + [dict(base, **dict(zip(GRID, values))) for values in itertools.product(*GRID.values())]
    per = {}
    for i, p in enumerate(points):
        per[i] = {}
        for day in days:
            day_items, items, topics = data[day]
            shown = simulate_day(items, topics, p)
            per[i][day] = (len(picks[day]["topics"] & shown), len(picks[day]["topics"]), len(shown & day_items))
    return points, per


def best_point(per: dict, days: Sequence[str]) -> int:
    """The grid point with the most hits over ``days`` citing at most MAX_RATIO x the picks (fewest cited,
    then the lowest index, on a tie)."""
    def key(i):
        h, p, c = (sum(per[i][d][k] for d in days) for k in range(3))
        return (h if p and c / p <= MAX_RATIO else -1, -c, -i)
    return max(per, key=key)


def _fmt(h: int, p: int, c: int) -> str:
    return f"{h}/{p} = {h / p:.0%} at {c / p:.2f}×" if p else "–"


def render(counts: Counter, misses: list, days: Sequence[str], points: list[dict], per: dict,
           check: dict | None) -> str:
    total = counts[("hit", "total")] + counts[("a", "total")] + counts[("b", "total")] + counts[("c", "total")]
    names = {"hit": "hit (we cite it)", "a": "(a) listed topic, thread not shown",
             "b": "(b) topic not listed", "c": "(c) no topic"}
    out = ["# 🔥 topics: where the original's picks are that we miss (fit days)", "",
           f"`python -m tools.editorial.topic_misses`: {days[0]} … {days[-1]}, {len(days)} days, {total} picks "
           "(`cited_in_day_lists` of the original's 🔥 section). Bucket = the pick's one report topic "
           "(mart_item_topics.is_primary) against mart_topic_daily's listed / shown_threads.", "",
           "| bucket | picks | by state | by kind | why |", "|---|---:|---|---|---|"]
    for b in ("hit", "a", "b", "c"):
        def part(axis):
            rows = sorted(((k[2], v) for k, v in counts.items() if k[0] == b and k[1] == axis), key=lambda x: (-x[1], x[0]))
            return "; ".join(f"{name} {v}" for name, v in rows)
        out.append(f"| {names[b]} | {counts[(b, 'total')]} | {part('state')} | {part('kind')} | {part('why')} |")
    out += ["", "## The misses", "", "| day | item | bucket | why | title |", "|---|---:|---|---|---|"]
    for day, n, b, detail, title in misses:
        out.append(f"| {day} | #{n} | {b} | {detail} | {(title or '').replace('|', '/')[:90]} |")
    fit_h = [sum(per[0][d][k] for d in days) for k in range(3)]
    top = best_point(per, days)
    top_h = [sum(per[top][d][k] for d in days) for k in range(3)]
    loo = [0, 0, 0]
    for train, held in leave_one_day_out(days):
        i = best_point(per, train)
        loo = [a + b for a, b in zip(loo, per[i][held])]
    changed = {k: v for k, v in points[top].items() if points[0][k] != v}
    out += ["", "## Thread points searched ([topic_rank])", "",
            f"{len(points) - 1} grid points over {', '.join(GRID)}; each day's shown topics and threads simulated "
            "(`simulate_day`, mart_topic_daily's rule; the taxonomy's own points reproduce the section's figures).", "",
            "| | fit days |", "|---|---:|",
            f"| the taxonomy's points | {_fmt(*fit_h)} |",
            f"| best grid point, in sample ({changed}) | {_fmt(*top_h)} |",
            f"| the same search, leave-one-day-out | {_fmt(*loo)} |"]
    if check is not None:
        out.append(f"| check, report days: taxonomy / in-sample best | {_fmt(*check['base'])} / {_fmt(*check['top'])} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    import tomllib

    import duckdb

    p = labelled_days_parser("python -m tools.editorial.topic_misses", __doc__.split("\n")[0],
                             ROOT / "tools" / "editorial" / "topic_misses.md", "the warehouse and reports")
    p.add_argument("--check", action="store_true", help="also score the taxonomy's and the in-sample best points "
                   "on the report days (a check only: nothing is chosen on them)")
    a = labelled_days_args(p, argv)
    try:
        picks = load_selections(a.selections)
    except EvalError as exc:
        print(f"topic_misses error: {exc}", file=sys.stderr)
        return 2
    days = days_in("fit", picks)
    rank = tomllib.loads((ROOT / "vllm_digest" / "taxonomy" / "vllm.toml").read_text(encoding="utf-8"))["topic_rank"]
    base = {k: (v if isinstance(v, list) else float(v)) for k, v in rank.items()}
    with tempfile.TemporaryDirectory(prefix="vllm-digest-misses-") as tmp:
        home = a.home or Path(tmp) / "home"
        if not a.reuse:
            materialize(home)
        con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
        try:
            counts, misses = breakdown(con, home, picks, days, base["min_story"])
            data = read_days(con, home, days)
            points, per = search(data, picks, days, base)
            check = None
            if a.check:
                report_days = days_in("report", picks)
                rdata = read_days(con, home, report_days)
                top = points[best_point(per, days)]
                check = {}
                for name, pt in (("base", base), ("top", top)):
                    tot = [0, 0, 0]
                    for d in report_days:
                        shown = simulate_day(rdata[d][1], rdata[d][2], pt)
                        got = (len(picks[d]["topics"] & shown), len(picks[d]["topics"]), len(shown & rdata[d][0]))
                        tot = [x + y for x, y in zip(tot, got)]
                    check[name] = tot
        finally:
            con.close()
    text = render(counts, misses, days, points, per, check)
    write_markdown(a.out, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
