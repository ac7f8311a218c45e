"""The site stage's asset: one index page and one Atom feed over every repository's reports."""

import dagster as dg

from vllm_digest.core.calendar import SINGLE_RUN
from vllm_digest.core.config.settings import Settings
from vllm_digest.core.keys import REPORT_ASSET, SITE_KEY, WEEKLY_ASSET
from vllm_digest.site.build import build_site



def build_site_asset(settings: Settings) -> dg.AssetsDefinition:
    @dg.asset(
        key=SITE_KEY,
        deps=[dg.AssetKey([*repo.key_prefix, name]) for repo in settings.repos for name in (REPORT_ASSET, WEEKLY_ASSET)],
        group_name="site",
        kinds={"html", "xml"},
        # unpartitioned, so one rebuild per run whatever its days; the policy lets
        # `dagster asset materialize --select '*' --partition-range A...B` take the site along
        backfill_policy=SINGLE_RUN,
        description=(
            "The browsable site over every rendered day and week: `site/index.html` (per repository, its "
            "weekly digests then its days, newest first, with the five counts and links to each language's "
            "HTML page) and `site/feed.xml` (an Atom feed, one entry per repository and day or week). Rebuilt "
            "from the `<day>.json` and `weekly/<monday>.json` files on disk, so it lists every day and week "
            "ever materialized, not only this run's."
        ),
    )
    def site(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
        built = build_site(settings)
        context.log.info(f"site: {built.days} days and {built.weeks} weeks of {built.repos} repositories -> {built.index}")
        return dg.MaterializeResult(
            metadata={
                "days": built.days,
                "weeks": built.weeks,
                "repos": built.repos,
                "newest_day": built.newest_day or "none",
                "path_index": dg.MetadataValue.path(str(built.index)),
                "path_feed": dg.MetadataValue.path(str(built.feed)),
            }
        )

    return site


def defs(settings: Settings) -> dg.Definitions:
    return dg.Definitions(assets=[build_site_asset(settings)])
