"""Data-quality rules over one (repo, day) of the warehouse, as plain queries.

Each rule returns an ``Outcome``; ``vllm_digest.checks`` turns outcomes into
Dagster check evaluations. Keeping the rules free of Dagster lets tests and
ad-hoc scripts call them on any warehouse file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import duckdb

SET_NAMES = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")
# table -> the key that must be unique within a (repo, day)
UNIQUE_KEYS = {
    "core_items": ("number",),
    "core_events": ("event_key",),
    "core_comments": ("comment_key",),
    "core_people": ("login",),
}
# enough to act on in the UI without flooding the metadata panel
_SHOWN = 20


@dataclass
class Outcome:
    passed: bool
    description: str
    metadata: dict = field(default_factory=dict)
    warn_only: bool = False


def _where() -> str:
    return "repo = $repo AND day = CAST($day AS DATE)"


def unique_key(con: duckdb.DuckDBPyConnection, table: str, repo: str, day: str) -> Outcome:
    cols = ", ".join(UNIQUE_KEYS[table])
    dupes = con.execute(
        f"SELECT {cols}, count(*) AS n FROM {table} WHERE {_where()} "
        f"GROUP BY {cols} HAVING count(*) > 1 ORDER BY n DESC, {cols} LIMIT {_SHOWN}",
        {"repo": repo, "day": day},
    ).fetchall()
    rows = con.execute(f"SELECT count(*) FROM {table} WHERE {_where()}", {"repo": repo, "day": day}).fetchone()[0]
    keys = [r[0] if len(r) == 2 else list(r[:-1]) for r in dupes]
    text = (
        f"(repo, day, {cols}) is unique in {table} ({rows} rows)"
        if not dupes
        else f"{table} repeats (repo, day, {cols}) for: {', '.join(map(str, keys))}"
    )
    return Outcome(not dupes, text, {"rows": rows, "duplicate_keys": [str(k) for k in keys]})


def five_sets_in_core(con: duckdb.DuckDBPyConnection, repo: str, day: str) -> Outcome:
    missing = [
        r[0]
        for r in con.execute(
            f"SELECT DISTINCT s.number FROM mart_five_sets AS s WHERE s.{_where()} AND NOT EXISTS ("
            "  SELECT 1 FROM core_items AS i WHERE i.repo = s.repo AND i.day = s.day AND i.number = s.number"
            ") ORDER BY 1",
            {"repo": repo, "day": day},
        ).fetchall()
    ]
    text = (
        "every item of mart_five_sets is in core_items"
        if not missing
        else f"mart_five_sets lists items absent from core_items: {', '.join(map(str, missing[:_SHOWN]))}"
    )
    return Outcome(not missing, text, {"missing_numbers": missing[:_SHOWN], "missing_count": len(missing)})


def _list_lengths(con: duckdb.DuckDBPyConnection, repo: str, day: str) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {s: [] for s in SET_NAMES}
    for name, number in con.execute(
        f"SELECT set_name, number FROM mart_five_sets WHERE {_where()} ORDER BY number",
        {"repo": repo, "day": day},
    ).fetchall():
        out.setdefault(name, []).append(number)
    return out


def counts_match_lists(con: duckdb.DuckDBPyConnection, repo: str, day: str) -> Outcome:
    rows = con.execute(
        f"SELECT {', '.join(SET_NAMES)} FROM mart_daily_counts WHERE {_where()}", {"repo": repo, "day": day}
    ).fetchall()
    lists = _list_lengths(con, repo, day)
    lengths = {s: len(lists[s]) for s in SET_NAMES}
    if len(rows) != 1:
        return Outcome(False, f"mart_daily_counts has {len(rows)} rows for the day, expected 1", {"rows": len(rows)})
    counts = dict(zip(SET_NAMES, rows[0]))
    wrong = {s: {"count": counts[s], "list_length": lengths[s]} for s in SET_NAMES if counts[s] != lengths[s]}
    text = "each count equals the length of its list" if not wrong else f"counts differ from list lengths: {wrong}"
    return Outcome(not wrong, text, {"counts": counts, "list_lengths": lengths, "mismatched": wrong})


def reconcile_totals(con: duckdb.DuckDBPyConnection, repo: str, day: str) -> Outcome:
    """Where the fetch reported its own total for a set, our list must agree with it."""
    row = con.execute(f"SELECT totals FROM stg_fetch_manifest WHERE {_where()}", {"repo": repo, "day": day}).fetchone()
    totals = json.loads(row[0]) if row and row[0] else {}
    lists = _list_lengths(con, repo, day)
    compared, problems = {}, {}
    for name, reported in sorted(totals.items()):
        if name not in SET_NAMES or not isinstance(reported, dict) or "count" not in reported:
            continue
        ours = lists.get(name, [])
        entry = {"reported": reported["count"], "ours": len(ours)}
        if reported.get("numbers") is not None:
            theirs = set(reported["numbers"])
            entry["missing_numbers"] = sorted(theirs - set(ours))
            entry["unexpected_numbers"] = sorted(set(ours) - theirs)
        compared[name] = entry
        if entry["reported"] != entry["ours"] or entry.get("missing_numbers") or entry.get("unexpected_numbers"):
            problems[name] = entry
    if not compared:
        return Outcome(True, "the fetch reported no totals to reconcile against", {"compared_sets": []})
    if not problems:
        return Outcome(True, f"our lists match the reported totals of {', '.join(compared)}", {"compared": compared})
    parts = []
    for name, e in problems.items():
        part = f"{name}: reported {e['reported']}, ours {e['ours']}"
        if e.get("missing_numbers"):
            part += f"; missing #{', #'.join(map(str, e['missing_numbers'][:_SHOWN]))}"
        if e.get("unexpected_numbers"):
            part += f"; unexpected #{', #'.join(map(str, e['unexpected_numbers'][:_SHOWN]))}"
        parts.append(part)
    missing = sorted({n for e in problems.values() for n in e.get("missing_numbers", [])})
    return Outcome(False, "; ".join(parts), {"compared": compared, "mismatched": problems, "missing_numbers": missing})


def fetch_complete(con: duckdb.DuckDBPyConnection, repo: str, day: str) -> Outcome:
    row = con.execute(
        f"SELECT complete, incomplete_reasons FROM stg_fetch_manifest WHERE {_where()}", {"repo": repo, "day": day}
    ).fetchone()
    if row is None:
        return Outcome(False, "the day has no fetch manifest", {}, warn_only=True)
    complete, reasons = bool(row[0]), list(row[1] or [])
    text = "the fetch was complete" if complete else f"the fetch was incomplete: {'; '.join(reasons) or 'no reason given'}"
    return Outcome(complete, text, {"complete": complete, "incomplete_reasons": reasons}, warn_only=True)
