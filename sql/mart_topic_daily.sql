-- mart_topic_daily: per topic with items today: how many items (by kind, new, merged, closed), their summed
-- hotness and hottest items, and the trend against the trailing $trend_baseline_days days, read from this
-- table's own earlier rows (a topic absent on a built day counted 0 that day).
--   baseline_days       earlier days in [day - N, day - 1] that were built (have a mart_activity_daily row)
--   baseline_window     N, the trailing days a complete baseline holds (the report prints "baseline_days of N")
--   baseline_mean_items sum of the topic's items over those N days / N, only when baseline_days = N
--   items_ratio         items / baseline_mean_items (NULL when the baseline is incomplete or its mean is 0)
--   rising              baseline complete AND items >= $trend_rising_min_items AND
--                       (items_ratio >= $trend_rising_ratio OR the baseline mean is 0)
--   trend_status        'baseline incomplete' (fewer than N earlier days: no ratio is invented), else
--                       'rising', 'new' (mean 0, too few items to call rising), 'falling'
--                       (ratio <= $trend_falling_ratio) or 'steady'
-- Days of the same batch count each other through the fresh rows; earlier days outside the batch are read
-- from this table as they are now. So a day built before some of its trailing days keeps baseline_days < N
-- (its report says the baseline is incomplete, with no arrow) until it is rebuilt; the baseline sensor
-- (vllm_digest/schedules.py) re-renders the N days after a run's last day for that reason.
WITH days AS (
    SELECT unnest(CAST($days AS DATE[])) AS day
),
it AS (
    SELECT * FROM mart_item_topics WHERE repo = $repo AND day IN (SELECT day FROM days)
),
hot AS (
    SELECT * FROM mart_item_hotness WHERE repo = $repo AND day IN (SELECT day FROM days)
),
today AS (
    SELECT it.day, it.topic_id, any_value(it.topic_zh) AS topic_zh, any_value(it.topic_en) AS topic_en,
           any_value(it.topic_group) AS topic_group, any_value(it.taxonomy_version) AS taxonomy_version,
           count(DISTINCT it.number) AS items,
           count(DISTINCT it.number) FILTER (WHERE it.kind = 'issue') AS issues,
           count(DISTINCT it.number) FILTER (WHERE it.kind = 'pr') AS prs,
           count(DISTINCT it.number) FILTER (WHERE h.opened_in_window) AS new_items,
           count(DISTINCT it.number) FILTER (WHERE h.merged_in_window) AS merged_prs,
           count(DISTINCT it.number) FILTER (WHERE h.closed_in_window AND NOT h.merged_in_window) AS closed_items,
           coalesce(sum(h.hotness), 0) AS hotness_sum,
           list(it.number ORDER BY h.hotness DESC, it.number DESC)[1:5] AS top_items
    FROM it LEFT JOIN hot AS h ON h.day = it.day AND h.number = it.number
    GROUP BY it.day, it.topic_id
),
history AS (
    -- the batch's own days, fresh; earlier days from this table (the batch's rows were deleted before this insert)
    SELECT day, topic_id, items FROM today
    UNION ALL
    SELECT day, topic_id, items FROM mart_topic_daily
    WHERE repo = $repo
      AND day >= (SELECT min(day) FROM days) - CAST($trend_baseline_days AS INTEGER)
      AND day < (SELECT max(day) FROM days)
      AND day NOT IN (SELECT day FROM days)
),
built AS (
    -- a day counts toward the baseline when it was built, even if the topic had no item that day
    SELECT DISTINCT day FROM mart_activity_daily
    WHERE repo = $repo
      AND day >= (SELECT min(day) FROM days) - CAST($trend_baseline_days AS INTEGER)
      AND day < (SELECT max(day) FROM days)
),
baseline_days AS (
    SELECT d.day, count(b.day) AS n
    FROM days AS d
    LEFT JOIN built AS b ON b.day >= d.day - CAST($trend_baseline_days AS INTEGER) AND b.day < d.day
    GROUP BY d.day
),
prior AS (
    SELECT t.day, t.topic_id, sum(h.items) AS items_sum
    FROM today AS t
    JOIN history AS h ON h.topic_id = t.topic_id
                     AND h.day >= t.day - CAST($trend_baseline_days AS INTEGER) AND h.day < t.day
    GROUP BY t.day, t.topic_id
),
trend AS (
    SELECT t.*, b.n AS baseline_days,
           CAST(coalesce(p.items_sum, 0) AS INTEGER) AS baseline_items_sum,
           CASE WHEN b.n = CAST($trend_baseline_days AS INTEGER)
                THEN coalesce(p.items_sum, 0) / CAST($trend_baseline_days AS DOUBLE) END AS baseline_mean_items
    FROM today AS t
    JOIN baseline_days AS b ON b.day = t.day
    LEFT JOIN prior AS p ON p.day = t.day AND p.topic_id = t.topic_id
)
SELECT $repo AS repo, day, topic_id, topic_zh, topic_en, topic_group,
       items, issues, prs, new_items, merged_prs, closed_items, hotness_sum, top_items,
       CAST(baseline_days AS INTEGER) AS baseline_days, CAST($trend_baseline_days AS INTEGER) AS baseline_window,
       baseline_items_sum, baseline_mean_items,
       CASE WHEN baseline_mean_items > 0 THEN round(items / baseline_mean_items, 4) END AS items_ratio,
       coalesce(baseline_mean_items IS NOT NULL AND items >= CAST($trend_rising_min_items AS INTEGER)
                AND (baseline_mean_items = 0 OR items / baseline_mean_items >= CAST($trend_rising_ratio AS DOUBLE)),
                false) AS rising,
       CASE WHEN baseline_mean_items IS NULL THEN 'baseline incomplete'
            WHEN items >= CAST($trend_rising_min_items AS INTEGER)
                 AND (baseline_mean_items = 0 OR items / baseline_mean_items >= CAST($trend_rising_ratio AS DOUBLE))
                 THEN 'rising'
            WHEN baseline_mean_items = 0 THEN 'new'
            WHEN items / baseline_mean_items <= CAST($trend_falling_ratio AS DOUBLE) THEN 'falling'
            ELSE 'steady' END AS trend_status,
       taxonomy_version
FROM trend
