"""Assembles each stage's definitions from the settings; nothing else lives here."""

from __future__ import annotations

import sys
import warnings

import dagster as dg

from vllm_digest.analytics import assets as analytics
from vllm_digest.core.config.settings import Settings, load_settings
from vllm_digest.core.config.values import SettingsError
from vllm_digest.delivery import assets as delivery
from vllm_digest.ingest import assets as ingest
from vllm_digest.orchestration import definitions as orchestration
from vllm_digest.orchestration import planned_events
from vllm_digest.report import assets as report
from vllm_digest.site import assets as site
from vllm_digest.warehouse import assets as warehouse

# Dagster flags two APIs the graph is built on as not yet stable: BackfillPolicy (beta) and
# partitioned asset checks (preview). It warns on every load, so on every command, about a choice
# made once with dagster pinned to 1.13.x: nothing a user can act on. Only these two categories,
# only while our definitions are built; anything else Dagster warns about still shows.
PINNED_API_WARNINGS = (dg.BetaWarning, dg.PreviewWarning)


# in the order a day flows through them; delivery adds nothing unless configured; the orchestration adds
# the jobs, their schedules, the re-render sensor and the executor
STAGES = (ingest.defs, warehouse.defs, analytics.defs, report.defs, site.defs, delivery.defs, orchestration.defs)


def build_definitions(settings: Settings) -> dg.Definitions:
    # read by Dagster when this process creates a run (dg.materialize, `dagster asset materialize`)
    planned_events.apply(settings)
    with warnings.catch_warnings():
        for category in PINNED_API_WARNINGS:
            warnings.filterwarnings("ignore", category=category)
        return dg.Definitions.merge(*(stage(settings) for stage in STAGES))


class ConfigurationError(dg.DagsterError):
    """A bad setting, raised while the code location loads; its text is the one line that says which.

    A DagsterError: Dagster's load boundary passes it through unwrapped (any other exception becomes a
    "Error occurred during the loading of Dagster definitions" whose cause is the real message), so the
    UI's code location error (Deployment -> View error) starts with the line itself."""


def load_definitions() -> dg.Definitions:
    try:
        settings = load_settings()
    except SettingsError as exc:
        # a user's typo, not a bug: no traceback (sys.tracebacklimit: tracebacks printed or serialized
        # from here on, by Python or by Dagster's error info, show the line alone), and no chained cause
        sys.tracebacklimit = 0
        raise ConfigurationError(str(exc)) from None
    return build_definitions(settings)


defs = load_definitions()
