-- report_topics: the topics each day lists, in mart_topic_daily's topic_rank: the first three, then up to $topic_limit while they have a listable thread.
SELECT day, topic_id, topic_zh, topic_en, items, items_ratio, rising, trend_status, baseline_days, baseline_window,
       trend, surprise, expected_items, volume_factor, day_items, generic, primary_items, listable_threads,
       story_points, topic_score, topic_rank
FROM mart_topic_daily
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[]))) AND items > 0
  AND topic_rank <= $topic_limit AND (topic_rank <= 3 OR listable_threads > 0)
ORDER BY day, topic_rank
