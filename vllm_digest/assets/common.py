"""What every partitioned asset shares: its partitions, policy and day windows."""

from __future__ import annotations

import dagster as dg

from vllm_digest.partitions import DayBeforeStartError, DayWindow, check_not_before_start, windows_for_keys
from vllm_digest.settings import Settings

WAREHOUSE_POOL = "duckdb_warehouse"
SINGLE_RUN = dg.BackfillPolicy.single_run()
# a range run copies its metadata onto every day's event, so a {day: value} dict costs days² entries;
# up to a month it is worth reading in the UI, beyond that the warehouse and the files answer per day
PER_DAY_METADATA_MAX_DAYS = 31


def context_windows(context: dg.AssetExecutionContext, settings: Settings) -> list[DayWindow]:
    """The days this run covers: one for a normal run, many for a single-run backfill.

    A range that starts before ``start_date`` (range tags, as a script or ``make demo`` with a
    later start_date set them) reaches the assets: its start is checked before Dagster lists
    the range's keys, which fails with a bare invariant error, and the step fails without
    retries (the raw asset's RetryPolicy would otherwise retry it for minutes)."""
    try:
        check_not_before_start(context.partition_key_range.start, settings)
        return windows_for_keys(list(context.partition_keys), settings)
    except DayBeforeStartError as exc:
        raise dg.Failure(description=str(exc), allow_retries=False) from None


def table_schema(columns: list[tuple[str, str]], descriptions: dict[str, str] | None = None) -> dg.TableSchema:
    descriptions = descriptions or {}
    return dg.TableSchema(
        columns=[dg.TableColumn(name, dtype, description=descriptions.get(name) or None) for name, dtype in columns]
    )


def day_span(windows: list[DayWindow]) -> str:
    if len(windows) == 1:
        return windows[0].key
    return f"{windows[0].key}...{windows[-1].key} ({len(windows)} days)"
