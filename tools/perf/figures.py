"""The benchmark figures. Each materialization runs in a child process
(``tools.perf.runner``) so its peak RSS is its own and no state leaks between figures.

Every figure returns a dict with ``value`` (the headline number), ``target``,
``ok`` and ``detail`` (how it was measured, the runs' raw numbers).
"""

from __future__ import annotations

import collections
import datetime as dt
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from vllm_digest.testing.synthetic import generate


ROOT = Path(__file__).resolve().parents[2]
WORK = Path(os.environ.get("BENCH_WORKDIR", "/tmp/vllm-digest-bench"))
FIRST_DAY = dt.date(2025, 11, 1)  # 365 days end 2026-10-31, before "today" on the bench machine
YEAR = 365
CUTOFF_UTC = dt.time(3, 39)  # 11:39 Asia/Shanghai, the Makefile's cutoff
CUTOFF_LOCAL = "11:39"  # the same, as VLLM_DIGEST_CUTOFF takes it
SEED = 20260301


def _day(i: int) -> str:
    return (FIRST_DAY + dt.timedelta(days=i)).isoformat()


def _window_start(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, CUTOFF_UTC, tzinfo=dt.timezone.utc)


def dataset(days: int) -> Path:
    """The synthetic sample root for ``days`` days from FIRST_DAY (cached; same seed, same bytes).
    The 30-day set is the first 30 days of the 365-day one: the generator draws day by day."""
    root = WORK / f"synthetic-{SEED}-{days}"
    if not (root / "vllm-project__vllm" / "coverage.json").is_file():
        shutil.rmtree(root, ignore_errors=True)
        generate(root, _window_start(FIRST_DAY), days, seed=SEED)
    return root


def run_module(module: str, *args: str, env: dict | None = None) -> dict:
    """Run ``python -m module args`` in a child process; its last stdout line is JSON."""
    cmd = [sys.executable, "-m", module, *args]
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=full_env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-4000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_s"] = time.perf_counter() - started
    return out


def run_child(*args: str, env: dict | None = None) -> dict:
    return run_module("tools.perf.runner", *args, env=env)


def _fresh(name: str) -> Path:
    home = WORK / name
    shutil.rmtree(home, ignore_errors=True)
    return home


def _bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size


def floor_child(days: int, *args: str, env: dict | None = None) -> float:
    """Dagster's own cost for our graph's shape (tools/perf/floor.py: same assets, checks, partitions; no work)."""
    return run_module("tools.perf.floor", "--days", str(days), *args, env=env)["wall_s"]


def fig1_year_backfill(repeats: int = 1) -> dict:
    """365 synthetic days, whole graph (assets and checks), one single-run backfill; alongside it
    the same run without the checks and Dagster's floor for the graph's shape."""
    root = dataset(YEAR)
    runs, assets_only = [], []
    for _ in range(repeats):
        home = _fresh("home-year")
        runs.append(run_child("--home", str(home), "--sample-dir", str(root),
                              "--first", _day(0), "--last", _day(YEAR - 1)))
    assets_only.append(run_child("--home", str(_fresh("home-year-assets")), "--sample-dir", str(root),
                                 "--first", _day(0), "--last", _day(YEAR - 1), "--no-checks"))
    shutil.rmtree(WORK / "home-year-assets", ignore_errors=True)
    floor = floor_child(YEAR)
    wall = statistics.median(r["wall_s"] for r in runs)
    rss = statistics.median(r["peak_rss_mib"] for r in runs)
    home = WORK / "home-year"
    per_day = {name: round(_bytes(home / sub) / YEAR / 1024) for name, sub in
               (("raw_kib", "raw"), ("warehouse_kib", "warehouse.duckdb"), ("reports_kib", "reports"))}
    own = wall - floor  # the floor is Dagster's bookkeeping for this graph's shape, measured in the same run
    return {
        "name": "(1) 365-day single-run backfill, whole graph: total against Dagster's floor measured in the same run "
                "(own work = total − floor)",
        "value": f"total / floor {wall / floor:.2f} ({wall:.1f} s total, {floor:.1f} s floor, own work {own:.1f} s); "
                 f"peak RSS {rss:.0f} MiB",
        "target": "total ≤ 1.5× the floor measured in the same run (own work ≤ 0.5× the floor)",
        "ok": wall <= 1.5 * floor,
        "detail": {"runs": len(runs), "wall_s": [round(r["wall_s"], 2) for r in runs],
                   "process_s": [round(r["process_s"], 2) for r in runs],
                   "peak_rss_mib": [round(r["peak_rss_mib"]) for r in runs],
                   "assets_only_wall_s": round(assets_only[0]["wall_s"], 2),
                   "dagster_floor_s": round(floor, 2), "own_work_s": round(own, 2),
                   "total_over_floor": round(wall / floor, 3),
                   "stored_per_day": per_day},
        "wall_s": wall, "home": str(home),
    }


def fig3_day365_vs_day1(year_home: Path, repeats: int = 3) -> dict:
    """Day 1 into an empty warehouse vs day 365 into a warehouse that holds the whole year."""
    root = dataset(YEAR)
    common = ["--sample-dir", str(root), "--start-date", _day(0), "--warm", "--repeat", str(repeats)]
    day1 = run_child("--home", str(_fresh("home-day1")), "--first", _day(0), "--reset-home", *common)
    # re-materializing day 365 replaces its own partition: the tables hold 365 days throughout
    hist = _fresh("home-day365")
    shutil.copytree(year_home, hist)
    day365 = run_child("--home", str(hist), "--first", _day(YEAR - 1), *common)
    a, b = statistics.median(day1["walls_s"]), statistics.median(day365["walls_s"])
    ratio = b / a
    return {
        "name": "(3) day 365 (a year in the warehouse) vs day 1 (empty)",
        "value": f"{ratio:.2f} ({b:.2f} s vs {a:.2f} s)",
        "target": "≤ 1.2",
        "ok": ratio <= 1.2,
        "detail": {"repeats": repeats, "day1_s": [round(x, 3) for x in day1["walls_s"]],
                   "day365_s": [round(x, 3) for x in day365["walls_s"]]},
    }


def _emulator():
    sys.path.insert(0, str(ROOT))
    from vllm_digest.testing.github_emulator import Dataset, GitHubEmulator
    from vllm_digest.testing.github_fixtures import TOKEN

    return Dataset, GitHubEmulator, TOKEN


# days fetched for figure (4): weekend, weekdays, the stale-sweep day (index 11), the last
FIG4_DAYS = (1, 4, 9, 11, 14, 29)


def rest_lower_bound(payload) -> int:
    """The fewest requests any plan over these endpoints needs for a landed day, at 100 a page:
    ceil(events / 100) + ceil(comments / 100) + ceil(items touched / 100) + 1 (review comments), and
    the pages of the closed and merged lists' cross-check searches (a fixed price of checking the lists,
    not of landing them: ``DayPlan.cross_check``)."""
    checked = payload.manifest.cross_check.get("sets", {}).values()
    return (math.ceil(len(payload.events) / 100) + math.ceil(len(payload.comments) / 100)
            + math.ceil(len(payload.issues) / 100) + 1
            + sum(max(1, math.ceil(len(s["numbers"]) / 100)) for s in checked))


def fig4_requests(day_indices: tuple[int, ...] = FIG4_DAYS, run_days: int = 6) -> dict:
    """Requests per synthetic day against the GitHub emulator, cold and re-fetched (ETag 304s), each
    beside the REST lower bound; then ``run_days`` consecutive days as one run (one events feed) against
    the same days as one-day runs, with the emulator's clock an hour after the last day.

    Each day of the first part is fetched as the daily run does, ten minutes after its window closes,
    from a dataset that ends with that day (the emulator would also show a longer dataset as of its
    clock, but a label added later, e.g. by the stale sweep, cannot be taken back).
    """
    Dataset, GitHubEmulator, TOKEN = _emulator()
    from vllm_digest.core.calendar import DayWindow
    from vllm_digest.core.config.settings import RepoRef
    from vllm_digest.ingest.github.plan import fetch_day, github_days

    from vllm_digest.ingest.github.people import REFRESH_DAYS, PeopleCache

    def window(i: int) -> DayWindow:
        day = FIRST_DAY + dt.timedelta(days=i)
        start = _window_start(day)
        return DayWindow(day=day, start=start, end=start + dt.timedelta(days=1))

    repo = RepoRef("vllm-project", "vllm")
    cold, bound, refetch, refetch_304, refetch_cost, by_endpoint = {}, {}, {}, {}, {}, {}
    enrichment, empty_cache = {}, {}
    for i in day_indices:
        data = Dataset.from_sample(dataset(i + 1) / "vllm-project__vllm")
        w = window(i)
        # search_limit high: this counts requests, it does not wait out the 30/min search budget
        with GitHubEmulator(data, token=TOKEN, search_limit=10_000) as emu:
            emu.now = w.end + dt.timedelta(minutes=10)
            c = fetch_day(repo, w, emu.base_url, TOKEN, None)
            r = fetch_day(repo, w, emu.base_url, TOKEN, c)
            # enrichment (GET /users/{login}) in the steady state of a daily run: every author of the day
            # was asked within the last month, at a uniformly spread moment, so the day asks those whose
            # month is up; and with an empty cache (the first day of a deployment: every author)
            authors = sorted({it["user"]["login"] for it in c.issues if (it.get("user") or {}).get("type") == "User"})
            spread = random.Random(i)
            warm = PeopleCache()
            for login in authors:
                warm.store(login, {"login": login}, None, emu.now - dt.timedelta(days=spread.uniform(0, REFRESH_DAYS + 1)))
            steady = fetch_day(repo, w, emu.base_url, TOKEN, None, people=warm, max_user_requests=1000)
            first = fetch_day(repo, w, emu.base_url, TOKEN, None, people=PeopleCache(), max_user_requests=1000)
        key = w.key
        enrichment[key] = steady.manifest.details.get("user_requests", 0)
        empty_cache[key] = first.manifest.details.get("user_requests", 0)
        cold[key] = c.manifest.request_count
        bound[key] = rest_lower_bound(c)
        by_endpoint[key] = dict(collections.Counter(
            r["path"].split("?")[0].rsplit("/vllm-project/vllm/", 1)[-1].lstrip("/") for r in c.manifest.details["requests"]))
        refetch[key] = r.manifest.request_count
        refetch_304[key] = r.manifest.not_modified_count
        refetch_cost[key] = sum(r.manifest.details.get("rate_limited_requests", {}).values())
    ratios = {k: round(cold[k] / bound[k], 3) for k in cold}

    # N consecutive days: one run (one session, the feed paged once) vs N one-day runs, same clock
    last = day_indices[-1]
    span = [window(i) for i in range(last - run_days + 1, last + 1)]
    data = Dataset.from_sample(dataset(last + 1) / "vllm-project__vllm")
    with GitHubEmulator(data, token=TOKEN, search_limit=10_000) as emu:
        emu.now = span[-1].end + dt.timedelta(hours=1)
        one_day_runs = {w.key: fetch_day(repo, w, emu.base_url, TOKEN, None).manifest.request_count for w in span}
        with github_days(repo, emu.base_url, TOKEN) as fetch:
            one_run = {w.key: fetch(w).manifest.request_count for w in span}
    n_sep, n_one = sum(one_day_runs.values()), sum(one_run.values())
    totals = {d: cold[d] + enrichment[d] for d in cold}
    worst = max(ratios.values())
    return {
        "name": f"(4) GitHub requests per day ({len(day_indices)} synthetic days, emulator) vs the REST lower bound",
        "value": f"cold / bound max {worst:.2f} (" + ", ".join(f"{k[5:]}: {cold[k]}/{bound[k]}" for k in cold)
                 + f"); re-fetch rate-limit cost max {max(refetch_cost.values())}; {run_days} days in one run "
                 f"{n_one} requests vs {n_sep} as {run_days} one-day runs; with profile enrichment in its steady "
                 f"state (each author asked once a month) a typical day {statistics.median(totals.values()):.0f}, a busy "
                 f"day {max(totals.values())} requests; the first day of an empty cache "
                 f"{max(empty_cache.values())} profile requests at most",
        "target": "≤ 1.15× the bound, 0 re-fetch cost",
        "ok": worst <= 1.15 and max(refetch_cost.values()) == 0,
        "detail": {"cold": cold, "rest_lower_bound": bound, "cold_over_bound": ratios, "refetch_requests": refetch,
                   "refetch_304": refetch_304, "refetch_rate_limited": refetch_cost, "cold_by_endpoint": by_endpoint,
                   "range_clock": "an hour after the last day's window", "range_one_run": one_run,
                   "range_one_day_runs": one_day_runs, "enrichment_steady": enrichment,
                   "enrichment_empty_cache": empty_cache, "total_with_enrichment": totals},
    }


def fig5_scheduled_day_github(repeats: int = 3) -> dict:
    """One scheduled day end to end (whole graph) with the github source against the emulator."""
    Dataset, GitHubEmulator, TOKEN = _emulator()
    folder = dataset(30) / "vllm-project__vllm"
    data = Dataset.from_sample(folder)
    day = FIRST_DAY + dt.timedelta(days=9)  # a weekday
    walls, procs = [], []
    with GitHubEmulator(data, token=TOKEN, search_limit=10_000) as emu:
        emu.now = _window_start(day) + dt.timedelta(days=1, minutes=10)
        for _ in range(repeats):
            out = run_child("--home", str(_fresh("home-github")), "--sample-dir", str(folder.parent),
                            "--first", day.isoformat(), "--source", "github", "--api-url", emu.base_url,
                            env={"GITHUB_TOKEN": TOKEN})
            walls.append(out["wall_s"])
            procs.append(out["process_s"])
    wall, proc = statistics.median(walls), statistics.median(procs)
    return {
        "name": "(5) one scheduled day, github source vs emulator, end to end",
        "value": f"{wall:.1f} s run ({proc:.1f} s with process start and imports)",
        "target": "≤ 15 s",
        "ok": proc <= 15,
        "detail": {"repeats": repeats, "run_s": [round(x, 2) for x in walls],
                   "process_s": [round(x, 2) for x in procs]},
    }


def fig6_postgres() -> dict:
    """Figure (1) again with Dagster's run and event storage on a local PostgreSQL server."""
    from tools.perf.postgres import measure
    got = measure(WORK, dataset(YEAR), _day(0), _day(YEAR - 1), YEAR)
    name = "(6) figure (1) on a PostgreSQL instance (local server, same machine)"
    if "unavailable" in got:
        return {"name": name, "value": f"not measured: {got['unavailable']}", "target": "(no target)",
                "ok": None, "detail": got}
    return {
        "name": name,
        "value": f"{got['year_s']:.0f} s, of which Dagster's floor {got['floor_s']:.0f} s; "
                 f"event log {got['db_bytes_per_day'] / 1024:.0f} KiB per day",
        "target": "(no target: how the shared instance scales)",
        "ok": None,
        "detail": {k: round(v, 1) for k, v in got.items()},
    }
