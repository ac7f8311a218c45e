"""Experiment (issue 17, 🔥 topics): would a fitted item model choose the topic section's items better?

    python -m tools.editorial.topic_items [--home DIR [--reuse]] [--selections PATH] [--out FILE]

Measures, on the sample's **fit** days only (tools.editorial.editorial.SPLITS; the report days are never read), by
leave-one-day-out, the recall of the original's 🔥 picks (``cited_in_day_lists``) when the section's items are
chosen by an L2 logistic regression (tools.editorial.fit_selection.fit) over the item's explainable features
(int_selection_features) plus features of its one report topic (mart_item_topics.is_primary,
mart_topic_daily), then shown grouped by that topic the way the report must show them: at most
``max_topics`` topics (the topics with the most chosen items first), at most ``per_topic`` items each.
The candidates are the items of the day's five lists with a report topic (the only ones a topic can show).

Feature variants (VARIANTS): the base set; + label and state features (a stale/needs-rebase label, a docs/CI
label, a new issue); + an entity cluster (how many other new items of the day name the same model family,
hardware or kernel library in their title). A second, topic-level model choosing the topics (its features:
new issues and PRs, items, generic, surprise, story points, group). And one variant that keeps today's topic choice (the topics
report_topics lists) and lets the model choose only the items within them. It also prints the ceilings the
presentation imposes whatever the model: an oracle that knows the picks and may show ``max_topics`` topics of
``per_topic`` items. The pipeline does not use this script; it writes
tools/editorial/topic_items.md so the decision (adopt the model or not) is backed by figures.
"""

from __future__ import annotations

import math
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Sequence

from tools.editorial import fit_selection as fs
from tools.editorial.editorial import (EvalError, REPO, ROOT, days_in, labelled_days_args, labelled_days_parser,
                             leave_one_day_out, load_selections, materialize, write_markdown)
from vllm_digest.core.sqlmodel.run_days import load_run_days, repo_days
from vllm_digest.core.taxonomy.loader import load_taxonomy

# the item's own features, a small set: the full 34 over-fit on ~2,400 rows with ~128 positives (LOO lower)
ITEM_FEATURES = ("opened", "still_open", "is_issue", "closed_unmerged", "ready", "tag_process", "title_model",
                 "title_low_level", "title_failure")
# features of the item's one report topic
TOPIC_FEATURES = ("topic_top5", "topic_generic", "topic_surprise", "thread")
# extra features per variant (computed here from the item's labels, title and the day's new items)
VARIANTS = {
    "base": (),
    "labels": ("stale_label", "doc_ci_label", "new_issue"),
    "entity": ("entity_cluster",),
}
L2_GRID = (3.0, 30.0)
LIMITS = (15, 18)
MAX_TOPICS = (5, 6, None)  # None: no cap on topics
PER_TOPIC = (3, None)
# the topics section's longest list (the taxonomy's [selection] topic_limit, mart_topic_daily.listed's rule)
CURRENT_TOPIC_LIMIT = load_taxonomy().picks["topic_limit"]
STALE_LABELS = ("stale", "needs-rebase", "unstale")
DOC_CI_LABELS = ("documentation", "ci/build", "ci-failure")
# a named subject in a title: a model family, a hardware generation, a kernel library or format
ENTITY = re.compile(
    r"(?i)\b(qwen[\w.-]*|deepseek[\w.-]*|kimi[\w.-]*|glm[\w.-]*|minimax[\w.-]*|llama[\w.-]*|gemma[\w.-]*|"
    r"nemotron[\w.-]*|mistral[\w.-]*|gpt-oss[\w.-]*|blackwell|hopper|b200|b300|gb200|h100|h200|h20|"
    r"sm_?\d{2,3}\w?|mi\d{3}x?|gfx\d+|dgx spark|xpu|tpu|nixl|lmcache|eagle\d?|mtp|fp8|nvfp4|mxfp4|awq|gptq|"
    r"gguf|lora|flashinfer|aiter|deepgemm|cutlass|triton|mla|tool[ -]?call\w*|parser|cuda graphs?|"
    r"torch.compile|spec(ulative)? decod\w*)")

Row = tuple[str, int, dict[str, float], int, str]  # day, number, features, label, primary topic


def entities(title: str | None) -> set[str]:
    """The named subjects of a title (tags removed), normalised: 'Qwen3.5', 'sm_121', 'DGX Spark' ..."""
    bare = re.sub(r"\[[^\]]*\]", " ", title or "")
    return {m.group(0).lower().replace(" ", "").replace("_", "") for m in ENTITY.finditer(bare)}


def read_rows(con, picks: dict[str, dict[str, set[int]]], days: Sequence[str]) -> list[Row]:
    """Each fit day's candidates (five lists, with a report topic), their features and the original's label."""
    load_run_days(con, repo_days(REPO, days))
    found = con.execute("""
        WITH prim AS (
            SELECT day, number, topic_id, thread_head FROM mart_item_topics
            WHERE repo = $repo AND is_primary AND day IN (SELECT day FROM run_days)
        ),
        thread_sizes AS (SELECT day, thread_head, count(*) AS n FROM prim GROUP BY day, thread_head),
        new_items AS (
            SELECT DISTINCT day, number FROM mart_five_sets
            WHERE repo = $repo AND set_name IN ('new_prs', 'new_issues')
        )
        SELECT p.day, p.number, p.topic_id, t.surprise, t.generic, t.topic_rank, s.n,
               list({'f': f.feature, 'v': f.value}), any_value(i.labels), any_value(i.title),
               any_value(n.number IS NOT NULL)
        FROM prim AS p
        JOIN int_selection_features AS f ON f.repo = $repo AND f.day = p.day AND f.number = p.number
        JOIN mart_topic_daily AS t ON t.repo = $repo AND t.day = p.day AND t.topic_id = p.topic_id
        JOIN thread_sizes AS s ON s.day = p.day AND s.thread_head = p.thread_head
        JOIN core_items AS i ON i.repo = $repo AND i.day = p.day AND i.number = p.number
        LEFT JOIN new_items AS n ON n.day = p.day AND n.number = p.number
        GROUP BY p.day, p.number, p.topic_id, t.surprise, t.generic, t.topic_rank, s.n
        ORDER BY p.day, p.number
    """, {"repo": REPO}).fetchall()
    new_entities: dict[str, Counter] = {}
    for day, _, _, _, _, _, _, _, _, title, is_new in found:
        if is_new:
            new_entities.setdefault(day.isoformat(), Counter()).update(entities(title))
    rows = []
    for day, number, topic, surprise, generic, rank, thread_n, feats, labels, title, is_new in found:
        d = day.isoformat()
        f = {x["f"]: x["v"] for x in feats if x["f"] in ITEM_FEATURES}
        labels_lc = {label.lower() for label in labels or []}
        others = max([new_entities.get(d, Counter())[e] - int(is_new) for e in entities(title)] or [0])
        f.update({"topic_top5": float(rank is not None and rank <= 5), "topic_generic": float(bool(generic)),
                  "topic_surprise": max(-3.0, min(5.0, surprise or 0.0)), "thread": float(thread_n > 1),
                  "stale_label": float(bool(labels_lc & set(STALE_LABELS))),
                  "doc_ci_label": float(bool(labels_lc & set(DOC_CI_LABELS))),
                  "new_issue": float(bool(f.get("is_issue")) and bool(f.get("opened"))),
                  "entity_cluster": math.log1p(max(0, others))})
        rows.append((d, number, {k: v for k, v in f.items() if v}, int(number in picks[d]["topics"]), topic))
    return rows


def current_topics(con, days: Sequence[str]) -> dict[str, set[str]]:
    """The topics today's report lists each day (report_topics' rule on mart_topic_daily)."""
    load_run_days(con, repo_days(REPO, days))
    out: dict[str, set[str]] = {}
    for day, topic in con.execute(
            "SELECT day, topic_id FROM mart_topic_daily WHERE repo = $repo AND items > 0 "
            "AND day IN (SELECT day FROM run_days) AND topic_rank <= $limit "
            "AND (topic_rank <= 3 OR listable_threads > 0)",
            {"repo": REPO, "limit": CURRENT_TOPIC_LIMIT}).fetchall():
        out.setdefault(day.isoformat(), set()).add(topic)
    return out


TOPIC_MODEL_FEATURES = ("t_new_issues", "t_new_prs", "t_items", "t_generic", "t_surprise", "t_story", "t_model",
                        "t_hardware", "t_process", "t_quality", "t_rank5")


def topic_meta(con, days: Sequence[str]) -> dict[tuple[str, str], tuple]:
    """(day, topic) -> (generic, group, surprise, story points, topic_rank) from mart_topic_daily."""
    load_run_days(con, repo_days(REPO, days))
    return {(d.isoformat(), t): (g, grp, s or 0.0, sp or 0.0, rk) for d, t, g, grp, s, sp, rk in con.execute(
        "SELECT day, topic_id, generic, topic_group, surprise, story_points, topic_rank FROM mart_topic_daily "
        "WHERE repo = $repo AND day IN (SELECT day FROM run_days)",
        {"repo": REPO}).fetchall()}


def topic_rows(day_rows: Sequence[Row], day: str, meta: dict) -> list[tuple[str, str, dict, int, list[Row]]]:
    """The day's topics as rows of a topic-level model: (day, topic, features, picks in it, its items in order)."""
    groups: dict[str, list[Row]] = {}
    for r in day_rows:
        groups.setdefault(r[4], []).append(r)
    out = []
    for topic, g in groups.items():
        generic, grp, surprise, story, rank = meta[(day, topic)]
        f = {"t_new_issues": math.log1p(sum(1 for r in g if r[2].get("opened") and r[2].get("is_issue"))),
             "t_new_prs": math.log1p(sum(1 for r in g if r[2].get("opened") and not r[2].get("is_issue"))),
             "t_items": math.log1p(len(g)), "t_generic": float(bool(generic)),
             "t_surprise": max(-3.0, min(5.0, surprise)), "t_story": story,
             "t_model": float(grp == "model"), "t_hardware": float(grp == "hardware"),
             "t_process": float(grp == "process"), "t_quality": float(grp == "quality"),
             "t_rank5": float(rank is not None and rank <= 5)}
        out.append((day, topic, {k: v for k, v in f.items() if v}, sum(r[3] for r in g), g))
    return out


def measure_topic_model(rows: Sequence[Row], days: Sequence[str], meta: dict) -> dict:
    """LOO with a second, topic-level logistic model (label: the topic holds >= `need` picks) choosing the
    topics, the base item model choosing 3 items in each: (l2 of the topic model, "topic model >= need",
    max_topics, 3) -> (hits, shown)."""
    item_features = ITEM_FEATURES + TOPIC_FEATURES
    rows = _only(rows, item_features)
    saved = fs.FEATURES
    out: dict = {}
    try:
        for need in (1, 2):
            for l2 in L2_GRID:
                for train, test in leave_one_day_out(days):
                    fs.FEATURES = item_features
                    bias, weights = fs.fit([r[:4] for r in rows if r[0] in set(train)], 3.0)
                    ranked = {d: sorted((r for r in rows if r[0] == d),
                                        key=lambda r: (-fs.score(bias, weights, r[2]), -r[1])) for d in days}
                    fs.FEATURES = TOPIC_MODEL_FEATURES
                    trained = [t for d in train for t in topic_rows(ranked[d], d, meta)]
                    tb, tw = fs.fit([(t[0], 0, t[2], int(t[3] >= need)) for t in trained], l2)
                    order = sorted(topic_rows(ranked[test], test, meta), key=lambda t: -fs.score(tb, tw, t[2]))
                    for mt in MAX_TOPICS:
                        s = [r for t in order[:mt] for r in t[4][:3]]
                        key = (l2, f"topic model >= {need}", mt, 3)
                        h, c = out.get(key, (0, 0))
                        out[key] = (h + sum(r[3] for r in s), c + len(s))
        return out
    finally:
        fs.FEATURES = saved


def shown(chosen: Sequence[Row], max_topics: int | None, per_topic: int | None) -> list[Row]:
    """The chosen items (best first) grouped by their topic as the section shows them: the topics with the
    most chosen items first (ties: the topic of the better item), ``per_topic`` items of each."""
    groups: dict[str, list[Row]] = {}
    for r in chosen:
        groups.setdefault(r[4], []).append(r)
    order = sorted(groups.values(), key=lambda g: (-len(g), chosen.index(g[0])))
    return [r for g in order[:max_topics] for r in g[:per_topic]]


def oracle(rows: Sequence[Row], day: str, max_topics: int | None, per_topic: int | None) -> int:
    """The most picks any choice can show under the caps: the topics holding the most picks."""
    per: dict[str, int] = {}
    for r in rows:
        if r[0] == day and r[3]:
            per[r[4]] = per.get(r[4], 0) + 1
    best = sorted((min(n, per_topic or n) for n in per.values()), reverse=True)
    return sum(best[:max_topics])


def _only(rows: Sequence[Row], features: Sequence[str]) -> list[Row]:
    keep = set(features)
    return [(d, n, {k: v for k, v in f.items() if k in keep}, y, t) for d, n, f, y, t in rows]


def measure(rows: Sequence[Row], days: Sequence[str], features: Sequence[str],
            topics: dict[str, set[str]] | None = None) -> dict:
    """LOO: (l2, limit, max_topics, per_topic) -> (hits, shown) summed over the held-out days. With ``topics``
    (day -> the topics listed today) the model only orders the items within those topics: key (l2, None,
    None, per_topic)."""
    rows = _only(rows, features)
    saved = fs.FEATURES
    fs.FEATURES = tuple(features)  # fit() takes its feature order from this tuple
    try:
        out: dict = {}

        def add(key, s):
            h, c = out.get(key, (0, 0))
            out[key] = (h + sum(r[3] for r in s), c + len(s))

        for l2 in L2_GRID:
            for train, test in leave_one_day_out(days):
                bias, weights = fs.fit([r[:4] for r in rows if r[0] in set(train)], l2)
                day = sorted((r for r in rows if r[0] == test),
                             key=lambda r: (-fs.score(bias, weights, r[2]), -r[1]))
                if topics is not None:
                    within = [r for r in day if r[4] in topics.get(test, set())]
                    for pt in PER_TOPIC:
                        add((l2, None, None, pt), shown(within, None, pt))
                    continue
                for limit in LIMITS:
                    for mt in MAX_TOPICS:
                        for pt in PER_TOPIC:
                            add((l2, limit, mt, pt), shown(day[:limit], mt, pt))
                # topics ranked by the expected picks of their best 3 items, 3 items each (limit "top3")
                groups: dict[str, list[Row]] = {}
                for r in day:
                    groups.setdefault(r[4], []).append(r)
                prob = lambda r: 1 / (1 + math.exp(-fs.score(bias, weights, r[2])))  # noqa: E731
                order = sorted(groups.values(), key=lambda g: -sum(prob(r) for r in g[:3]))
                for mt in MAX_TOPICS:
                    add((l2, "top3", mt, 3), [r for g in order[:mt] for r in g[:3]])
                # the item model's own ceiling: the topics holding the most picks (an oracle), the model's
                # best 3 items of each (limit "oracle topics")
                order = sorted(groups.values(), key=lambda g: -sum(r[3] for r in g))
                for mt in MAX_TOPICS:
                    add((l2, "oracle topics", mt, 3), [r for g in order[:mt] for r in g[:3]])
        return out
    finally:
        fs.FEATURES = saved


def _cap(x) -> str:
    return "any" if x is None else str(x)


def _table(out: dict, picks: int) -> list[str]:
    lines = ["| l2 | limit | topics | per topic | LOO recall | cite ratio |", "|---:|---:|---:|---:|---:|---:|"]
    for (l2, limit, mt, pt), (h, c) in sorted(out.items(), key=lambda kv: tuple(
            (1, 0, "") if x is None else (0, x, "") if isinstance(x, (int, float)) else (0, 0, x) for x in kv[0])):
        lines.append(f"| {l2:g} | {_cap(limit)} | {_cap(mt)} | {_cap(pt)} | {h / picks:.0%} | {c / picks:.2f}× |")
    return lines


def render(rows: Sequence[Row], days: Sequence[str], picks: int, results: dict[str, dict],
           within: dict, topic_model: dict) -> str:
    base = ITEM_FEATURES + TOPIC_FEATURES
    lines = [
        "# 🔥 topics: items chosen by a fitted model, then grouped by topic (experiment)",
        "",
        "`python -m tools.editorial.topic_items`: leave-one-day-out over the **fit** days "
        f"({days[0]} … {days[-1]}, {len(days)} days; the report days are not read). {len(rows)} candidates "
        f"(five-list items with a report topic), {sum(r[3] for r in rows)} of the {picks} picks among them. "
        "Shown = the first `limit` items by score, grouped by their topic, at most `topics` topics (most chosen "
        "items first) and `per topic` items each; limit `top3` = every candidate, the topics ranked by the summed "
        "probability of their best 3 items; limit `oracle topics` = the topics holding the most picks (known from "
        "the labels: the item model's own ceiling), the model's best 3 items of each. cite ratio = items shown / picks (thread members not counted). "
        "For comparison, today's hand-weighted topics (tools/editorial/editorial.md, in-sample on these days): 34% at 1.68×.",
        "",
    ]
    for name, out in results.items():
        lines += [f"## variant {name}: {', '.join(base + VARIANTS[name])}", ""] + _table(out, picks) + [""]
    lines += ["## today's topics kept, the base model orders the items within each", ""]
    lines += _table(within, picks) + [""]
    lines += ["## a topic-level model chooses the topics, the base item model 3 items in each", "",
              f"Topic features: {', '.join(TOPIC_MODEL_FEATURES)} (t_story and t_surprise are today's ranking's "
              "own parts). The label: the topic holds at least 1 (or 2) of the day's picks.", ""]
    lines += _table(topic_model, picks) + [""]
    lines += ["## ceiling whatever the model (an oracle knowing the picks, same caps)", "",
              "| topics | per topic | recall |", "|---:|---:|---:|"]
    for mt in MAX_TOPICS:
        for pt in PER_TOPIC:
            lines.append(f"| {_cap(mt)} | {_cap(pt)} | {sum(oracle(rows, d, mt, pt) for d in days) / picks:.0%} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    import duckdb

    p = labelled_days_parser("python -m tools.editorial.topic_items", __doc__.split("\n")[0], ROOT / "tools" / "editorial" / "topic_items.md", "the warehouse")
    a = labelled_days_args(p, argv)
    try:
        picks = load_selections(a.selections)
    except EvalError as exc:
        print(f"topic_items error: {exc}", file=sys.stderr)
        return 2
    days = days_in("fit", picks)
    with tempfile.TemporaryDirectory(prefix="vllm-digest-topics-") as tmp:
        home = a.home or Path(tmp) / "home"
        if not a.reuse:
            materialize(home)
        con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
        try:
            rows = read_rows(con, picks, days)
            listed = current_topics(con, days)
            meta = topic_meta(con, days)
        finally:
            con.close()
    n_picks = sum(len(picks[d]["topics"]) for d in days)
    base = ITEM_FEATURES + TOPIC_FEATURES
    results = {name: measure(rows, days, base + extra) for name, extra in VARIANTS.items()}
    text = render(rows, days, n_picks, results, measure(rows, days, base, topics=listed),
                  measure_topic_model(rows, days, meta))
    write_markdown(a.out, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
