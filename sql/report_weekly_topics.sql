-- report_weekly_topics: each week's most surprising topics, read from mart_topic_daily's own trend judgement of
-- each day: the days the topic was rising first, then its highest items_ratio, then its items over the week;
-- ties by id. The first $topic_limit of each week, with the days it had items.
WITH weeks AS (
    SELECT unnest(CAST($weeks AS DATE[])) AS week
),
per_topic AS (
    SELECT w.week, t.topic_id, any_value(t.topic_zh) AS topic_zh, any_value(t.topic_en) AS topic_en,
           CAST(sum(t.items) AS INTEGER) AS items,
           CAST(count(*) FILTER (WHERE t.rising) AS INTEGER) AS rising_days,
           max(t.items_ratio) AS peak_ratio,
           CAST(count(*) AS INTEGER) AS days_with_items
    FROM weeks AS w
    JOIN mart_topic_daily AS t
      ON t.repo = $repo AND t.day >= w.week AND t.day < CAST(w.week + INTERVAL 7 DAY AS DATE) AND t.items > 0
    GROUP BY w.week, t.topic_id
)
SELECT * FROM per_topic
QUALIFY row_number() OVER (PARTITION BY week ORDER BY rising_days DESC, peak_ratio DESC NULLS LAST, items DESC,
                                                      topic_id) <= $topic_limit
ORDER BY week, rising_days DESC, peak_ratio DESC NULLS LAST, items DESC, topic_id
