"""A UI backfill's wall time, end to end, and where it goes: `python -m tools.perf.ui_backfill`.

What a new user does: `dagster dev` on the embedded sample, *Lineage* -> *Materialize all* over N days
(the GraphQL the browser sends: every asset key and the days' names), then wait for "backfill completed"
and for the follow-up runs the re-render sensor asks for. Each range gets a fresh server, instance and
data home. The wall time from submit to completed is split, instant by instant, into what was going on:

- ``steps``: a run executing (its run worker between RUN_START and RUN_SUCCESS);
- ``worker start-up``: RUN_STARTING -> RUN_START, the run worker's process start, imports and definitions;
- ``queue``: RUN_ENQUEUED -> RUN_STARTING: the run queue's dequeue loop, every ``dequeue_interval_seconds``
  (5 s by default, 1 s in our dagster.yaml), and the launch request (the same daemon process);
- ``run creation``: the run record's creation -> RUN_ENQUEUED: the backfill daemon writing the run's planned
  events (one per asset and day: README "Planned events") before it submits the run;
- ``daemon tick wait``: no run in flight: the backfill daemon's loop (a fixed 30 s in dagster 1.13) has not
  yet seen that a run ended and submitted the next (the day run -> the weekly digests -> the site, whose
  dependencies chain them), or marked the backfill completed.

When runs overlap, the instant counts once, for the most advanced phase (steps > start-up > queue > creation).
The run worker's import time is measured apart, with ``python -X importtime -c 'import vllm_digest.definitions'``.
This is a measurement, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

import dagster as dg  # noqa: E402
from dagster import DagsterEventType as Ev  # noqa: E402

from vllm_digest.core.calendar import daily_partitions  # noqa: E402
from vllm_digest.core.config.settings import load_settings  # noqa: E402
from vllm_digest.core.keys import BASELINE_SENSOR  # noqa: E402
from vllm_digest.orchestration.planned_events import DAGSTER_SWITCH  # noqa: E402
from vllm_digest.testing.dagster_dev import DagsterDev  # noqa: E402

SAMPLE_ENV = {"VLLM_DIGEST_SOURCE": "sample", "VLLM_DIGEST_CUTOFF": "11:39"}
BACKFILL_TAG = "dagster/backfill"
RERENDER_TAG = "vllm_digest/rerenders_after"
QUIET_TIMEOUT_S = 900  # a hang guard
# the phases of one run, most advanced first (an instant where runs overlap counts for the first listed)
PHASES = ("steps", "worker start-up", "queue", "run creation")
IDLE = "daemon tick wait"


def import_profile(env: dict[str, str], top: int = 12) -> dict:
    """``-X importtime`` of the run worker's first import: the total, and the top-level packages by
    cumulative time (a package's first import, which pulls in what it needs)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import vllm_digest.definitions"],
        cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=300, check=True,
    )
    by_package: dict[str, int] = {}
    total = 0
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line or "cumulative" in line:
            continue
        self_us, cumulative, name = line.split(":", 1)[1].split("|")
        package = name.strip().split(".")[0].lstrip("_")
        # self time per top-level package: where the import time goes, whoever imported it
        by_package[package] = by_package.get(package, 0) + int(self_us)
        if not name.rstrip().startswith(" " * 2):  # a top-level import: its cumulative time is the total
            total += int(cumulative)
    ranked = sorted(by_package.items(), key=lambda kv: -kv[1])[:top]
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import vllm_digest.definitions"], cwd=ROOT,
                   env={**os.environ, **env}, check=True, timeout=300)
    # the module builds the Definitions when imported (``defs = load_definitions()``): included here
    return {"import_and_definitions_s": round(total / 1e6, 2), "process_s": round(time.perf_counter() - started, 2),
            "top_packages_s": {k: round(v / 1e6, 2) for k, v in ranked}}


def run_phases(instance: dg.DagsterInstance, run_id: str) -> dict:
    """A run's moments (epoch seconds) from its own event log, and its steps' durations."""
    record = instance.get_run_record_by_id(run_id)
    moments: dict[str, float] = {"created": record.create_timestamp.timestamp()}
    steps: dict[str, float] = {}
    step_start: dict[str, float] = {}
    for entry in instance.all_logs(run_id):
        event = entry.dagster_event
        if event is None:
            continue
        kind = event.event_type
        if kind == Ev.RUN_ENQUEUED:
            moments["enqueued"] = entry.timestamp
        elif kind == Ev.RUN_STARTING:
            moments["starting"] = entry.timestamp
        elif kind == Ev.RUN_START:
            moments["start"] = entry.timestamp
        elif kind in (Ev.RUN_SUCCESS, Ev.RUN_FAILURE, Ev.RUN_CANCELED):
            moments["end"] = entry.timestamp
        elif kind == Ev.STEP_START:
            step_start[event.step_key] = entry.timestamp
        elif kind in (Ev.STEP_SUCCESS, Ev.STEP_FAILURE) and event.step_key in step_start:
            steps[event.step_key] = round(entry.timestamp - step_start[event.step_key], 2)
    run = record.dagster_run
    kind = ("follow-up (sensor)" if RERENDER_TAG in run.tags else
            "backfill" if BACKFILL_TAG in run.tags else "other")
    return {"run_id": run_id, "kind": kind, "status": run.status.value, "job": run.job_name,
            "assets": sorted("/".join(k.path) for k in (run.asset_selection or ())),
            "moments": moments, "steps_s": steps}


def intervals(run: dict) -> list[tuple[float, float, str]]:
    m = run["moments"]
    spans = [("created", "enqueued", "run creation"), ("enqueued", "starting", "queue"),
             ("starting", "start", "worker start-up"), ("start", "end", "steps")]
    return [(m[a], m[b], phase) for a, b, phase in spans if a in m and b in m]


def attribute(runs: list[dict], t0: float, t1: float) -> dict[str, float]:
    """Each instant of t0..t1 to the most advanced phase of any run in flight, else to the daemon's wait."""
    spans = [s for r in runs for s in intervals(r)]
    cuts = sorted({t0, t1, *(t for a, b, _ in spans for t in (a, b) if t0 < t < t1)})
    out = {p: 0.0 for p in (*PHASES, IDLE)}
    for a, b in zip(cuts, cuts[1:]):
        mid = (a + b) / 2
        active = {p for s, e, p in spans if s <= mid < e}
        phase = next((p for p in PHASES if p in active), IDLE)
        out[phase] += b - a
    return {k: round(v, 1) for k, v in out.items()}


# (name, [(first day index, number of days), ...]): the backfills one fresh server runs in turn, over the
# sample's days (index -1: the last day). A new user's 3 days; all 22; then 3 days in the middle again,
# whose later days are built, so the re-render sensor's follow-up runs come in.
SCENARIOS = {
    "3": ("the last 3 days, fresh", [(-3, 3)]),
    "22": ("all 22 days, fresh; then 3 days in the middle again", [(0, 22), (8, 3)]),
}


def launch(dev: DagsterDev, keys: list, days: list[str]) -> str:
    """What *Lineage* -> *Materialize all* sends: every asset key and the days' names."""
    return dev.graphql(
        """mutation($params: LaunchBackfillParams!) { launchPartitionBackfill(backfillParams: $params) {
            __typename ... on LaunchBackfillSuccess { backfillId } ... on PythonError { message } } }""",
        {"params": {"assetSelection": [{"path": list(k)} for k in keys], "partitionNames": days,
                    "title": f"bench {days[0]}...{days[-1]}"}},
    )["launchPartitionBackfill"]["backfillId"]


def summarize(instance: dg.DagsterInstance, backfill, until: float | None, runs: list[dict]) -> dict:
    """One backfill, from the instance alone: submitted when the backfill was created, its runs and the
    other runs created from then until ``until`` (the next backfill's submit), the follow-ups among them."""
    submitted = backfill.backfill_timestamp
    done = backfill.backfill_end_timestamp
    ours = [r for r in runs if submitted <= r["moments"]["created"] and (until is None or r["moments"]["created"] < until)]
    in_backfill = [r for r in ours if r["kind"] == "backfill"]
    first_created = min((r["moments"]["created"] for r in in_backfill), default=done)
    last_end = max((r["moments"].get("end", done) for r in ours), default=done)
    days = sorted(backfill.asset_backfill_data.target_subset.partitions_subsets_by_asset_key.values(),
                  key=lambda sub: -len(sub))[0].get_partition_keys() if backfill.asset_backfill_data else []
    return {
        "days": f"{days[0]}...{days[-1]} ({len(days)})" if days else "?", "status": backfill.status.value,
        "submit_to_completed_s": round(done - submitted, 1),
        # the backfill daemon's loop runs every 30 s from its start, whatever the click: this first wait
        # is the phase of that loop at submit time (0-30 s; ~15 s on average for a user's click)
        "first_tick_wait_s": round(first_created - submitted, 1),
        "breakdown_s": attribute(ours, submitted, done),
        "backfill_runs": len(in_backfill), "other_runs": len(ours) - len(in_backfill),
        "submit_to_last_run_end_s": round(max(last_end, done) - submitted, 1),
        "per_run": [{
            "kind": r["kind"], "status": r["status"],
            "assets": f"{len(r['assets'])} assets" if len(r["assets"]) > 2 else r["assets"],
            "created_at_s": round(r["moments"]["created"] - submitted, 1),
            **{phase: round(b - a, 1) for a, b, phase in intervals(r)},
            "longest_steps_s": dict(sorted(r["steps_s"].items(), key=lambda kv: -kv[1])[:3]),
        } for r in ours],
    }


def analyze(home: Path) -> list[dict]:
    """Every backfill of the instance at ``home`` (a DAGSTER_HOME), oldest first."""
    with dg.DagsterInstance.from_config(str(home)) as instance:
        runs = sorted((run_phases(instance, r.run_id) for r in instance.get_runs()),
                      key=lambda r: r["moments"]["created"])
        backfills = sorted(instance.get_backfills(), key=lambda b: b.backfill_timestamp)
        return [summarize(instance, b, nxt.backfill_timestamp if nxt else None, runs)
                for b, nxt in zip(backfills, [*backfills[1:], None])]


def measure_scenario(name: str, workdir: Path, extra_env: dict[str, str]) -> dict:
    title, ranges = SCENARIOS[name]
    root = Path(tempfile.mkdtemp(prefix=f"ui-backfill-{name}-", dir=workdir))
    config = root / "vllm_digest.toml"
    config.write_text("# empty: no developer config file applies\n", encoding="utf-8")
    env = {**SAMPLE_ENV, "VLLM_DIGEST_CONFIG": str(config), "VLLM_DIGEST_HOME": str(root / "home"), **extra_env}
    all_days = daily_partitions(load_settings(env)).get_partition_keys()
    home = root / "dagster_home"
    dev = DagsterDev.start(home, env, root / "dagster-dev.log")
    try:
        dev.wait_for_server()
        dev.wait_for_location("vllm_digest")
        keys = sorted(dev.asset_nodes())
        for start, count in ranges:
            first = start % len(all_days)
            days = all_days[first:first + count]
            dev.wait_for_backfill(launch(dev, keys, days))
            dev.wait_until_quiet(BASELINE_SENSOR, QUIET_TIMEOUT_S)
    finally:
        dev.stop()
    return {"scenario": title, "home": str(home), "backfills": analyze(home)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.perf.ui_backfill", description=__doc__.split("\n\n")[0])
    p.add_argument("--scenarios", default=",".join(SCENARIOS),
                   help="which, comma-separated: " + "; ".join(f"{k}: {v[0]}" for k, v in SCENARIOS.items()))
    p.add_argument("--workdir", type=Path, default=Path("/tmp/vllm-digest-bench"))
    p.add_argument("--json", type=Path, default=None, help="also write the results here")
    p.add_argument("--planned-events-per-run", action="store_true",
                   help="with the setting planned_events_per_run on, as `make dev` would start dagster dev with it")
    p.add_argument("--analyze", type=Path, nargs="+", metavar="DAGSTER_HOME",
                   help="only read the backfills of these instances again (a measured scenario's home)")
    args = p.parse_args(argv)
    if args.analyze:
        print(json.dumps([{"home": str(h), "backfills": analyze(h)} for h in args.analyze], indent=1))
        return 0
    args.workdir.mkdir(parents=True, exist_ok=True)
    # what `python -m vllm_digest.orchestration.planned_events dg dev` puts in the environment of Dagster's processes
    extra = {"VLLM_DIGEST_PLANNED_EVENTS_PER_RUN": "true", DAGSTER_SWITCH: "true"} if args.planned_events_per_run else {}
    result = {"imports": import_profile(SAMPLE_ENV),
              "scenarios": [measure_scenario(n.strip(), args.workdir, extra) for n in args.scenarios.split(",")]}
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
