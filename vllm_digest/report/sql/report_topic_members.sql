-- report_topic_members: the threads listed under each topic a day lists, best first: the first shown_threads of mart_topic_daily (listed, and the rule of how many, live there).
WITH listed AS (
    SELECT day, topic_id, shown_threads, threads FROM mart_topic_daily
    WHERE repo = $repo AND day IN (SELECT day FROM run_days) AND listed
),
threads AS (
    SELECT day, topic_id, shown_threads, unnest(threads) AS t, generate_subscripts(threads, 1) AS position
    FROM listed
)
SELECT day, topic_id, position, t.head AS head, t.numbers AS numbers, t.points AS points, t.parts AS parts
FROM threads
WHERE position <= shown_threads
ORDER BY day, topic_id, position
