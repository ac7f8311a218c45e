-- report_topic_members: the first $topic_numbers members (newest numbers first) of each topic a day lists
-- (the same $topic_limit largest topics as report_topics); a year holds ~600,000 memberships.
WITH listed AS (
    SELECT day, topic_id FROM mart_topic_daily
    WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[]))) AND items > 0
    QUALIFY row_number() OVER (PARTITION BY day ORDER BY items DESC, topic_id) <= $topic_limit
),
members AS (
    SELECT DISTINCT day, topic_id, number FROM mart_item_topics
    WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
)
SELECT day, topic_id, number FROM members JOIN listed USING (day, topic_id)
QUALIFY row_number() OVER (PARTITION BY day, topic_id ORDER BY number DESC) <= $topic_numbers
ORDER BY day, topic_id, number DESC
