"""Data-quality rules over (repo, day) partitions of the warehouse, as plain queries.

Each rule takes a list of days and returns an ``Outcome`` per day;
``vllm_digest.warehouse.checks`` turns outcomes into Dagster check evaluations.
A rule runs its queries once for all the days of a run: a year-long backfill asked
them day by day, 5,800 statements of ~2 ms. Keeping the rules free of Dagster lets
tests and ad-hoc scripts call them on any warehouse file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Sequence

import duckdb
from vllm_digest.core.sqlmodel.run_days import load_run_days, repo_days
from vllm_digest.core.vocabulary import SET_NAMES
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


Days = Sequence[str]
_DAYS = "repo = $repo AND day IN (SELECT day FROM run_days)"


def _params(con: duckdb.DuckDBPyConnection, repo: str, days: Days) -> dict:
    """Load the days into ``run_days`` (the one way a run's days reach SQL) and return the statement's
    parameters."""
    load_run_days(con, repo_days(repo, days))
    return {"repo": repo}


def _by_day(found: list[tuple]) -> dict[str, list[tuple]]:
    """Rows whose first column is the day (as text), grouped by it with the day dropped, order kept."""
    out: dict[str, list[tuple]] = {}
    for row in found:
        out.setdefault(row[0], []).append(row[1:])
    return out


def unique_key(con: duckdb.DuckDBPyConnection, table: str, repo: str, days: Days) -> dict[str, Outcome]:
    cols = ", ".join(UNIQUE_KEYS[table])
    dupes = _by_day(con.execute(
        f"SELECT CAST(day AS VARCHAR), {cols}, count(*) AS n FROM {table} WHERE {_DAYS} "
        f"GROUP BY day, {cols} HAVING count(*) > 1 "
        f"QUALIFY row_number() OVER (PARTITION BY day ORDER BY count(*) DESC, {cols}) <= {_SHOWN} "
        f"ORDER BY day, n DESC, {cols}",
        _params(con, repo, days),
    ).fetchall())
    counts = dict(con.execute(
        f"SELECT CAST(day AS VARCHAR), count(*) FROM {table} WHERE {_DAYS} GROUP BY day", _params(con, repo, days)
    ).fetchall())
    out = {}
    for day in days:
        rows = counts.get(day, 0)
        keys = [r[0] if len(r) == 2 else list(r[:-1]) for r in dupes.get(day, [])]
        text = (
            f"(repo, day, {cols}) is unique in {table} ({rows} rows)"
            if not keys
            else f"{table} repeats (repo, day, {cols}) for: {', '.join(map(str, keys))}"
        )
        out[day] = Outcome(not keys, text, {"rows": rows, "duplicate_keys": [str(k) for k in keys]})
    return out


def five_sets_in_core(con: duckdb.DuckDBPyConnection, repo: str, days: Days) -> dict[str, Outcome]:
    absent = _by_day(con.execute(
        f"SELECT DISTINCT CAST(s.day AS VARCHAR), s.number FROM mart_five_sets AS s WHERE s.{_DAYS} AND NOT EXISTS ("
        "  SELECT 1 FROM core_items AS i WHERE i.repo = s.repo AND i.day = s.day AND i.number = s.number"
        ") ORDER BY 1, 2",
        _params(con, repo, days),
    ).fetchall())
    out = {}
    for day in days:
        missing = [r[0] for r in absent.get(day, [])]
        text = (
            "every item of mart_five_sets is in core_items"
            if not missing
            else f"mart_five_sets lists items absent from core_items: {', '.join(map(str, missing[:_SHOWN]))}"
        )
        out[day] = Outcome(not missing, text, {"missing_numbers": missing[:_SHOWN], "missing_count": len(missing)})
    return out


def _list_lengths(con: duckdb.DuckDBPyConnection, repo: str, days: Days) -> dict[str, dict[str, list[int]]]:
    found = _by_day(con.execute(
        f"SELECT CAST(day AS VARCHAR), set_name, number FROM mart_five_sets WHERE {_DAYS} ORDER BY day, number",
        _params(con, repo, days),
    ).fetchall())
    out: dict[str, dict[str, list[int]]] = {}
    for day in days:
        lists: dict[str, list[int]] = {s: [] for s in SET_NAMES}
        for name, number in found.get(day, []):
            lists.setdefault(name, []).append(number)
        out[day] = lists
    return out


def counts_match_lists(con: duckdb.DuckDBPyConnection, repo: str, days: Days) -> dict[str, Outcome]:
    found = _by_day(con.execute(
        f"SELECT CAST(day AS VARCHAR), {', '.join(SET_NAMES)} FROM mart_daily_counts WHERE {_DAYS}",
        _params(con, repo, days),
    ).fetchall())
    all_lists = _list_lengths(con, repo, days)
    out = {}
    for day in days:
        rows = found.get(day, [])
        lengths = {s: len(all_lists[day][s]) for s in SET_NAMES}
        if len(rows) != 1:
            out[day] = Outcome(False, f"mart_daily_counts has {len(rows)} rows for the day, expected 1", {"rows": len(rows)})
            continue
        counts = dict(zip(SET_NAMES, rows[0]))
        wrong = {s: {"count": counts[s], "list_length": lengths[s]} for s in SET_NAMES if counts[s] != lengths[s]}
        text = "each count equals the length of its list" if not wrong else f"counts differ from list lengths: {wrong}"
        out[day] = Outcome(not wrong, text, {"counts": counts, "list_lengths": lengths, "mismatched": wrong})
    return out


def reconcile_totals(con: duckdb.DuckDBPyConnection, repo: str, days: Days) -> dict[str, Outcome]:
    """Where the fetch reported its own total for a set, our list must agree with it."""
    found = _by_day(con.execute(
        f"SELECT CAST(day AS VARCHAR), totals FROM stg_fetch_manifest WHERE {_DAYS}", _params(con, repo, days)
    ).fetchall())
    all_lists = _list_lengths(con, repo, days)
    return {day: _reconcile(found.get(day, [None])[0], all_lists[day]) for day in days}


def _reconcile(row: tuple | None, lists: dict[str, list[int]]) -> Outcome:
    totals = json.loads(row[0]) if row and row[0] else {}
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


def fetch_complete(con: duckdb.DuckDBPyConnection, repo: str, days: Days) -> dict[str, Outcome]:
    found = _by_day(con.execute(
        f"SELECT CAST(day AS VARCHAR), complete, incomplete_reasons FROM stg_fetch_manifest WHERE {_DAYS}",
        _params(con, repo, days),
    ).fetchall())
    out = {}
    for day in days:
        if day not in found:
            out[day] = Outcome(False, "the day has no fetch manifest", {}, warn_only=True)
            continue
        complete, reasons = bool(found[day][0][0]), list(found[day][0][1] or [])
        text = "the fetch was complete" if complete else f"the fetch was incomplete: {'; '.join(reasons) or 'no reason given'}"
        out[day] = Outcome(complete, text, {"complete": complete, "incomplete_reasons": reasons}, warn_only=True)
    return out


def cross_checked(con: duckdb.DuckDBPyConnection, repo: str, days: Days) -> dict[str, Outcome]:
    """Every item the fetch's searches found closed or merged in the window is in our list for it.

    The manifest's ``cross_check`` holds what ``is:issue closed:`` and ``is:pr is:merged merged:`` found
    (``DayPlan.cross_check``). An item of ours the search lacks is no hole (closed in the window, then
    reopened), so only the search's items missing from our lists fail the day."""
    found = _by_day(con.execute(
        f"SELECT CAST(day AS VARCHAR), cross_check FROM stg_fetch_manifest WHERE {_DAYS}", _params(con, repo, days)
    ).fetchall())
    all_lists = _list_lengths(con, repo, days)
    out = {}
    for day in days:
        if day not in found:
            out[day] = Outcome(False, "the day has no fetch manifest, so nothing was cross-checked", {}, warn_only=True)
            continue
        record = json.loads(found[day][0][0] or "{}")
        if not record.get("applied"):
            why = record.get("why") or "the landing predates the cross-check"
            out[day] = Outcome(True, f"not cross-checked: {why}", {"applied": False, "why": why})
            continue
        missing, queries, unchecked = {}, {}, {}
        for name, entry in sorted((record.get("sets") or {}).items()):
            if entry.get("applied") is False:  # a search that cannot say when (DayPlan.cross_check)
                unchecked[name] = entry.get("why") or "not applied"
                continue
            queries[name] = entry.get("query")
            absent = sorted(set(entry.get("numbers") or []) - set(all_lists[day].get(name, [])))
            if absent:
                missing[name] = absent
        if not missing:
            text = f"every item the searches found closed or merged in the window is listed ({', '.join(queries)})"
        else:
            text = "the events feed missed items the searches found in the window: " + "; ".join(
                f"{name} lacks #{', #'.join(map(str, numbers[:_SHOWN]))} ({queries[name]})"
                for name, numbers in missing.items()
            )
        text += "".join(f"; {name} not cross-checked: {why}" for name, why in unchecked.items())
        numbers = sorted({n for ns in missing.values() for n in ns})
        out[day] = Outcome(not missing, text, {"applied": True, "queries": queries, "missing": missing,
                                               "missing_numbers": numbers[:_SHOWN], "not_applied": unchecked})
    return out


def counted_from_events(con: duckdb.DuckDBPyConnection, repo: str, days: Days) -> dict[str, Outcome]:
    """Warns on a day counted from current state (snapshot semantics): expected for days past the events
    feed's reach, but its closed and merged counts differ from an events-counted day's."""
    found = _by_day(con.execute(
        f"SELECT CAST(day AS VARCHAR), semantics FROM stg_fetch_manifest WHERE {_DAYS}", _params(con, repo, days)
    ).fetchall())
    out = {}
    for day in days:
        semantics = found[day][0][0] if day in found else None
        if semantics == "snapshot":
            text = ("counted from current state (snapshot semantics), not from issue events: a closing undone "
                    "by a later reopening and a PR closed without merge, then merged later, are missing; an "
                    "issue converted to a discussion is counted")
        elif semantics is None:
            text = "the day has no fetch manifest, so how it was counted is not known"
        else:
            text = f"closings and merges counted from {semantics}"
        out[day] = Outcome(semantics == "events", text, {"semantics": semantics or "unknown"}, warn_only=True)
    return out
