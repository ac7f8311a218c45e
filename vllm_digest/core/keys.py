"""The names the stages and the orchestration share: jobs, schedules, asset groups and the run tags
Dagster sets on a partition-range run. Defined here so a stage never imports the orchestration."""

DAILY_JOB = "daily_digest"
DAILY_SCHEDULE = "daily_digest_schedule"
WEEKLY_JOB = "weekly_digest"
WEEKLY_SCHEDULE = "weekly_digest_schedule"
# the weekly digests' asset group: weekly partitions, so a job of their own (a run covers one partitions
# definition); the daily job takes every other asset
WEEKLY_GROUP = "weekly"
SITE_GROUP = "site"
RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"

# the assets every stage and the orchestration name: the raw landing, the day's report, the weekly digest,
# the site (one for all repositories); a repository's asset keys are its key prefix and the name
RAW_ASSET = "raw_activity"
REPORT_ASSET = "daily_report"
WEEKLY_ASSET = "weekly_digest"
SITE_KEY = ["site"]
# the sensor that re-renders the days after a run (orchestration/sensors.py)
BASELINE_SENSOR = "baseline_rerender_sensor"
