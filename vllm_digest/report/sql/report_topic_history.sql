-- report_topic_history: topic item counts of every day in the $history_days days up to each report day (the
-- topics chart), for the span of the batch's days (run_days).
SELECT day, topic_id, items FROM mart_topic_daily
WHERE repo = $repo AND day <= (SELECT max(day) FROM run_days)
  AND day > (SELECT min(day) FROM run_days) - to_days(CAST($history_days AS INTEGER))
ORDER BY day
