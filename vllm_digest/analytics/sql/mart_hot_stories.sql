-- mart_hot_stories: the day's stories for 🔥: the items whose titles name one entity (int_item_entities), with the
-- items linked to them (int_item_links, both ends items of the day), ranked by size and surprise.
-- Not an entity but the project's vocabulary: a key that is a tag or label of the day's taxonomy rules, a word of a
-- topic's name or of the repository's name, or a key the titles carried on at least $story_vocab_share of the
-- trailing $story_history_days days, once all of them are built: like the topics' baseline, history that is
-- still incomplete is not read at all, so a day's stories do not depend on the order days were built.
-- Each item tells one story: that of its entity with the most items that day (ties: the key). A story needs
-- $story_min_items items; junk (int_item_junk) tells none.
-- surprise = (items - usual) / sqrt(usual + 1), usual = the key's items per day over the trailing days (null while
-- they are not all built);
-- story_score = $story_size_weight x items + $story_surprise_weight x max(surprise, 0) (ties: hotter, then the key).
-- The first $story_limit are listed, each showing $story_items items (the hottest first, mart_item_hotness).
WITH days AS (
    SELECT day FROM run_days
),
entities AS (
    SELECT e.day, e.number, e.entity_key, e.entity_name, e.action
    FROM int_item_entities AS e
    WHERE e.repo = $repo AND e.day IN (SELECT day FROM days)
      AND (e.day, e.number) NOT IN (SELECT (day, number) FROM int_item_junk
                                    WHERE repo = $repo AND day IN (SELECT day FROM days))
),
taxonomy_words AS (
    SELECT DISTINCT day, lower(value) AS entity_key FROM ref_taxonomy_rules
    WHERE repo = $repo AND day IN (SELECT day FROM days) AND kind IN ('tag', 'label')
    UNION
    SELECT DISTINCT r.day, w AS entity_key
    FROM ref_taxonomy_rules AS r,
         unnest(regexp_split_to_array(lower(coalesce(r.name_en, '')), '[^a-z0-9.]+')) AS t(w)
    WHERE r.repo = $repo AND r.day IN (SELECT day FROM days)
    UNION
    SELECT d.day, w AS entity_key FROM days AS d, unnest(regexp_split_to_array(lower($repo), '[^a-z0-9.]+')) AS t(w)
),
built AS (
    -- the trailing built days of each day (days whose titles were read for entities)
    SELECT d.day, count(DISTINCT h.day) AS built_days
    FROM days AS d
    LEFT JOIN int_item_entities AS h
      ON h.repo = $repo AND h.day < d.day AND h.day >= d.day - CAST($story_history_days AS INTEGER)
    GROUP BY d.day
),
history AS (
    SELECT d.day, h.entity_key, count(DISTINCT h.day) AS days_seen, count(DISTINCT h.day || ':' || h.number) AS items_seen
    FROM days AS d
    JOIN int_item_entities AS h
      ON h.repo = $repo AND h.day < d.day AND h.day >= d.day - CAST($story_history_days AS INTEGER)
    WHERE h.entity_key IN (SELECT entity_key FROM entities)
    GROUP BY d.day, h.entity_key
),
named AS (
    -- the entities that are names, not vocabulary
    SELECT e.* FROM entities AS e
    JOIN built AS b ON b.day = e.day
    LEFT JOIN history AS h ON h.day = e.day AND h.entity_key = e.entity_key
    WHERE (e.day, e.entity_key) NOT IN (SELECT (day, entity_key) FROM taxonomy_words)
      AND NOT (b.built_days >= $story_history_days
               AND coalesce(h.days_seen, 0) >= $story_vocab_share * b.built_days)
),
key_sizes AS (
    SELECT day, entity_key, count(DISTINCT number) AS size FROM named GROUP BY day, entity_key
),
owned AS (
    -- each item's one story: its entity with the most items that day
    SELECT n.day, n.number, n.entity_key, n.entity_name, n.action
    FROM named AS n JOIN key_sizes AS s ON s.day = n.day AND s.entity_key = n.entity_key
    WHERE s.size >= $story_min_items
    QUALIFY row_number() OVER (PARTITION BY n.day, n.number ORDER BY s.size DESC, n.entity_key) = 1
),
linked AS (
    -- an item of the day linked to a story's item (an issue and its fix) joins that story when it tells none
    SELECT DISTINCT o.day, CASE WHEN l.issue_number = o.number THEN l.pr_number ELSE l.issue_number END AS number,
           o.entity_key
    FROM owned AS o
    JOIN int_item_links AS l ON l.repo = $repo AND l.day = o.day AND l.issue_in_day AND l.pr_in_day
                            AND o.number IN (l.issue_number, l.pr_number)
),
members AS (
    SELECT day, number, entity_key FROM owned
    UNION
    SELECT l.day, l.number, l.entity_key FROM linked AS l
    WHERE (l.day, l.number) NOT IN (SELECT (day, number) FROM owned)
      AND (l.day, l.number) NOT IN (SELECT (day, number) FROM int_item_junk
                                    WHERE repo = $repo AND day IN (SELECT day FROM days))
    QUALIFY row_number() OVER (PARTITION BY l.day, l.number ORDER BY l.entity_key) = 1
),
member_rows AS (
    SELECT m.day, m.number, m.entity_key, i.kind, coalesce(hh.hotness, 0) AS hotness,
           coalesce(o.action, CASE WHEN i.kind = 'pr' THEN 'other' ELSE 'issue' END) AS action
    FROM members AS m
    JOIN core_items AS i ON i.repo = $repo AND i.day = m.day AND i.number = m.number
    LEFT JOIN owned AS o ON o.day = m.day AND o.number = m.number
    LEFT JOIN mart_item_hotness AS hh ON hh.repo = $repo AND hh.day = m.day AND hh.number = m.number
),
names AS (
    -- the story's name as the titles write it most often (ties: the first in sort order)
    SELECT day, entity_key, entity_name FROM named
    GROUP BY day, entity_key, entity_name
    QUALIFY row_number() OVER (PARTITION BY day, entity_key ORDER BY count(*) DESC, entity_name) = 1
),
stories AS (
    SELECT r.day, r.entity_key,
           count(*) AS items,
           count(*) FILTER (WHERE r.kind = 'pr') AS prs,
           count(*) FILTER (WHERE r.kind <> 'pr') AS issues,
           count(*) FILTER (WHERE r.action = 'add') AS added,
           count(*) FILTER (WHERE r.action = 'fix') AS fixed,
           count(*) FILTER (WHERE r.action = 'perf') AS perf,
           count(*) FILTER (WHERE r.action = 'revert') AS reverted,
           count(*) FILTER (WHERE r.action = 'docs') AS docs,
           count(*) FILTER (WHERE r.action = 'other') AS other,
           list(r.number ORDER BY r.hotness DESC, r.number DESC) AS numbers,
           sum(r.hotness) AS hotness_sum
    FROM member_rows AS r
    GROUP BY r.day, r.entity_key
    HAVING count(*) >= $story_min_items
),
scored AS (
    SELECT s.*, n.entity_name, b.built_days,
           CASE WHEN b.built_days >= $story_history_days THEN coalesce(h.items_seen, 0) / b.built_days END AS usual_items,
           CASE WHEN b.built_days >= $story_history_days
                THEN (s.items - coalesce(h.items_seen, 0) / b.built_days) / sqrt(coalesce(h.items_seen, 0) / b.built_days + 1)
           END AS surprise
    FROM stories AS s
    JOIN names AS n ON n.day = s.day AND n.entity_key = s.entity_key
    JOIN built AS b ON b.day = s.day
    LEFT JOIN history AS h ON h.day = s.day AND h.entity_key = s.entity_key
),
ranked AS (
    SELECT *, $story_size_weight * items + $story_surprise_weight * greatest(coalesce(surprise, 0), 0) AS story_score
    FROM scored
)
SELECT $repo AS repo, day, entity_key AS story_key, entity_name AS story_name, items, prs, issues,
       added, fixed, perf, reverted, docs, other, numbers, hotness_sum, built_days AS history_days, usual_items,
       surprise, story_score,
       CAST(row_number() OVER (PARTITION BY day ORDER BY story_score DESC, hotness_sum DESC, entity_key) AS INTEGER)
           AS story_rank,
       row_number() OVER (PARTITION BY day ORDER BY story_score DESC, hotness_sum DESC, entity_key) <= $story_limit
           AS listed,
       CAST(least(items, $story_items) AS INTEGER) AS shown_items
FROM ranked
