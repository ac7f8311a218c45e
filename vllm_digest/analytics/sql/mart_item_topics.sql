-- mart_item_topics: every item of the day (core_items: created, closed, merged, commented or reviewed in the
-- window) x every taxonomy topic it matches, with the rule that matched, and which one is the item's one
-- topic in the report (is_primary) and which thread it belongs to (thread_head).
-- Matching (rules from ref_taxonomy_rules of the same day):
--   tag    a bracketed title tag, or one '/'-part of it, or a conventional prefix "type(scope):" (both words)
--   label  a GitHub label, case-insensitive
--   text   the topic's combined keyword/pattern RE2 regex over the title, then the body (int_text_hits)
--   path   a path prefix of a file the PR's review comments point at (the only changed-file paths fetched)
-- matched_rule is the strongest evidence (tag > label > title > path > body, then alphabetical);
-- matched_rules lists all of it. An item with no rule of a topic inherits it from an item linked to it in
-- int_item_links when both ends are items of the day (issue #37842 gets the scheduler topic of its fix PR
-- #37843); via_link names the item it came from.
-- is_primary marks the item's one topic for the report, its most specific: a non-generic topic before a
-- $topic_generic one, then the topic with the fewest items that day (the narrowest), then by id. An item
-- of a thread (thread_head: the lowest-numbered issue of the day a PR is linked to, else the item itself)
-- takes its head's topic when it matches it too, so the thread is listed once.
WITH days AS (
    SELECT day FROM run_days
),
rules AS (
    SELECT * FROM ref_taxonomy_rules
    WHERE repo = $repo AND day IN (SELECT day FROM days) AND scope = 'topic'
),
topics AS (
    SELECT DISTINCT day, owner_id AS topic_id, name_zh, name_en, grp, risk, taxonomy_version FROM rules
),
items AS (
    SELECT day, number, kind FROM core_items WHERE repo = $repo AND day IN (SELECT day FROM days)
),
features AS (
    SELECT * FROM int_item_features WHERE repo = $repo AND day IN (SELECT day FROM days)
),
hits AS (
    SELECT f.day, f.number, r.owner_id AS topic_id, feature_priority(f.kind) AS priority,
           feature_evidence(f.kind, f.value) AS evidence
    FROM features AS f
    JOIN rules AS r ON r.day = f.day AND r.kind = f.kind AND r.value = f.value
    UNION ALL
    -- feature_matches split in two: its OR made a join on (day, kind) and a test of every feature against
    -- every rule of its kind that day; the exact matches above join on the value, the path prefixes here
    SELECT f.day, f.number, r.owner_id, feature_priority(f.kind), feature_evidence(f.kind, f.value)
    FROM features AS f
    JOIN rules AS r ON r.day = f.day AND r.kind = 'path' AND f.kind = 'path'
                   AND feature_matches(r.kind, r.value, f.kind, f.value) AND r.value <> f.value
    UNION ALL
    SELECT day, number, owner_id, CASE field WHEN 'title' THEN 3 ELSE 5 END, field || ':"' || matched || '"'
    FROM int_text_hits
    WHERE repo = $repo AND day IN (SELECT day FROM days) AND scope = 'topic' AND field IN ('title', 'body')
),
direct AS (
    SELECT day, number, topic_id,
           arg_min(evidence, (priority, evidence)) AS matched_rule,
           list_sort(list_distinct(list(evidence))) AS matched_rules,
           CAST(NULL AS INTEGER) AS via_link
    FROM hits GROUP BY day, number, topic_id
),
links AS (
    SELECT day, issue_number AS a, pr_number AS b FROM int_item_links
    WHERE repo = $repo AND day IN (SELECT day FROM days) AND issue_in_day AND pr_in_day
    UNION
    SELECT day, pr_number, issue_number FROM int_item_links
    WHERE repo = $repo AND day IN (SELECT day FROM days) AND issue_in_day AND pr_in_day
),
inherited AS (
    SELECT l.day, l.a AS number, d.topic_id,
           'link:#' || l.b || ' ' || d.matched_rule AS matched_rule,
           ['link:#' || l.b || ' ' || d.matched_rule] AS matched_rules,
           l.b AS via_link
    FROM links AS l JOIN direct AS d ON d.day = l.day AND d.number = l.b
    WHERE NOT EXISTS (
        SELECT 1 FROM direct AS d2 WHERE d2.day = l.day AND d2.number = l.a AND d2.topic_id = d.topic_id
    )
    QUALIFY row_number() OVER (PARTITION BY l.day, l.a, d.topic_id ORDER BY l.b) = 1
),
matched AS (
    SELECT m.*, count(*) OVER (PARTITION BY m.day, m.topic_id) AS topic_items
    FROM (SELECT * FROM direct UNION ALL SELECT * FROM inherited) AS m
    JOIN items AS i ON i.day = m.day AND i.number = m.number
),
narrowest AS (
    SELECT day, number,
           arg_min(topic_id, (list_contains(CAST($topic_generic AS VARCHAR[]), topic_id), topic_items, topic_id))
               AS topic_id
    FROM matched GROUP BY day, number
),
heads AS (
    -- a PR's thread is headed by the lowest-numbered issue of the day it is linked to
    SELECT i.day, i.number, coalesce(l.issue, i.number) AS thread_head
    FROM items AS i
    LEFT JOIN (
        SELECT day, pr_number, min(issue_number) AS issue FROM int_item_links
        WHERE repo = $repo AND day IN (SELECT day FROM days) AND issue_in_day
        GROUP BY day, pr_number
    ) AS l ON l.day = i.day AND l.pr_number = i.number AND i.kind = 'pr'
),
primaries AS (
    -- the head's topic when the item matches it too, else the item's own narrowest
    SELECT h.day, h.number, h.thread_head, coalesce(hm.topic_id, own.topic_id) AS primary_topic
    FROM heads AS h
    LEFT JOIN narrowest AS hn ON hn.day = h.day AND hn.number = h.thread_head
    LEFT JOIN matched AS hm ON hm.day = h.day AND hm.number = h.number AND hm.topic_id = hn.topic_id
    LEFT JOIN narrowest AS own ON own.day = h.day AND own.number = h.number
)
SELECT $repo AS repo, m.day, m.number, i.kind,
       m.topic_id, t.name_zh AS topic_zh, t.name_en AS topic_en, t.grp AS topic_group, t.risk AS topic_risk,
       m.matched_rule, m.matched_rules, m.via_link, t.taxonomy_version,
       coalesce(p.primary_topic = m.topic_id, false) AS is_primary, p.thread_head
FROM matched AS m
JOIN items AS i ON i.day = m.day AND i.number = m.number
JOIN topics AS t ON t.day = m.day AND t.topic_id = m.topic_id
LEFT JOIN primaries AS p ON p.day = m.day AND p.number = m.number
