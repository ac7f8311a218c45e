"""End to end on a real `dagster dev`, third module (its own server, so that it runs on one test
worker while test_e2e_ui.py runs on the other): a UI backfill over days whose week is rendered and
whose following days are built, with the re-render sensor following it up.

This module's days are its own: nothing the other tests build triggers its follow-ups, so "nothing is
rendered twice" is read off every render of the server."""

from __future__ import annotations

import pytest

from tests.e2e_support import REPORT, SITE, WEEKLY, partitioned_keys
from tests.e2e_support import server  # noqa: F401  (the module's dagster dev: a fixture)
from vllm_digest.core.keys import BASELINE_SENSOR

pytestmark = pytest.mark.e2e


def test_a_ui_backfill_renders_each_day_and_week_once(server):
    """A backfill as the Lineage page's "Materialize all" sends it (every key, the days' names), over days
    whose week is already rendered and whose following days are built: the backfill renders its days and
    their week, the re-render sensor follows up later days, and nothing is rendered twice (the sensor used
    to render the backfilled week again, before or after the backfill's own weekly run)."""
    dev = server.dev
    nodes = dev.asset_nodes()
    # the days 03-06 ... 03-10 (a Friday to a Tuesday), their two weeks and the site, rendered before: one
    # backfill, whose runs the daemon orders by the dependencies (the days, then the weeks, then the site)
    ranges = {**{k: ("2026-03-06", "2026-03-10") for k in partitioned_keys(nodes)},
              WEEKLY: ("2026-03-02", "2026-03-09"), SITE: None}
    built = dev.wait_for_backfill(dev.launch_ranges_backfill(ranges, "e2e the days and weeks before"))
    assert built.status == "COMPLETED_SUCCESS", dev.fail(f"backfill ended {built.status}")
    weeks_before = sorted(m["partition"] for m in dev.materializations_in(WEEKLY, built))
    assert weeks_before == ["2026-03-02", "2026-03-09"], weeks_before
    dev.wait_until_quiet(BASELINE_SENSOR)
    before = {m["runId"] for key in (REPORT, WEEKLY) for m in dev.materializations(key)}
    # Friday to Sunday again, as the UI sends it: the week of 03-02 is the backfill's; 03-09 and 03-10 follow
    backfill = dev.run_backfill(sorted(nodes), "2026-03-06", "2026-03-08")
    assert backfill.status == "COMPLETED_SUCCESS", dev.fail(f"backfill ended {backfill.status}")
    dev.wait_until_quiet(BASELINE_SENSOR)
    renders = {key: sorted(m["partition"] for m in dev.materializations(key) if m["runId"] not in before)
               for key in (REPORT, WEEKLY)}
    runs = dev.graphql("""{ runsOrError(limit: 30) { ... on Runs { results { runId jobName status
        tags { key value } } } } }""")["runsOrError"]["results"]
    listed = [(r["jobName"], r["status"], {t["key"]: t["value"] for t in r["tags"]
                                          if "range" in t["key"] or "rerender" in t["key"]}) for r in runs]
    # nothing twice, and the backfilled days and their week once: the sensor used to render the week again;
    # the built days after them (03-09, 03-10) are followed up, and with them their week
    assert all(len(set(found)) == len(found) for found in renders.values()), (renders, listed)
    assert renders[REPORT] == ["2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09", "2026-03-10"], (renders, listed)
    assert renders[WEEKLY] == ["2026-03-02", "2026-03-09"], (renders, listed)
