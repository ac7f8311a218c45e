"""`python -m tools.perf.executors`: the in-process vs the multiprocess executor on our graph.

Two workloads, each run with both executors, in that order, BENCH_REPEATS
times (default 3; the median is reported):

- **scheduled tick**: the one run the daily schedule requests once the last of
  30 synthetic days has closed (that day plus ``late_days`` = 2 before it);
- **30-day backfill**: one single run over all 30 days, as a UI backfill is.

Each measurement is a child process with a fresh data home and a fresh Dagster
instance: the project's dagster.yaml (run queue, run monitoring) in a temp
DAGSTER_HOME, persistent because the multiprocess executor needs one. The child
executes the daily job with ``dg.execute_job`` and reports the run's wall time;
process time adds interpreter start, imports and instance set-up, which a real
run worker pays the same way under either executor. Data: the synthetic set of
tools/perf/figures.py (same seed, cached under BENCH_WORKDIR).

Prints a markdown table and writes tools/perf/executors.md.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

from tools.perf.__main__ import machine
from tools.perf.figures import CUTOFF_LOCAL, CUTOFF_UTC, FIRST_DAY, ROOT, WORK, dataset

HERE = Path(__file__).resolve().parent
EXECUTORS = ("in_process", "multiprocess")
DAYS = 30
LATE_DAYS = 2


def daily_job():
    """The project's daily job, as the multiprocess executor's step processes rebuild it."""
    from vllm_digest.definitions import defs
    from vllm_digest.core.keys import DAILY_JOB
    return defs.resolve_job_def(DAILY_JOB)


def child(argv: list[str]) -> int:
    """One measured run (in its own process): ``executor first last home dagster_home sample_dir``."""
    executor, first, last, home, dagster_home, sample_dir = argv
    # before vllm_digest.definitions is imported: it builds its definitions from the environment
    os.environ.update({
        "VLLM_DIGEST_HOME": home, "VLLM_DIGEST_SAMPLE_DIR": sample_dir, "VLLM_DIGEST_SOURCE": "sample",
        "VLLM_DIGEST_CUTOFF": CUTOFF_LOCAL, "VLLM_DIGEST_START_DATE": FIRST_DAY.isoformat(),
        "VLLM_DIGEST_LATE_DAYS": str(LATE_DAYS), "VLLM_DIGEST_EXECUTOR": executor, "DAGSTER_HOME": dagster_home,
    })
    import dagster as dg

    warnings.filterwarnings("ignore", category=dg.BetaWarning)
    warnings.filterwarnings("ignore", category=dg.PreviewWarning)
    from vllm_digest.core.keys import RANGE_END_TAG, RANGE_START_TAG

    tags = {RANGE_START_TAG: first, RANGE_END_TAG: last}
    with dg.DagsterInstance.get() as instance:
        started = time.perf_counter()
        result = dg.execute_job(dg.reconstructable(daily_job), instance=instance, tags=tags)
        wall = time.perf_counter() - started
        steps = sum(1 for e in result.all_events if e.event_type_value == "STEP_SUCCESS")
        runs = len(instance.get_runs())
    if not result.success:
        raise SystemExit(f"{executor} run {first}...{last} failed")
    print(json.dumps({"wall_s": wall, "steps": steps, "runs": runs}))
    return 0


def scheduled_days() -> tuple[str, str]:
    """The range the daily schedule requests at its tick after the last synthetic day closes."""
    from vllm_digest.core.calendar import window_for_day
    from vllm_digest.core.due import days_to_refresh
    from vllm_digest.core.config.settings import load_settings
    settings = load_settings({
        "VLLM_DIGEST_HOME": str(WORK / "executors"), "VLLM_DIGEST_CUTOFF": CUTOFF_LOCAL,
        "VLLM_DIGEST_START_DATE": FIRST_DAY.isoformat(), "VLLM_DIGEST_LATE_DAYS": str(LATE_DAYS),
    })
    last = (FIRST_DAY + dt.timedelta(days=DAYS - 1)).isoformat()
    tick = window_for_day(last, settings).end + dt.timedelta(minutes=settings.schedule_lag_minutes)
    keys = days_to_refresh(settings, tick)
    return keys[0], keys[-1]


def measure(executor: str, first: str, last: str, sample_dir: Path) -> dict:
    base = WORK / "executors" / executor
    shutil.rmtree(base, ignore_errors=True)
    (base / "dagster_home").mkdir(parents=True)
    shutil.copy(ROOT / "dagster.yaml", base / "dagster_home" / "dagster.yaml")
    code = "import sys; from tools.perf.executors import child; sys.exit(child(sys.argv[1:]))"
    args = [executor, first, last, str(base / "home"), str(base / "dagster_home"), str(sample_dir)]
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode != 0:
        raise RuntimeError(f"{executor} {first}...{last} failed:\n{proc.stderr[-4000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_s"] = time.perf_counter() - started
    return out


def main() -> int:
    repeats = int(os.environ.get("BENCH_REPEATS", "3"))
    sample_dir = dataset(DAYS)
    workloads = [
        (f"scheduled tick ({LATE_DAYS + 1} days: the closed day + {LATE_DAYS} late days)", *scheduled_days()),
        (f"{DAYS}-day backfill (one run)", FIRST_DAY.isoformat(), (FIRST_DAY + dt.timedelta(days=DAYS - 1)).isoformat()),
    ]
    rows, raw = [], []
    for name, first, last in workloads:
        medians = {}
        for executor in EXECUTORS:
            runs = [measure(executor, first, last, sample_dir) for _ in range(repeats)]
            medians[executor] = (statistics.median(r["wall_s"] for r in runs),
                                 statistics.median(r["process_s"] for r in runs), runs[0]["steps"])
            raw.append(f"- {name}, {executor} ({first}...{last}): run "
                       f"{[round(r['wall_s'], 2) for r in runs]} s, process {[round(r['process_s'], 2) for r in runs]} s, "
                       f"{runs[0]['steps']} steps, {runs[0]['runs']} run")
            print(f"{name} / {executor}: {medians[executor][0]:.1f} s", file=sys.stderr)
        (ip, ip_proc, steps), (mp, mp_proc, _) = medians["in_process"], medians["multiprocess"]
        rows.append(f"| {name} | {steps} | {ip:.1f} s ({ip_proc:.1f} s) | {mp:.1f} s ({mp_proc:.1f} s) | {mp / ip:.1f}× |")
    table = ["| workload | steps | in_process: run (process) | multiprocess: run (process) | multiprocess / in_process |",
             "|---|---|---|---|---|", *rows]
    print("\n".join(table))
    lines = [
        "# Executors: in-process vs multiprocess",
        "",
        f"Run {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC with `python -m tools.perf.executors` "
        f"(BENCH_REPEATS={repeats}; medians).",
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in machine().items()),
        "",
        f"Synthetic data (vllm_digest/testing/synthetic.py, {DAYS} days from {FIRST_DAY}, cutoff {CUTOFF_LOCAL} UTC+8 = "
        f"{CUTOFF_UTC:%H:%M} UTC); the daily job over the whole graph with its checks, executed by "
        "`dg.execute_job` on a persistent instance with the project's dagster.yaml, fresh data home each time. "
        "*run*: the job's wall time; *process*: the child process, with interpreter start and imports.",
        "",
        *table,
        "",
        "## Raw numbers",
        "",
        *raw,
    ]
    (HERE / "executors.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"\nwrote {HERE / 'executors.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
