"""The warehouse stage's assets: its stg, core and mart layers (SQL models, one Dagster asset per table,
built by ``core/sqlmodel/assets.py``'s layer factory), their checks, the warehouse resource and the state store's
(what outlives a rebuild of the warehouse: the delivery log, the narrative cache)."""

import dagster as dg

from vllm_digest.core.calendar import daily_partitions, day_span
from vllm_digest.core.config.settings import Settings
from vllm_digest.core.keys import RAW_ASSET
from vllm_digest.core.sqlmodel.assets import build_layer_asset
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.core.sqlmodel.state import StateResource
from vllm_digest.ingest.raw_store import DamagedLandingError
from vllm_digest.warehouse.checks import build_repo_checks
from vllm_digest.warehouse.layers import CORE_MODELS, MART_MODELS, STG_MODELS, build_days


def defs(settings: Settings) -> dg.Definitions:
    """Each repository's stg, core and mart layers, their checks, the ``warehouse`` resource
    that every stage reading or writing the warehouse shares, and the ``state`` resource (the report's
    narrative cache, delivery's log), which carries over what an older warehouse held of them."""
    partitions_def = daily_partitions(settings)
    layers = (("stg", STG_MODELS), ("core", CORE_MODELS), ("mart", MART_MODELS))

    def build(con, repo, windows, models):
        try:
            return build_days(con, models, repo, windows, settings.raw_dir)
        except DamagedLandingError as exc:
            # the step's headline names the file, the line and the counts (not Dagster's "Error occurred
            # while executing op"); the layer's transaction never began, so nothing of the run is staged
            raise dg.Failure(description=f"staging {repo.full_name} {day_span(windows)} failed: {exc}",
                             allow_retries=False) from exc

    return dg.Definitions(
        assets=[
            # the stg tables read the landed files: their asset depends on the raw landing
            build_layer_asset(repo, settings, partitions_def, layer, models, "warehouse", build=build,
                              source=RAW_ASSET if layer == "stg" else None)
            for repo in settings.repos
            for layer, models in layers
        ],
        asset_checks=[c for repo in settings.repos for c in build_repo_checks(repo, settings, partitions_def)],
        resources={
            "warehouse": WarehouseResource(path=str(settings.warehouse_path)),
            "state": StateResource(path=str(settings.state_path), carry_over_from=str(settings.warehouse_path)),
        },
    )
