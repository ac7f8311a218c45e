-- int_item_topic_sets: per item of the day, its topics as lists (all, risk, rising that day) and how many are
-- substantive (not the 'process' group); mart_key_changes and mart_notable_issues score items from it.
WITH days AS (
    SELECT day FROM run_days
)
SELECT $repo AS repo, it.day, it.number,
       list_sort(list(it.topic_id)) AS topics,
       list_sort(list(it.topic_id) FILTER (WHERE it.topic_risk)) AS risk_topics,
       CAST(count(*) FILTER (WHERE it.topic_group <> 'process') AS INTEGER) AS substantive,
       list_sort(list(it.topic_id) FILTER (WHERE td.rising)) AS rising_topics
FROM mart_item_topics AS it
LEFT JOIN mart_topic_daily AS td ON td.repo = it.repo AND td.day = it.day AND td.topic_id = it.topic_id
WHERE it.repo = $repo AND it.day IN (SELECT day FROM days)
GROUP BY it.day, it.number
