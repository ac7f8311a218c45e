"""Partitioned asset checks over the warehouse, one set per repository.

One op runs every check of a repo for every day of the run, each rule's queries
once for all the days (``warehouse.quality``). It yields one
``AssetCheckEvaluation`` per (check, day) instead of an ``AssetCheckResult``:
in a single-run backfill a result is recorded once, for no partition, while the
UI shows checks per partition. ``can_subset`` makes the check outputs optional,
which this needs, and the op honours the selected subset. After a check's
evaluations it yields the check's (empty) output, as an ``AssetCheckResult``
would: without it Dagster logs that the op "did not yield or return expected
outputs", although every check ran.
"""

from functools import partial
from typing import Callable

import dagster as dg

from vllm_digest.core.calendar import context_windows
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.warehouse import quality


Rule = Callable[..., dict[str, quality.Outcome]]  # (con, repo=, days=) -> day -> outcome

# (target table, check name, rule, what it guards)
CHECKS: list[tuple[str, str, Rule, str]] = [
    *[
        (table, "unique_key", partial(quality.unique_key, table=table),
         f"(repo, day, {', '.join(cols)}) identifies one row of {table}.")
        for table, cols in quality.UNIQUE_KEYS.items()
    ],
    ("mart_five_sets", "items_exist_in_core", quality.five_sets_in_core,
     "Every item of the five report lists is an item of core_items for the same day."),
    ("mart_daily_counts", "counts_equal_list_lengths", quality.counts_match_lists,
     "Each of the five counts equals the length of its list in mart_five_sets."),
    ("mart_daily_counts", "reconciles_with_fetch_totals", quality.reconcile_totals,
     "Where the fetch manifest reports a total (and numbers) for a set, our list agrees; "
     "a failure names the missing numbers."),
    ("stg_fetch_manifest", "fetch_complete", quality.fetch_complete,
     "Warns when the day's fetch was incomplete (the report then opens with a warning)."),
    ("mart_five_sets", "cross_checked_with_search", quality.cross_checked,
     "Every issue that search finds closed, and every PR it finds merged, in the window is in the day's "
     "closed or merged list; a failure names the numbers the events feed missed."),
    ("stg_fetch_manifest", "counted_from_events", quality.counted_from_events,
     "Warns on a day counted from current state (snapshot semantics, past the events feed's reach): "
     "reopenings and later merges may be missing from its counts."),
]


def failing_checks(con, repo: str, days: list[str]) -> dict[str, tuple[str, ...]]:
    """Per day, the names of the checks above that fail at ERROR severity (a warning is not a failure),
    each name once, in CHECKS order. The report says so under its header and delivery holds the day
    (issue 30: a day that fails its checks is not sent to chat or e-mail)."""
    failed: dict[str, list[str]] = {day: [] for day in days}
    for _table, name, rule, _doc in CHECKS:
        for day, outcome in rule(con, repo=repo, days=days).items():
            if not outcome.passed and not outcome.warn_only and name not in failed[day]:
                failed[day].append(name)
    return {day: tuple(names) for day, names in failed.items()}


def build_repo_checks(repo: RepoRef, settings: Settings, partitions_def) -> list[dg.AssetChecksDefinition]:
    specs, rules = [], {}
    for table, name, rule, doc in CHECKS:
        spec = dg.AssetCheckSpec(
            name, asset=dg.AssetKey([*repo.key_prefix, table]), description=doc, partitions_def=partitions_def
        )
        specs.append(spec)
        rules[spec.key] = rule

    @dg.multi_asset_check(
        name=f"{repo.slug}__warehouse_checks",
        specs=specs,
        can_subset=True,
    )
    def warehouse_checks(context: dg.AssetCheckExecutionContext, warehouse: WarehouseResource):
        windows = context_windows(context, settings)
        checks_def = context.op_execution_context.assets_def
        selected = [k for k in rules if k in context.selected_asset_check_keys]
        days = [w.key for w in windows]
        with warehouse.connect(read_only=True) as con:
            # each rule asks once for all the run's days
            outcomes = {key: rules[key](con, repo=repo.full_name, days=days) for key in selected}
        for key in selected:
            for window in windows:
                outcome = outcomes[key][window.key]
                yield dg.AssetCheckEvaluation(
                    asset_key=key.asset_key,
                    check_name=key.name,
                    passed=outcome.passed,
                    partition=window.key,
                    description=outcome.description,
                    metadata={"day": window.key, **outcome.metadata},
                    severity=dg.AssetCheckSeverity.WARN if outcome.warn_only else dg.AssetCheckSeverity.ERROR,
                )
            # the check's output carries no value; it tells Dagster the check ran (its result is above)
            yield dg.Output(None, output_name=checks_def.get_output_name_for_asset_check_key(key))

    return [warehouse_checks]
