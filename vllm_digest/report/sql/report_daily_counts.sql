-- report_daily_counts: the five counts of each report day (the header, the summary and the counts chart).
SELECT * FROM mart_daily_counts
WHERE repo = $repo AND day IN (SELECT day FROM run_days)
ORDER BY day
