"""The report stage's asset: render each day's digest from the marts."""

import time

import dagster as dg

from vllm_digest.core import gc_pause
from vllm_digest.core.calendar import (
    SINGLE_RUN, context_weeks, log_progress, context_windows, daily_partitions, day_span, weekly_partitions,
)
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.due import report_freshness_policy
from vllm_digest.core.keys import REPORT_ASSET, WEEKLY_ASSET, WEEKLY_GROUP
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.core.sqlmodel.state import StateResource
from vllm_digest.report.build import build_reports, featured_focus
from vllm_digest.report.day.queries import TABLES_READ
from vllm_digest.report.metadata import report_metadata, weekly_metadata
from vllm_digest.report.narration import narrate_reports, prefetch_cache
from vllm_digest.report.narrative.cache import BatchedStore
from vllm_digest.report.narrative.resource import NarrativeResource
from vllm_digest.report.render import sweep_report_leftovers, write_report
from vllm_digest.report.weekly import WEEKLY_TABLES_READ, build_weeks, weekly_dir, write_week




def build_report_asset(repo: RepoRef, settings: Settings, partitions_def) -> dg.AssetsDefinition:
    # read here so a taxonomy without a focus area stops the code location, not a run
    focus = featured_focus(settings)

    @dg.asset(
        key=[*repo.key_prefix, REPORT_ASSET],
        # every table the report context reads, so the UI's lineage shows them all
        deps=[dg.AssetKey([*repo.key_prefix, t]) for t in TABLES_READ],
        partitions_def=partitions_def,
        backfill_policy=SINGLE_RUN,
        group_name="report",
        kinds={"markdown", "html", "jinja"},
        freshness_policy=report_freshness_policy(settings),
        description=(
            f"The daily development digest of {repo.full_name}: the header with the window and the "
            "five counts, the seven analysis sections and the appendix of the five lists, written "
            f"to `reports/{repo.owner}/{repo.name}/<day>.<lang>.md` and a self-contained "
            "`<day>.<lang>.html` with charts of the last 30 days (languages: "
            f"{', '.join(settings.languages)}), plus `<day>.json` with the counts and item numbers. "
            "With the optional `narrative` resource pointed at an LLM, each analysis section's body is "
            "the model's text wherever every item and figure in it is in that section's data, else the "
            "deterministic text; responses are cached in the state store (`state.duckdb`, which a rebuild of "
            "the warehouse keeps)."
        ),
    )
    def daily_report(
        context: dg.AssetExecutionContext, warehouse: WarehouseResource, state: StateResource,
        narrative: NarrativeResource,
    ) -> dg.MaterializeResult:
        windows = context_windows(context, settings)
        # what a killed report step left (its temporaries), before this step writes anything of its own
        swept = sweep_report_leftovers(settings, repo, time.time())
        if swept:
            context.log.info(f"removed {len(swept)} leftovers of an interrupted report write: "
                             f"{', '.join(p.name for p in swept)}")
        narrative_config = narrative.narrative_config()
        # the batch's rows and pages hold no reference cycles: no collector passes over them (gc_pause)
        with gc_pause.paused(), warehouse.connect(read_only=True) as con:
            days = build_reports(con, settings, repo, windows, lambda done, total: log_progress(
                context.log, f"report {repo.full_name}: built", done, total))
        cached = BatchedStore()
        if narrative_config.enabled:  # the narrative off never opens (nor creates) the state store
            with state.connect(read_only=True) as con:
                cached = prefetch_cache(con, narrative_config, days, focus)
        days, narration = narrate_reports(state.connect, narrative_config, days, focus, cached)
        written = {}
        with gc_pause.paused():
            for done, day in enumerate(days, 1):
                written = write_report(settings, repo, day)
                log_progress(context.log, f"report {repo.full_name}: written", done, len(days))
        metadata = {
            "days": day_span(windows),
            # the last day's previews and pages (``written`` holds the last day's files)
            **report_metadata(settings, repo, [day[0] for day in days], written, days[-1]),
            **narration.metadata(),
        }
        context.log.info(f"wrote reports for {repo.full_name} {day_span(windows)}; {narration.log_line()}")
        return dg.MaterializeResult(metadata=metadata)

    return daily_report


def build_weekly_asset(repo: RepoRef, settings: Settings, partitions_def) -> dg.AssetsDefinition:
    @dg.asset(
        key=[*repo.key_prefix, WEEKLY_ASSET],
        # the daily marts it sums; Dagster maps each week to its seven days (no offset: the week before is
        # read from the warehouse as it stands, like every look-back here). And the days' reports, which its
        # pages link to: also the last step of a run over days, so a UI backfill asks for the weeks once the
        # day run is done. Without it the backfill daemon could start the weekly run as soon as the day run's
        # analytics step had written some of its days' events (its checks and reports still to come): the
        # weeks came in two runs, a tick later, and the re-render sensor rendered them again after the day run
        deps=[dg.AssetKey([*repo.key_prefix, t]) for t in (*WEEKLY_TABLES_READ, REPORT_ASSET)],
        partitions_def=partitions_def,
        backfill_policy=SINGLE_RUN,
        group_name=WEEKLY_GROUP,
        kinds={"markdown", "html", "jinja"},
        description=(
            f"The weekly digest of {repo.full_name}, Monday to Sunday in the configured timezone and cutoff: "
            "the week's five counts beside the week before's (sums of mart_daily_counts), its topics ranked by "
            "mart_topic_daily's surprise (the week's peak), the key changes its daily reports featured "
            "and that were merged within it, and what became of the items those reports featured (mart_follow_ups). "
            "Built from the daily marts without fetching, written to "
            f"`reports/{repo.owner}/{repo.name}/weekly/<monday>.<lang>.md`, `.html` and `<monday>.json` "
            f"(languages: {', '.join(settings.languages)}); the site lists it and its feed carries it."
        ),
    )
    def weekly_digest(context: dg.AssetExecutionContext, warehouse: WarehouseResource) -> dg.MaterializeResult:
        weeks = context_weeks(context)
        with warehouse.connect(read_only=True) as con:
            built = build_weeks(con, settings, repo, weeks)
        written: dict = {}
        for week in built:
            written = write_week(settings, repo, week)
        context.log.info(f"wrote weekly digests for {repo.full_name}: {', '.join(weeks)}")
        return dg.MaterializeResult(metadata=weekly_metadata(weeks, built, written, weekly_dir(settings, repo)))

    return weekly_digest


def defs(settings: Settings) -> dg.Definitions:
    """The report stage: one daily report and one weekly digest asset per repository, and the narrative
    resource the daily report may call."""
    partitions_def = daily_partitions(settings)
    weeks = weekly_partitions(settings)
    return dg.Definitions(
        assets=[a for repo in settings.repos
                for a in (build_report_asset(repo, settings, partitions_def), build_weekly_asset(repo, settings, weeks))],
        resources={"narrative": NarrativeResource.from_settings(settings.narrative)},
    )
