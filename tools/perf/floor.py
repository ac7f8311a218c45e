"""Dagster's own floor for a single-run backfill: a graph shaped like ours (the same steps and
assets per step, daily partitions, ``BackfillPolicy.single_run()``) whose steps do nothing, so
the wall time is what Dagster spends per (asset, partition) whatever the assets compute.

    python -m tools.perf.floor --days 365 [--shape 1,7,4,2,12,1] [--checks 8] [--metadata small|rows_by_day]

Prints one JSON line: wall seconds of the materialization, events per partition and asset count.
``--metadata rows_by_day`` attaches a {day: rows} dict of every run day to each asset's result,
as a range run copies it onto every partition's event: it measures that metadata's own cost.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
import warnings

import dagster as dg

from tools.perf.figures import FIRST_DAY
from vllm_digest.analytics.build import ANALYTICS_MODELS, REF_MODELS
from vllm_digest.core.keys import RANGE_END_TAG, RANGE_START_TAG
from vllm_digest.warehouse.layers import CORE_MODELS, MART_MODELS, STG_MODELS

# the vllm-digest graph's steps, read off its model lists so the floor follows the graph:
# raw_activity, stg, core, mart, ref (taxonomy rules), analytics, daily_report
DEFAULT_SHAPE = ",".join(str(n) for n in (1, len(STG_MODELS), len(CORE_MODELS), len(MART_MODELS),
                                          len(REF_MODELS), len(ANALYTICS_MODELS), 1))


def _step(name: str, keys: list[str], upstream: list, partitions, metadata: str) -> dg.AssetsDefinition:
    @dg.multi_asset(name=name, specs=[dg.AssetSpec(k, deps=upstream) for k in keys],
                    partitions_def=partitions, backfill_policy=dg.BackfillPolicy.single_run())
    def step(context):
        days = list(context.partition_keys)
        meta: dict = {"days": f"{days[0]}...{days[-1]} ({len(days)} days)", "rows_written": 1}
        if metadata == "rows_by_day":
            meta["rows_by_day"] = dg.MetadataValue.json({d: 1 for d in days})
        for k in keys:
            yield dg.MaterializeResult(asset_key=k, metadata=meta)

    return step


def _checks(count: int, targets: list[dg.AssetKey], partitions) -> dg.AssetChecksDefinition:
    """Like vllm_digest.warehouse.checks: one op evaluating every check for every day of the run."""
    specs = [dg.AssetCheckSpec(f"check{i}", asset=targets[i % len(targets)], partitions_def=partitions)
             for i in range(count)]

    @dg.multi_asset_check(name="checks", specs=specs, can_subset=True)
    def checks(context):
        for day in context.partition_keys:
            for spec in specs:
                yield dg.AssetCheckEvaluation(asset_key=spec.asset_key, check_name=spec.name, passed=True,
                                              partition=day, metadata={"day": day})

    return checks


def floor_assets(shape: list[int], partitions: dg.PartitionsDefinition, metadata: str, checks: int = 0) -> list:
    steps, upstream, every = [], [], []
    for s, width in enumerate(shape):
        keys = [f"step{s}_asset{i}" for i in range(width)]
        steps.append(_step(f"step{s}", keys, upstream, partitions, metadata))
        upstream = [dg.AssetKey(k) for k in keys]
        every += upstream
    if checks:
        steps.append(_checks(checks, every, partitions))
    return steps


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--days", type=int, default=365)
    p.add_argument("--shape", default=DEFAULT_SHAPE)
    p.add_argument("--metadata", choices=("small", "rows_by_day"), default="small")
    p.add_argument("--checks", type=int, default=8, help="asset checks evaluated per partition (ours: 8)")
    p.add_argument("--instance", choices=("memory", "sqlite"), default="memory",
                   help="sqlite: a persistent instance in a temp DAGSTER_HOME, as `make dev` uses")
    p.add_argument("--dagster-home", help="use the instance configured there (e.g. PostgreSQL) instead")
    a = p.parse_args(argv)
    warnings.filterwarnings("ignore", category=dg.BetaWarning)
    warnings.filterwarnings("ignore", category=dg.PreviewWarning)
    shape = [int(x) for x in a.shape.split(",")]
    first = FIRST_DAY
    last = first + dt.timedelta(days=a.days - 1)
    partitions = dg.DailyPartitionsDefinition(start_date=first.isoformat(), end_date=(last + dt.timedelta(days=1)).isoformat())
    assets = floor_assets(shape, partitions, a.metadata, a.checks)
    if a.dagster_home:
        instance = dg.DagsterInstance.from_config(a.dagster_home)
    else:
        instance = dg.DagsterInstance.ephemeral() if a.instance == "memory" else dg.DagsterInstance.local_temp()
    started = time.perf_counter()
    result = dg.materialize(assets, instance=instance, tags={
        RANGE_START_TAG: first.isoformat(),
        RANGE_END_TAG: last.isoformat(),
    })
    wall = time.perf_counter() - started
    if not result.success:
        raise SystemExit("floor run failed")
    events = len(result.get_asset_materialization_events())
    evaluations = len(result.get_asset_check_evaluations())
    print(json.dumps({"wall_s": wall, "days": a.days, "assets": sum(shape), "materializations": events,
                      "check_evaluations": evaluations, "metadata": a.metadata,
                      "instance": type(instance.event_log_storage).__name__}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
