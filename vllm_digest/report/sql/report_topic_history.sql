-- report_topic_history: topic item counts of every day in the $history_days days up to each report day (the
-- topics chart), for the span $first .. $last of a batch.
SELECT day, topic_id, items FROM mart_topic_daily
WHERE repo = $repo AND day <= CAST($last AS DATE)
  AND day > CAST($first AS DATE) - to_days(CAST($history_days AS INTEGER))
ORDER BY day
