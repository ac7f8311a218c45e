-- report_notable: each day's items to watch the fitted model selected (mart_notable_issues.selected), in rank
-- order, with the score's parts that explain the choice and the display names (ref_taxonomy_rules) of the first 3
-- of its risk topics and of its topics, which the report prints instead of their keys.
WITH picked AS (
    SELECT day, number, topics, risk_topics, score_parts,
           notable_score AS score, notable_probability AS probability, notable_rank AS rank
    FROM mart_notable_issues
    WHERE repo = $repo AND day IN (SELECT day FROM run_days) AND selected
),
topic_names AS (
    SELECT DISTINCT day, owner_id AS topic_id, name_zh, name_en FROM ref_taxonomy_rules
    WHERE repo = $repo AND day IN (SELECT day FROM run_days) AND scope = 'topic'
),
listed AS (
    SELECT day, number, 'topics' AS list, unnest(topics[1:3]) AS topic_id,
           generate_subscripts(topics[1:3], 1) AS pos FROM picked
    UNION ALL
    SELECT day, number, 'risk_topics' AS list, unnest(risk_topics[1:3]) AS topic_id,
           generate_subscripts(risk_topics[1:3], 1) AS pos FROM picked
),
named AS (
    SELECT l.day, l.number, l.list, l.pos, t.name_zh, t.name_en
    FROM listed AS l JOIN topic_names AS t ON t.day = l.day AND t.topic_id = l.topic_id
)
SELECT p.day, p.number, p.topics, p.risk_topics, p.score_parts, p.score, p.probability,
       coalesce((SELECT list(struct_pack(zh := n.name_zh, en := n.name_en) ORDER BY n.pos) FROM named AS n
                 WHERE n.day = p.day AND n.number = p.number AND n.list = 'topics'), []) AS topics_names,
       coalesce((SELECT list(struct_pack(zh := n.name_zh, en := n.name_en) ORDER BY n.pos) FROM named AS n
                 WHERE n.day = p.day AND n.number = p.number AND n.list = 'risk_topics'), []) AS risk_topics_names
FROM picked AS p
ORDER BY p.day, p.rank, p.number DESC
