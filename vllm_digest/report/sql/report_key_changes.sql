-- report_key_changes: each day's key changes the fitted model selected (mart_key_changes.selected), in rank order,
-- with the score's parts that explain the choice and the display names (ref_taxonomy_rules) of its first 3
-- topics, which the report prints instead of their keys; and what the PR's own description gives
-- (core_item_texts): the figures its Test Result reports, with that section's prose to quote them from, and the
-- issues it closes (at most 2), each with its title when the issue is an item of the day.
WITH picked AS (
    SELECT day, number, change_status, topics, score_parts,
           key_score AS score, key_probability AS probability, key_rank AS rank
    FROM mart_key_changes
    WHERE repo = $repo AND day IN (SELECT day FROM run_days) AND selected
),
topic_names AS (
    SELECT DISTINCT day, owner_id AS topic_id, name_zh, name_en FROM ref_taxonomy_rules
    WHERE repo = $repo AND day IN (SELECT day FROM run_days) AND scope = 'topic'
),
listed AS (
    SELECT day, number, 'topics' AS list, unnest(topics[1:3]) AS topic_id,
           generate_subscripts(topics[1:3], 1) AS pos FROM picked
),
named AS (
    SELECT l.day, l.number, l.list, l.pos, t.name_zh, t.name_en
    FROM listed AS l JOIN topic_names AS t ON t.day = l.day AND t.topic_id = l.topic_id
)
SELECT p.day, p.number, p.change_status, p.topics, p.score_parts, p.score, p.probability,
       coalesce((SELECT list(struct_pack(zh := n.name_zh, en := n.name_en) ORDER BY n.pos) FROM named AS n
                 WHERE n.day = p.day AND n.number = p.number AND n.list = 'topics'), []) AS topics_names,
       coalesce(x.result_figures, CAST([] AS VARCHAR[])) AS result_figures,
       coalesce(x.test_result, '') AS test_result,
       coalesce((SELECT list(struct_pack(number := r.n, kind := c.kind, title := c.title) ORDER BY r.pos)
                 FROM (SELECT unnest(x.referenced_items[1:2]) AS n, generate_subscripts(x.referenced_items[1:2], 1) AS pos) AS r
                 LEFT JOIN core_items AS c ON c.repo = $repo AND c.day = p.day AND c.number = r.n
                 WHERE r.n <> p.number), []) AS fixes
FROM picked AS p
LEFT JOIN core_item_texts AS x ON x.repo = $repo AND x.day = p.day AND x.number = p.number
ORDER BY p.day, p.rank, p.number DESC
