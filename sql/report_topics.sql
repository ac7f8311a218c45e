-- report_topics: the topics each day lists: its $topic_limit largest, ties by id, with their trend.
SELECT day, topic_id, topic_zh, topic_en, items, items_ratio, rising, trend_status, baseline_days, baseline_window
FROM mart_topic_daily
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[]))) AND items > 0
QUALIFY row_number() OVER (PARTITION BY day ORDER BY items DESC, topic_id) <= $topic_limit
ORDER BY day, items DESC, topic_id
