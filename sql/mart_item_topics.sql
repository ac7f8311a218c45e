-- mart_item_topics: every item of the day (core_items: created, closed, merged, commented or reviewed in the
-- window) x every taxonomy topic it matches, with the rule that matched.
-- Matching (rules from mart_taxonomy_rules of the same day):
--   tag    a bracketed title tag, or one '/'-part of it, or a conventional prefix "type(scope):" (both words)
--   label  a GitHub label, case-insensitive
--   text   the topic's combined keyword/pattern RE2 regex, over the title, then the body
--   path   a path prefix of a file the PR's review comments point at (the only changed-file paths fetched)
-- matched_rule is the strongest evidence (tag > label > title > path > body, then alphabetical);
-- matched_rules lists all of it. An item with no rule of a topic inherits it from an item linked to it in
-- mart_item_links when both ends are items of the day (issue #37842 gets the scheduler topic of its fix PR
-- #37843); via_link names the item it came from.
WITH rules AS (
    SELECT * FROM mart_taxonomy_rules WHERE repo = $repo AND day = CAST($day AS DATE) AND scope = 'topic'
),
topics AS (
    SELECT DISTINCT owner_id AS topic_id, name_zh, name_en, grp, risk, taxonomy_version FROM rules
),
items AS (
    SELECT number, kind, coalesce(title, '') AS title, coalesce(body, '') AS body,
           list_transform(coalesce(labels, []), lambda l: lower(l)) AS labels_lc,
           list_distinct(list_filter(list_transform(flatten(list_transform(
               list_concat(
                   regexp_extract_all(coalesce(title, ''), '\[([^\]]+)\]', 1),
                   [regexp_extract(coalesce(title, ''), '^\s*([A-Za-z]+)(?:\([^)]*\))?!?:', 1),
                    regexp_extract(coalesce(title, ''), '^\s*[A-Za-z]+\(([^)]*)\)!?:', 1)]
               ),
               lambda t: list_append(string_split(t, '/'), t))),
               lambda x: lower(trim(x))), lambda x: x <> '')) AS tags
    FROM core_items WHERE repo = $repo AND day = CAST($day AS DATE)
),
paths AS (
    SELECT DISTINCT pull_number AS number, lower(path) AS path
    FROM stg_review_comments
    WHERE repo = $repo AND day = CAST($day AS DATE) AND path IS NOT NULL
),
hits AS (
    SELECT i.number, r.owner_id AS topic_id, 1 AS priority, 'tag:' || r.value AS evidence
    FROM items AS i JOIN rules AS r ON r.kind = 'tag' AND list_contains(i.tags, r.value)
    UNION ALL
    SELECT i.number, r.owner_id, 2, 'label:' || r.value
    FROM items AS i JOIN rules AS r ON r.kind = 'label' AND list_contains(i.labels_lc, r.value)
    UNION ALL
    SELECT i.number, r.owner_id, 3, 'title:"' || regexp_extract(i.title, r.pattern) || '"'
    FROM items AS i JOIN rules AS r ON r.kind = 'text' AND regexp_matches(i.title, r.pattern)
    UNION ALL
    SELECT p.number, r.owner_id, 4, 'path:' || p.path
    FROM paths AS p JOIN rules AS r ON r.kind = 'path' AND starts_with(p.path, r.value)
    WHERE p.number IN (SELECT number FROM items)
    UNION ALL
    SELECT i.number, r.owner_id, 5, 'body:"' || regexp_extract(i.body, r.pattern) || '"'
    FROM items AS i JOIN rules AS r ON r.kind = 'text' AND i.body <> '' AND regexp_matches(i.body, r.pattern)
),
direct AS (
    SELECT number, topic_id,
           arg_min(evidence, (priority, evidence)) AS matched_rule,
           list_sort(list_distinct(list(evidence))) AS matched_rules,
           CAST(NULL AS INTEGER) AS via_link
    FROM hits GROUP BY number, topic_id
),
links AS (
    SELECT issue_number AS a, pr_number AS b FROM mart_item_links
    WHERE repo = $repo AND day = CAST($day AS DATE) AND issue_in_day AND pr_in_day
    UNION
    SELECT pr_number, issue_number FROM mart_item_links
    WHERE repo = $repo AND day = CAST($day AS DATE) AND issue_in_day AND pr_in_day
),
inherited AS (
    SELECT l.a AS number, d.topic_id,
           'link:#' || l.b || ' ' || d.matched_rule AS matched_rule,
           ['link:#' || l.b || ' ' || d.matched_rule] AS matched_rules,
           l.b AS via_link
    FROM links AS l JOIN direct AS d ON d.number = l.b
    WHERE NOT EXISTS (SELECT 1 FROM direct AS d2 WHERE d2.number = l.a AND d2.topic_id = d.topic_id)
    QUALIFY row_number() OVER (PARTITION BY l.a, d.topic_id ORDER BY l.b) = 1
),
matched AS (
    SELECT * FROM direct UNION ALL SELECT * FROM inherited
)
SELECT $repo AS repo, CAST($day AS DATE) AS day, m.number, i.kind,
       m.topic_id, t.name_zh AS topic_zh, t.name_en AS topic_en, t.grp AS topic_group, t.risk AS topic_risk,
       m.matched_rule, m.matched_rules, m.via_link, t.taxonomy_version
FROM matched AS m
JOIN items AS i ON i.number = m.number
JOIN topics AS t ON t.topic_id = m.topic_id
