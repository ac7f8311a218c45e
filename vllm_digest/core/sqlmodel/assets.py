"""The layer asset factory: a layer's SQL models as one Dagster step with one asset per table.

A layer's tables are built by one step (one set-based transaction for all the run's days), while each
table stays its own asset so the UI shows the table-level lineage that the SQL files themselves declare.
The warehouse and analytics stages build their layers with ``build_layer_asset``, each passing the
function that writes its tables.
"""

# no ``from __future__ import annotations``: Dagster reads the op's ``context`` annotation at definition time

import re
from typing import Callable

import dagster as dg

from vllm_digest.core.calendar import PER_DAY_METADATA_MAX_DAYS, SINGLE_RUN, DayWindow, context_windows, day_span
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.sqlmodel.files import purpose, read_sql
from vllm_digest.core.sqlmodel.lineage import column_deps
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.core.sqlmodel.schema import column_descriptions, columns_of

_TABLE_REF = re.compile(r"\b(?:FROM|JOIN)\s+((?:stg|core|ref|int|mart)_[a-z0-9_]+)", re.IGNORECASE)
# a batch's temp table built by its own sql/run_<name>.sql (run_days is built in Python and reads files;
# run_text_candidates is built in Python from run_texts, which the same model reads; run_item_entities is built
# in Python from core_items, which int_item_entities joins too)
_TEMP_REF = re.compile(r"\b(?:FROM|JOIN)\s+(run_(?!days\b|text_candidates\b|item_entities\b)[a-z0-9_]+)",
                       re.IGNORECASE)


def upstream_tables(model: str) -> list[str]:
    """The tables a model reads, as its SQL names them; a temp table passes on the tables it is built from."""
    sql = read_sql(model)
    found = set(_TABLE_REF.findall(sql))
    for temp in set(_TEMP_REF.findall(sql)) - {model}:
        found |= set(upstream_tables(temp))
    return sorted(found - {model})


def model_spec(repo: RepoRef, model: str, group: str, code_version: str | None = None,
               source: str | None = None) -> dg.AssetSpec:
    """A table's asset: its upstream tables as the SQL names them, else ``source`` (the asset a layer
    that reads landed files rather than tables depends on), its columns, lineage and SQL."""
    upstream = upstream_tables(model)
    deps = [dg.AssetKey([*repo.key_prefix, t]) for t in upstream]
    if not upstream and source is not None:
        deps = [dg.AssetKey([*repo.key_prefix, source])]
    sql = read_sql(model)
    # the table's shape is static: it lives on the definition, not on each partition's event
    metadata = {
        "sql": dg.MetadataValue.md(f"```sql\n{sql}\n```"),
        "table": model,
        "dagster/column_schema": table_schema(columns_of(model), column_descriptions().get(model)),
        "dagster/table_name": f"warehouse.main.{model}",
    }
    if upstream:
        metadata["dagster/column_lineage"] = column_lineage(repo, model)
    return dg.AssetSpec(
        key=[*repo.key_prefix, model],
        deps=deps,
        description=f"{purpose(model)}\n\nTable `{model}` in the warehouse, one partition per (repo, day).",
        group_name=group,
        kinds={"duckdb", "sql"},
        metadata=metadata,
        code_version=code_version,
    )


def column_lineage(repo: RepoRef, model: str) -> dg.TableColumnLineage:
    deps = column_deps(
        model,
        [name for name, _ in columns_of(model)],
        {t: [name for name, _ in columns_of(t)] for t in upstream_tables(model)},
    )
    return dg.TableColumnLineage(
        deps_by_column={
            col: [dg.TableColumnDep(asset_key=dg.AssetKey([*repo.key_prefix, t]), column_name=c) for t, c in found]
            for col, found in deps.items()
            if found
        }
    )


BuildFn = Callable[..., dict[str, dict[str, int]]]


def build_layer_asset(
    repo: RepoRef,
    settings: Settings,
    partitions_def,
    layer: str,
    models: tuple[str, ...],
    group: str,
    build: BuildFn,
    code_version: str | None = None,
    source: str | None = None,
) -> dg.AssetsDefinition:
    """One step that rebuilds the selected ``models`` for every day of the run:
    ``build(con, repo, windows, models)`` returns day -> model -> rows written.

    The step is subsettable: a selection of some of its tables (the asset's own page, a Catalog
    multi-select) rebuilds just those, in ``models``' order, reading the others as the warehouse holds
    them. That is also what lets Dagster's asset backfills take the UI's "Materialize all": for a
    non-subsettable multi-asset it requires every key's targeted partitions to compare equal, and
    dagster 1.13 compares them with a tuple ``!=`` that also sees a lazily cached partition count, set
    for a table reached from several upstream tables and unset for one reached from one, so the same
    three days "did not match" between two tables of a layer.
    """
    specs = [model_spec(repo, m, group, code_version, source) for m in models]
    key_of = {m: spec.key for m, spec in zip(models, specs)}

    @dg.multi_asset(
        name=f"{repo.slug}__{layer}",
        specs=specs,
        partitions_def=partitions_def,
        backfill_policy=SINGLE_RUN,
        can_subset=True,
    )
    def layer_asset(context: dg.AssetExecutionContext, warehouse: WarehouseResource):
        windows = context_windows(context, settings)
        selected = tuple(m for m in models if key_of[m] in context.selected_asset_keys)
        built = layer if selected == models else ", ".join(selected)
        # set-based: one statement per table covers every day, so there is no per-day progress to tell;
        # this line says what the step is doing while it waits for the warehouse and writes
        context.log.info(f"building {built} for {repo.full_name} {day_span(windows)}: {len(selected)} tables")
        with warehouse.connect() as con:
            rebuilt = new_warehouse_note(settings, warehouse.path, windows) if warehouse.take_created() else None
            if rebuilt:
                context.log.warning(rebuilt)
            per_day = build(con, repo, windows, selected)
        context.log.info(f"built {built} for {repo.full_name} {day_span(windows)}")
        for model in selected:
            rows = [per_day[w.key][model] for w in windows]
            metadata = rows_metadata(windows, rows)
            if rebuilt:
                metadata["new_warehouse"] = rebuilt
            yield dg.MaterializeResult(asset_key=key_of[model], metadata=metadata)

    return layer_asset


_DAY_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def new_warehouse_note(settings: Settings, path: str, windows: list[DayWindow]) -> str | None:
    """The one line a step says when it made a new, empty warehouse beside landed days (raw/) or reports
    (reports/) of days outside its run: those days are not in it until they are materialized again, so the
    look-backs of later days (🔁's 14 days, the trend's baseline) read fewer days. None on a fresh home, or
    when the run rebuilds every day on disk."""
    ours = {w.key for w in windows}
    landed, reported = set(), set()
    for repo in settings.repos:
        raw = settings.raw_dir / repo.owner / repo.name
        if raw.is_dir():
            landed |= {p.name for p in raw.iterdir() if p.is_dir() and _DAY_NAME.match(p.name)}
        reports = settings.reports_dir / repo.owner / repo.name
        if reports.is_dir():
            reported |= {p.stem for p in reports.glob("*.json") if _DAY_NAME.match(p.stem)}
    landed, reported = landed - ours, reported - ours
    if not landed and not reported:
        return None
    others = sorted(landed | reported)
    return (f"a new, empty warehouse {path!r} was created beside {len(landed)} landed day(s) in raw/ and "
            f"{len(reported)} report(s) in reports/ of other days ({others[0]} … {others[-1]}): it holds only "
            f"this run's days ({day_span(windows)}), so until the others are materialized again the follow-ups "
            f"(🔁) and trend baselines of later days read fewer days, as their reports say")


def rows_metadata(windows: list[DayWindow], rows: list[int]) -> dict:
    """What a run says about each table it wrote; a range run's dict lands on every day's event."""
    metadata: dict = {"days": day_span(windows), "rows_written": sum(rows)}
    if len(windows) == 1:
        metadata["dagster/row_count"] = rows[0]
    elif len(windows) <= PER_DAY_METADATA_MAX_DAYS:
        # dagster/row_count is per partition; a range run reports each of its days instead
        metadata["rows_by_day"] = dg.MetadataValue.json({w.key: n for w, n in zip(windows, rows)})
    else:
        metadata["rows_per_day"] = f"min {min(rows)}, max {max(rows)}, mean {sum(rows) / len(rows):.1f}"
    return metadata


def table_schema(columns: list[tuple[str, str]], descriptions: dict[str, str] | None = None) -> dg.TableSchema:
    descriptions = descriptions or {}
    return dg.TableSchema(
        columns=[dg.TableColumn(name, dtype, description=descriptions.get(name) or None) for name, dtype in columns]
    )
