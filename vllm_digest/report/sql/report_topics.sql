-- report_topics: the topics each day lists (mart_topic_daily.listed, where the listing rule lives), in its topic_rank.
SELECT day, topic_id, topic_zh, topic_en, items, items_ratio, rising, trend_status, baseline_days, baseline_window,
       trend, surprise, expected_items, volume_factor, day_items, generic, primary_items, listable_threads,
       story_points, topic_score, topic_rank
FROM mart_topic_daily
WHERE repo = $repo AND day IN (SELECT day FROM run_days) AND listed
ORDER BY day, topic_rank
