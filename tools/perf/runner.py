"""One measured Dagster materialization, run in a child process so its peak RSS is its own.

    python -m tools.perf.runner --home H --sample-dir S --first D1 [--last D2] [--per-day] [--profile OUT]

Prints one JSON line: wall seconds of the materialization(s), the child's peak RSS
and the run count. ``--per-day`` materializes each day as its own run, the way a
non-single-run backfill would (minus the per-run process launch, so it is the
favourable case for per-day runs).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import sys
import time
import warnings

from tools.perf.figures import CUTOFF_LOCAL
from vllm_digest.core.keys import RANGE_END_TAG, RANGE_START_TAG


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--home", required=True)
    p.add_argument("--sample-dir", required=True)
    p.add_argument("--first", required=True)
    p.add_argument("--last")
    p.add_argument("--start-date")
    p.add_argument("--per-day", action="store_true")
    p.add_argument("--profile")
    p.add_argument("--source", default="sample")
    p.add_argument("--api-url")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--reset-home", action="store_true", help="empty the data home before each repeat")
    p.add_argument("--warm", action="store_true", help="load the sample files before timing")
    p.add_argument("--no-checks", action="store_true", help="materialize the assets without their asset checks")
    p.add_argument("--dagster-home", help="use the instance configured there (e.g. PostgreSQL) instead of an in-memory one")
    p.add_argument("--steps", action="store_true",
                   help="also print each step's wall seconds (start to success, from the run's event log)")
    a = p.parse_args(argv)

    env = {
        "VLLM_DIGEST_HOME": a.home,
        "VLLM_DIGEST_SAMPLE_DIR": a.sample_dir,
        "VLLM_DIGEST_CUTOFF": CUTOFF_LOCAL,
        "VLLM_DIGEST_START_DATE": a.start_date or a.first,
        "VLLM_DIGEST_SOURCE": a.source,
    }
    if a.api_url:
        env["GITHUB_API_URL"] = a.api_url
        env["GITHUB_TOKEN"] = os.environ.get("GITHUB_TOKEN", "")
    import dagster as dg

    warnings.filterwarnings("ignore", category=dg.BetaWarning)
    warnings.filterwarnings("ignore", category=dg.PreviewWarning)
    from vllm_digest.definitions import build_definitions
    from vllm_digest.orchestration.jobs import daily_selection
    from vllm_digest.core.config.settings import load_settings
    settings = load_settings(env)
    defs = build_definitions(settings)
    # the whole graph, as a backfill from the UI runs it: assets and their checks
    assets = list(defs.assets) + ([] if a.no_checks else list(defs.asset_checks))
    last = a.last or a.first

    def run(first: str, last: str) -> None:
        kwargs = {"partition_key": first} if first == last else {"tags": {
            RANGE_START_TAG: first,
            RANGE_END_TAG: last,
        }}
        instance = (dg.DagsterInstance.from_config(a.dagster_home) if a.dagster_home
                    else dg.DagsterInstance.ephemeral())
        result = dg.materialize(assets, selection=daily_selection(), resources=defs.resources, instance=instance,
                                **kwargs)
        if not result.success:
            raise SystemExit(f"run {first}..{last} failed")
        if a.steps:
            # summed over a repeat's runs (one per day with --per-day), one dict per repeat
            for step, seconds in _step_seconds(instance, result.run_id).items():
                step_runs[-1][step] = step_runs[-1].get(step, 0.0) + seconds

    d1, d2 = dt.date.fromisoformat(a.first), dt.date.fromisoformat(last)
    days = [(d1 + dt.timedelta(days=i)).isoformat() for i in range((d2 - d1).days + 1)]
    profiler = None
    if a.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    if a.warm and a.source == "sample":
        # the sample source parses its whole folder once per process; a repeat measures the run, not that
        from vllm_digest.ingest.sample import load_sample, sample_folder

        load_sample(sample_folder(settings.repos[0], settings.sample_dir))
    walls = []
    step_runs: list[dict[str, float]] = []
    for _ in range(a.repeat):
        step_runs.append({})
        if a.reset_home:
            import shutil

            shutil.rmtree(a.home, ignore_errors=True)
        started = time.perf_counter()
        if a.per_day:
            for day in days:
                run(day, day)
        else:
            run(a.first, last)
        walls.append(time.perf_counter() - started)
    wall = walls[0]
    steps = step_runs[0]  # the same repeat as ``wall``
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(a.profile)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    rss_kib = usage.ru_maxrss  # KiB on Linux
    # CPU seconds of the whole process (all threads, start-up and imports included): steadier than wall
    # seconds on a machine other work shares
    cpu = usage.ru_utime + usage.ru_stime
    print(json.dumps({"wall_s": wall, "walls_s": walls, "cpu_s": round(cpu, 1), "peak_rss_mib": rss_kib / 1024,
                      "days": len(days),
                      "runs": len(days) if a.per_day else 1, **({"steps_s": steps} if a.steps else {})}))
    return 0


def _step_seconds(instance, run_id: str) -> dict[str, float]:
    """Each step's wall seconds in one run: from its STEP_START to its STEP_SUCCESS event (a step's
    own work plus the events it writes; what lies between steps is Dagster's run bookkeeping)."""
    import dagster as dg

    started, out = {}, {}
    for entry in instance.all_logs(run_id, of_type={dg.DagsterEventType.STEP_START, dg.DagsterEventType.STEP_SUCCESS}):
        if entry.dagster_event.event_type == dg.DagsterEventType.STEP_START:
            started[entry.step_key] = entry.timestamp
        elif entry.step_key in started:
            out[entry.step_key] = round(entry.timestamp - started[entry.step_key], 2)
    return out


if __name__ == "__main__":
    sys.exit(main())
