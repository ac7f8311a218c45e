-- mart_section_picks: every item a day's report features, per analysis section, with its place (rank) in that
-- section and the score its selection mart gave it. Read from the selection marts as they rank, with the report's
-- own limits ($ranked_limit, $hot_limit, $topic_limit, $topic_numbers), so the picks are the report's items:
--   key_changes  mart_key_changes     first $ranked_limit by key_rank            score key_score
--   notable      mart_notable_issues  first $ranked_limit by notable_rank        score notable_score
--   discussions  mart_item_hotness    first $hot_limit by hotness_rank (hotness > 0) score hotness
--   topics       mart_topic_daily     the $topic_limit largest topics, each with its $topic_numbers newest members
--                                     (mart_item_topics); an item under several topics keeps its first; score hotness
--   focus        mart_focus_items     every item, by theme then newest;           score hotness
-- Ties break by the larger number, as the report's queries do. The follow-ups of later days read these rows.
WITH days AS (
    SELECT unnest(CAST($days AS DATE[])) AS day
),
key_changes AS (
    SELECT day, number, 'key_changes' AS section, key_score AS score, change_status AS detail,
           row_number() OVER (PARTITION BY day ORDER BY key_rank, number DESC) AS pick_rank
    FROM mart_key_changes WHERE repo = $repo AND day IN (SELECT day FROM days)
    QUALIFY pick_rank <= $ranked_limit
),
notable AS (
    SELECT day, number, 'notable' AS section, notable_score AS score, CAST(NULL AS VARCHAR) AS detail,
           row_number() OVER (PARTITION BY day ORDER BY notable_rank, number DESC) AS pick_rank
    FROM mart_notable_issues WHERE repo = $repo AND day IN (SELECT day FROM days)
    QUALIFY pick_rank <= $ranked_limit
),
discussions AS (
    SELECT day, number, 'discussions' AS section, hotness AS score, CAST(NULL AS VARCHAR) AS detail,
           row_number() OVER (PARTITION BY day ORDER BY hotness_rank, number DESC) AS pick_rank
    FROM mart_item_hotness WHERE repo = $repo AND day IN (SELECT day FROM days) AND hotness > 0
    QUALIFY pick_rank <= $hot_limit
),
listed_topics AS (
    SELECT day, topic_id, row_number() OVER (PARTITION BY day ORDER BY items DESC, topic_id) AS topic_pos
    FROM mart_topic_daily WHERE repo = $repo AND day IN (SELECT day FROM days) AND items > 0
    QUALIFY topic_pos <= $topic_limit
),
topic_members AS (
    SELECT l.day, m.number, l.topic_id, l.topic_pos
    FROM (SELECT DISTINCT day, topic_id, number FROM mart_item_topics
          WHERE repo = $repo AND day IN (SELECT day FROM days)) AS m
    JOIN listed_topics AS l USING (day, topic_id)
    QUALIFY row_number() OVER (PARTITION BY l.day, l.topic_id ORDER BY m.number DESC) <= $topic_numbers
),
topics AS (
    -- an item under several listed topics keeps the first; ranked once the duplicates are gone
    SELECT t.day, t.number, 'topics' AS section, coalesce(h.hotness, 0) AS score, t.topic_id AS detail,
           row_number() OVER (PARTITION BY t.day ORDER BY t.topic_pos, t.number DESC) AS pick_rank
    FROM (SELECT * FROM topic_members
          QUALIFY row_number() OVER (PARTITION BY day, number ORDER BY topic_pos) = 1) AS t
    LEFT JOIN mart_item_hotness AS h ON h.repo = $repo AND h.day = t.day AND h.number = t.number
),
focus AS (
    SELECT day, number, 'focus' AS section, coalesce(any_value(hotness), 0) AS score, min(theme_id) AS detail,
           row_number() OVER (PARTITION BY day ORDER BY min(theme_id), number DESC) AS pick_rank
    FROM mart_focus_items WHERE repo = $repo AND day IN (SELECT day FROM days)
    GROUP BY day, number
),
picks AS (
    SELECT * FROM key_changes UNION ALL SELECT * FROM notable UNION ALL SELECT * FROM discussions
    UNION ALL SELECT * FROM topics UNION ALL SELECT * FROM focus
)
SELECT $repo AS repo, p.day, p.section, CAST(p.pick_rank AS INTEGER) AS pick_rank, p.number, i.kind, i.title,
       CAST(p.score AS DOUBLE) AS score, p.detail
FROM picks AS p
JOIN core_items AS i ON i.repo = $repo AND i.day = p.day AND i.number = p.number
