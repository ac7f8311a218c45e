"""Dagster's planned-events switch, as the setting ``planned_events_per_run`` (off by default).

When Dagster creates a run it records, before the run starts, a "planned" event for each asset the
run will materialize: for a run over a range of days, one per asset and day (12,775 for a year of our
graph; ~20 s of a year's run creation on SQLite, more on PostgreSQL). Dagster 1.13 reads one
environment variable, in the process that creates the run, to record one planned event per asset for
the whole range instead. The price: when such a run fails, its days are not marked failed, so the
UI's "failed" partition filter does not offer them for a re-run. So the setting stays off unless the
user turns it on; off, the environment is left as it is.

Which process creates a run: the one that calls ``dg.materialize`` or ``dagster asset materialize``
(these load our definitions, which apply the setting), and for the UI, schedules and sensors Dagster's
webserver and daemon, which never load our code: they must be started with the variable set, which
``python -m vllm_digest.orchestration.planned_events COMMAND...`` does (``make dev`` starts ``dg dev`` through it).
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping

from vllm_digest.core.config.settings import Settings, load_settings
from vllm_digest.core.config.values import SettingsError

# read by dagster/_core/storage/event_log/base.py (supports_partition_subset_in_asset_materialization_planned_events)
DAGSTER_SWITCH = "DAGSTER_EMIT_PARTITION_SUBSET_IN_PLANNED_EVENTS"


def apply(settings: Settings, environ: MutableMapping[str, str] = os.environ) -> None:
    """Turn Dagster's switch on in ``environ`` when the setting is on; off, leave it untouched."""
    if settings.planned_events_per_run:
        environ[DAGSTER_SWITCH] = "true"


def main(argv: list[str]) -> int:
    """Run ``argv`` (e.g. ``dg dev ...``) with the environment the settings ask of Dagster's processes."""
    if not argv:
        print("usage: python -m vllm_digest.orchestration.planned_events COMMAND [ARGS...]", file=sys.stderr)
        return 2
    try:
        apply(load_settings())
    except SettingsError:
        # start anyway: the code location reports the bad setting in the UI (Deployment -> View error),
        # as it does without this launcher; the switch then stays as the environment has it
        pass
    os.execvp(argv[0], argv)
    return 0  # not reached: exec replaces this process


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
