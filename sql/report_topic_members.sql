-- report_topic_members: the threads listed under each topic a day lists (report_topics' rule): its listable ones (>= the taxonomy's min_story points), best first, up to $topic_threads; a topic with none shows its best one.
WITH listed AS (
    SELECT day, topic_id, listable_threads, threads FROM mart_topic_daily
    WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[]))) AND items > 0
      AND topic_rank <= $topic_limit AND (topic_rank <= 3 OR listable_threads > 0)
),
threads AS (
    SELECT day, topic_id, listable_threads, unnest(threads) AS t, generate_subscripts(threads, 1) AS position
    FROM listed
)
SELECT day, topic_id, position, t.head AS head, t.numbers AS numbers, t.points AS points, t.parts AS parts
FROM threads
WHERE position <= greatest(least(listable_threads, $topic_threads), 1)
ORDER BY day, topic_id, position
