"""Run the report's SQL (``sql/report_*.sql``) once for a batch of days and slice out one day.

Every ranking, topic and focus decision was already made by the marts (``warehouse/sql/mart_*.sql`` and ``analytics/sql/mart_*.sql``, with their
formulas); the report queries only read them, so the report cannot drift from the tables an analyst
inspects. Each file is one statement with its purpose on the first line; its parameters are bound.
Every value returned is raw warehouse text: the sections make it safe.
"""

from __future__ import annotations

import bisect
import datetime as dt
from typing import Callable, Sequence

import duckdb

from vllm_digest.core.sqlmodel.files import bind, read_sql
from vllm_digest.core.sqlmodel.run_days import load_run_days, repo_days

HISTORY_DAYS = 30
# mart_item_hotness: the stored parts of each score, in the order a chart stacks them
HOTNESS_PARTS = (
    "comments_points", "participants_points", "reviews_points",
    "reactions_points", "opened_points", "closed_points",
)
# report_<name>.sql reading every batch day -> whether its rows keep their `day` column. Each is ordered by
# day first and then as the per-day report needs; a per-day LIMIT is a QUALIFY over the day. A batch reads
# every day of a range run with one statement per query: per-day statements cost ~2-5 ms each (17 a day),
# most of a year-long run's report step.
QUERIES = {
    "daily_counts": True, "manifest": False, "members": True,
    "known_refs": False, "focus": False, "hotness": False, "topics": False, "topic_members": False,
    "hot_stories": False,
    "key_changes": False, "notable": False, "people": False, "activity": True, "top_authors": False,
    "stale_closed": False, "follow_ups": False, "follow_up_days": False,
}


def _numbers(rows: list[dict]) -> set[int]:
    return {r["number"] for r in rows}


def _thread_numbers(rows: list[dict]) -> set[int]:
    return {n for r in rows for n in (r["head"], *r["numbers"])}


def _shown_numbers(rows: list[dict]) -> set[int]:
    return {n for r in rows for n in r["shown"]}


# report_<name>.sql reading only the items a day's other rows name, as ($wanted_days, $wanted_numbers): query ->
# (the queries whose rows name them, numbers of such rows). Those pairs are item keys, not the run's days, so they
# are bound lists rather than run_days. A year holds ~94,000 item-days and ~142,000 comments;
# the sections and charts read ~40,000 of the items (focus, hotness, topic threads, key changes, notable: data.py)
# and the comments of ~4,000 (the hot threads and the key changes' reviews: report/sections/), so the rest, bodies
# included, is not fetched. Each is ordered by day first, like QUERIES; rows never keep their day.
NAMED_QUERIES: dict[str, tuple[tuple[str, Callable[[list[dict]], set[int]]], ...]] = {
    "items": (("focus", _numbers), ("hotness", _numbers), ("topic_members", _thread_numbers),
              ("hot_stories", _shown_numbers),
              ("key_changes", _numbers), ("notable", _numbers)),
    # the focus and notable items' too: the narrative's facts give every featured item its reviews and thread
    "comments": (("hotness", _numbers), ("key_changes", _numbers), ("focus", _numbers), ("notable", _numbers)),
    # the cited items' states, for the narrative's badges (a few per day)
    "ref_states": (("known_refs", _numbers),),
}
# history queries: every day of the batch's HISTORY_DAYS-day windows, sliced per day in Python
HISTORY_QUERIES = ("topic_history", "count_history")

# The tables the report reads: the report asset declares them as its inputs.
TABLES_READ = (
    "stg_fetch_manifest", "core_items", "core_item_texts", "core_comments", "core_people", "mart_five_sets", "mart_daily_counts",
    "mart_focus_items", "mart_item_hotness", "mart_topic_daily", "mart_item_topics",
    "mart_key_changes", "mart_notable_issues", "mart_activity_daily", "int_item_junk", "int_item_areas",
    "mart_follow_ups", "mart_hot_stories",
    # the hot discussions as mart_section_picks chose them; the topics' display names for 🛠️ and 💡
    "mart_section_picks", "ref_taxonomy_rules",
)


def rows(con: duckdb.DuckDBPyConnection, name: str, values: dict) -> list[dict]:
    """The rows of ``sql/report_<name>.sql`` as dicts, its parameters taken from ``values``."""
    sql = read_sql(f"report_{name}")
    cur = con.execute(sql, bind(sql, values))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def rows_per_day(con: duckdb.DuckDBPyConnection, name: str, values: dict,
                 keep_day: bool = False) -> dict[str, list[dict]]:
    """The rows of ``sql/report_<name>.sql``, whose ``day`` column is its grouping key, grouped by day in
    query order; each row a dict as ``rows`` makes it, without ``day`` unless ``keep_day``. Built straight
    from the fetched tuples: a year's run reads ~330,000 rows, and making each dict twice (with its day,
    then without) was a fifth of the batch's time."""
    sql = read_sql(f"report_{name}")
    cur = con.execute(sql, bind(sql, values))
    names = [d[0] for d in cur.description]
    at = names.index("day")
    kept = names if keep_day else names[:at] + names[at + 1:]
    out: dict[str, list[dict]] = {}
    keys: dict[dt.date, list[dict]] = {}  # a day's list, found by the fetched date (no isoformat per row)
    for r in cur.fetchall():
        found = keys.get(r[at])
        if found is None:
            found = keys[r[at]] = out.setdefault(r[at].isoformat(), [])
        found.append(dict(zip(kept, r if keep_day else r[:at] + r[at + 1:])))
    return out


class DayBatch:
    """Every report query, run once for a set of days; ``day(d)`` slices out one day."""

    def __init__(self, con: duckdb.DuckDBPyConnection, repo: str, days: Sequence[str], picks: dict):
        """``picks``: the taxonomy's selection parameters (``Taxonomy.picks``; the 📈 section's top_authors)."""
        ordered = sorted(set(days))
        self.days = set(ordered)
        load_run_days(con, repo_days(repo, ordered))
        values = {"repo": repo, "history_days": HISTORY_DAYS, **picks}
        self.by_query = {name: rows_per_day(con, name, values, keep) for name, keep in QUERIES.items()}
        for name, sources in NAMED_QUERIES.items():
            pairs = sorted({(day, n) for query, numbers in sources
                            for day, found in self.by_query[query].items() for n in numbers(found)})
            named = {**values, "wanted_days": [d for d, _ in pairs], "wanted_numbers": [n for _, n in pairs]}
            self.by_query[name] = rows_per_day(con, name, named)
        self.history = {name: rows(con, name, values) for name in HISTORY_QUERIES}
        # each history query is ordered by day: a day's window is a slice found by bisection (a year's
        # run compared every row with every day: 3.7 M comparisons); the filter stays for any other order
        self.history_days: dict[str, list | None] = {}
        for name, found in self.history.items():
            keys = [r["day"] for r in found]
            self.history_days[name] = keys if all(a <= b for a, b in zip(keys, keys[1:])) else None

    def day(self, day: str) -> dict[str, list[dict]]:
        if day not in self.days:
            raise KeyError(f"day {day!r} is not in this batch of {len(self.days)} days")
        out = {name: found.get(day, []) for name, found in self.by_query.items()}
        last = dt.date.fromisoformat(day)
        first = last - dt.timedelta(days=HISTORY_DAYS)
        for name, found in self.history.items():
            keys = self.history_days[name]
            if keys is not None:
                out[name] = found[bisect.bisect_right(keys, first):bisect.bisect_right(keys, last)]
            else:
                out[name] = [r for r in found if first < r["day"] <= last]
        return out
