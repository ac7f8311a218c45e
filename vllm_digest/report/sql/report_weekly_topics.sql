-- report_weekly_topics: each week's topics ranked by surprise as mart_topic_daily scored each day: specific topics
-- before generic buckets (as its topic_rank does), then the week's peak surprise (its Poisson z-score), then items;
-- ties by id. The first $topic_limit of each week, with the days it had items and the days the daily report listed
-- it (mart_topic_daily.listed: the rule the daily report's topics section reads). Its names are the latest day's.
WITH weeks AS (
    SELECT DISTINCT CAST(date_trunc('week', day) AS DATE) AS week FROM run_days
),
per_topic AS (
    SELECT w.week, t.topic_id, arg_max(t.topic_zh, t.day) AS topic_zh, arg_max(t.topic_en, t.day) AS topic_en,
           CAST(sum(t.items) AS INTEGER) AS items,
           max(t.surprise) AS peak_surprise,
           coalesce(bool_or(t.generic), false) AS generic,
           CAST(count(*) FILTER (WHERE t.listed) AS INTEGER) AS listed_days,
           CAST(count(*) AS INTEGER) AS days_with_items
    FROM weeks AS w
    JOIN mart_topic_daily AS t
      ON t.repo = $repo AND t.day >= w.week AND t.day < CAST(w.week + INTERVAL 7 DAY AS DATE) AND t.items > 0
    GROUP BY w.week, t.topic_id
)
SELECT * FROM per_topic
QUALIFY row_number() OVER (PARTITION BY week ORDER BY generic, peak_surprise DESC NULLS LAST, items DESC,
                                                      topic_id) <= $topic_limit
ORDER BY week, generic, peak_surprise DESC NULLS LAST, items DESC, topic_id
