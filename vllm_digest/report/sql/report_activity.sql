-- report_activity: each day's mart_activity_daily row (merge rate, PR authors and the facts under the activity
-- paragraph).
SELECT * FROM mart_activity_daily
WHERE repo = $repo AND day IN (SELECT day FROM run_days)
ORDER BY day
