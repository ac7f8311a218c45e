"""The instance configuration `make dev` installs (dagster.yaml), loaded by Dagster itself."""

from __future__ import annotations

import dagster as dg

from vllm_digest.testing.pipeline import project_dagster_home


def test_instance_queues_runs_has_no_warehouse_pool_monitors_runs_and_retries_only_crashes(tmp_path):
    with dg.DagsterInstance.from_config(str(project_dagster_home(tmp_path))) as instance:
        assert type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"
        # a UI backfill's chained runs each wait for the queue's next look: every second, not Dagster's 5
        assert instance.run_coordinator.dequeue_interval_seconds == 1
        concurrency = instance.get_concurrency_config()
        assert concurrency.run_queue_config.max_concurrent_runs == 4
        # no pool: the warehouse lock keeps one writer, and a killed run cannot keep a pool slot
        assert concurrency.pool_config.default_pool_limit is None
        # the daemon fails runs stuck starting or canceling; the default launcher cannot resume one
        assert instance.run_monitoring_enabled
        assert instance.run_monitoring_max_resume_run_attempts == 0
        assert (instance.run_retries_enabled, instance.run_retries_max_retries) == (True, 1)
        # step failures are the fetch RetryPolicy's job; a run retry would repeat a permanent error
        assert instance.run_retries_retry_on_asset_or_op_failure is False
        # the report's freshness policy is evaluated by the daemon only when this is on
        assert instance.freshness_enabled is True
        assert instance.telemetry_enabled is False
