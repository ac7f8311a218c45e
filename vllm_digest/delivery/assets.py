"""The delivery group: ``published_site`` (the site pushed to a git branch), one ``daily_delivery``
per repository (each day to chat and e-mail, once) and its overdue check.

Each exists only when its channel is configured, so an unconfigured project's graph is unchanged.
The assets are thin: publish.py, deliver.py and log.py do the work and are tested directly.
"""

import datetime as dt

import dagster as dg

from vllm_digest.core.calendar import DayBeforeStartError, SINGLE_RUN, check_not_before_start, daily_partitions
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.keys import REPORT_ASSET, SITE_KEY
from vllm_digest.core.sqlmodel.state import StateResource
from vllm_digest.delivery.deliver import channels, deliver, overdue
from vllm_digest.delivery.log import read_log
from vllm_digest.delivery.publish import PublishError, publish
from vllm_digest.delivery.webhook import redact_url


GROUP = "delivery"
PUBLISHED_SITE_KEY = ["published_site"]
DELIVERY_ASSET = "daily_delivery"
OVERDUE_CHECK = "delivery_not_overdue"
# a range run copies metadata onto every day: the attempts table and previews stay readable
MAX_ROWS = 50
# what happens next to a message that went out without an answer, per on_unknown
_UNKNOWN_NEXT = {
    "hold": "not sent again (VLLM_DIGEST_DELIVERY_ON_UNKNOWN=resend for one run sends it again, =accept records it as delivered)",
    "resend": "sent again by the next run (on_unknown = resend)",
    "accept": "recorded as delivered by the next run (on_unknown = accept)",
}


def _md_table(header: list[str], rows: list[list[str]]) -> dg.MetadataValue:
    def cell(text) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")[:300]

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        lines.append(f"\n… and {len(rows) - MAX_ROWS} more")
    return dg.MetadataValue.md("\n".join(lines))


def build_published_site(settings: Settings) -> dg.AssetsDefinition:
    config = settings.delivery

    @dg.asset(
        key=PUBLISHED_SITE_KEY,
        deps=[dg.AssetKey(SITE_KEY)],
        group_name=GROUP,
        kinds={"git"},
        backfill_policy=SINGLE_RUN,
        description=(
            f"The site and every report, committed to branch `{config.publish_branch}` of the publish remote "
            "and pushed (GitHub Pages): `site/` and `reports/` as in the data home, a `.nojekyll` and a root "
            "`index.html` showing the site's index. One commit per publish, none when nothing changed; a push "
            "that fails stays on the local branch (`publish.git` in the data home) and is pushed by the next run."
        ),
    )
    def published_site(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
        try:
            result = publish(settings)
        except PublishError as exc:
            raise dg.Failure(description=f"publishing to {config.publish_remote} failed: {exc}") from None
        if result.superseded:
            context.log.warning(
                f"the remote branch moved on: built on it, leaving {len(result.superseded)} unpushed local commit(s)"
            )
        if result.dry_run:
            context.log.info(
                f"dry run: would commit {len(result.changed)} changed file(s) to {result.branch}: "
                + ", ".join(result.changed[:MAX_ROWS])
            )
        else:
            context.log.info(
                f"{result.branch}: {'commit ' + result.commit if result.commit else 'nothing changed'}; "
                f"{'pushed' if result.pushed else 'remote already up to date'}"
            )
        return dg.MaterializeResult(metadata={
            "remote": config.publish_remote,
            "branch": result.branch,
            "head": result.head or "none",
            "commit": result.commit or "none (nothing changed)" if not result.dry_run else "none (dry run)",
            "changed_files": len(result.changed),
            "changed": _md_table(["path"], [[p] for p in result.changed]),
            "pushed": result.pushed,
            "dry_run": result.dry_run,
        })

    return published_site


def _days(context, settings: Settings) -> list[str]:
    try:
        check_not_before_start(context.partition_key_range.start, settings)
    except DayBeforeStartError as exc:
        raise dg.Failure(description=str(exc), allow_retries=False) from None
    return list(context.partition_keys)


def build_delivery_asset(repo: RepoRef, settings: Settings, partitions_def) -> dg.AssetsDefinition:
    config = settings.delivery
    names = [c.name for c in channels(settings)]
    deps = [dg.AssetKey([*repo.key_prefix, REPORT_ASSET])]
    if config.publish_remote:
        # a message links the published page: send it only once the page is pushed
        deps.append(dg.AssetKey(PUBLISHED_SITE_KEY))

    @dg.asset(
        key=[*repo.key_prefix, DELIVERY_ASSET],
        deps=deps,
        partitions_def=partitions_def,
        backfill_policy=SINGLE_RUN,
        group_name=GROUP,
        kinds={"webhook" if n.startswith("webhook") else n for n in names},
        description=(
            f"Each day of {repo.full_name} sent once to {', '.join(names)}: the day's header, the five counts, "
            "the top topics and key changes and the link to the published page, read from the rendered report "
            "files. The state store's table `delivery_log` (`state.duckdb`, which a rebuild of the warehouse keeps) "
            "keeps it to one delivery per day: an unchanged day sends nothing, a "
            f"changed one sends an \"updated\" message {'(on)' if config.updates else '(off: VLLM_DIGEST_DELIVERY_UPDATES)'}; "
            "a failed attempt shows in the metadata and is retried by the next run. A message that went out without "
            "an answer is recorded as unknown and "
            + {"hold": "not sent again (at most once; VLLM_DIGEST_DELIVERY_ON_UNKNOWN=resend sends it again)",
               "resend": "sent again by the next run (at least once: VLLM_DIGEST_DELIVERY_ON_UNKNOWN=resend)",
               "accept": "recorded as delivered by the next run (VLLM_DIGEST_DELIVERY_ON_UNKNOWN=accept)"}[config.on_unknown]
            + "."
            + (" DRY RUN: logs what would be sent and sends nothing." if config.dry_run else "")
        ),
    )
    def daily_delivery(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
        days = _days(context, settings)
        run = deliver(settings, repo, days, state.connect)
        for preview in run.previews:
            context.log.info(f"dry run, would send: {preview}")
        for attempt in run.of("failed"):
            context.log.warning(f"{attempt.day} {attempt.channel}: {attempt.message} message failed, retried next run: {attempt.error}")
        for attempt in run.of("unknown"):
            context.log.warning(
                f"{attempt.day} {attempt.channel}: {attempt.message} message went out and got no answer, so it may have "
                f"arrived; {_UNKNOWN_NEXT[config.on_unknown]}: {attempt.error}"
            )
        for attempt in run.of("accepted"):
            context.log.info(f"{attempt.day} {attempt.channel}: unknown outcome recorded as delivered (on_unknown = accept)")
        sent, failed, unknown = run.of("sent"), run.of("failed"), run.of("unknown")
        context.log.info(
            f"{repo.full_name}: {len(sent)} sent, {len(failed)} failed, {len(unknown)} unknown, {run.unchanged} already delivered"
            + (f", {len(run.held_unknown)} unknown held" if run.held_unknown else "")
            + (f", {run.changed_not_sent} changed but not re-sent (updates off)" if run.changed_not_sent else "")
            + (f"; retried {', '.join(run.retried_days)}" if run.retried_days else "")
        )
        rows = [[a.day, a.channel, a.message, a.outcome, a.error or ""] for a in run.attempts]
        metadata = {
            "channels": ", ".join(names),
            "sent": len(sent),
            "failed": len(failed),
            "unknown": len(unknown),
            "unknown_held": ", ".join(run.held_unknown) or "none",
            "accepted": len(run.of("accepted")),
            "on_unknown": config.on_unknown,
            "already_delivered": run.unchanged,
            "changed_not_resent": run.changed_not_sent,
            "retried_days": ", ".join(run.retried_days) or "none",
            "attempts": _md_table(["day", "channel", "message", "outcome", "error"], rows),
            "dry_run": config.dry_run,
        }
        if config.webhook_url:
            metadata["webhook"] = redact_url(config.webhook_url)
        if run.previews:
            metadata["preview"] = dg.MetadataValue.md("\n\n".join(f"```\n{p}\n```" for p in run.previews[:10]))
        return dg.MaterializeResult(metadata=metadata)

    return daily_delivery


def build_overdue_check(repo: RepoRef, settings: Settings) -> dg.AssetChecksDefinition:
    @dg.asset_check(
        asset=dg.AssetKey([*repo.key_prefix, DELIVERY_ASSET]),
        name=OVERDUE_CHECK,
        description=(
            "Fails when a closed day's delivery is overdue: past the report's deadline (window end + schedule lag "
            "+ grace), a channel's message for the day failed and still waits for its retry, or a recently rendered "
            "day was never sent. A failure before the deadline is a warning, and so is a message that went out "
            "without an answer and is not sent again (did it arrive?)."
        ),
    )
    def delivery_not_overdue(state: StateResource) -> dg.AssetCheckResult:
        if settings.delivery.dry_run:
            return dg.AssetCheckResult(passed=True, description="dry run: nothing is delivered, so nothing is owed")
        with state.connect(read_only=True) as con:
            rows = read_log(con, repo.full_name)
        report = overdue(settings, repo, rows, dt.datetime.now(dt.timezone.utc))
        description = (
            f"{len(report.overdue)} overdue: {'; '.join(report.overdue[:5])}" if report.overdue
            else f"{len(report.pending)} failed, retried by the next run before the deadline" if report.pending
            else f"{len(report.unknown)} went out without an answer and are not sent again; check the receiver, then "
                 f"run once with VLLM_DIGEST_DELIVERY_ON_UNKNOWN=resend to send again or =accept to record as delivered: "
                 f"{'; '.join(report.unknown[:5])}" if report.unknown
            else "every owed delivery was made"
        )
        return dg.AssetCheckResult(
            passed=report.passed,
            severity=dg.AssetCheckSeverity.ERROR if report.overdue else dg.AssetCheckSeverity.WARN,
            description=description,
            metadata={
                "overdue": len(report.overdue),
                "pending": len(report.pending),
                "unknown": len(report.unknown),
                "owed": _md_table(["day channel: why"], [[x] for x in report.overdue + report.pending + report.unknown]),
            },
        )

    return delivery_not_overdue


def defs(settings: Settings) -> dg.Definitions:
    """The delivery stage's definitions: only what is configured (everything is off by default)."""
    config = settings.delivery
    assets: list = []
    checks: list = []
    if config.publish_remote:
        assets.append(build_published_site(settings))
    if config.channels:
        partitions_def = daily_partitions(settings)
        for repo in settings.repos:
            assets.append(build_delivery_asset(repo, settings, partitions_def))
            checks.append(build_overdue_check(repo, settings))
    return dg.Definitions(assets=assets, asset_checks=checks)
