-- mart_focus_items: items of the day that concern a vendor focus area (e.g. AMD/ROCm), with the rule that
-- matched, the theme the report groups them under, and whether the author is tagged a vendor employee.
-- Membership: any focus rule of mart_taxonomy_rules (tag, label, text regex over title then body, review-comment
-- path, or an author-login pattern such as '-amd'); matched_rule is the strongest (tag > label > title > path >
-- body > author). Theme: the first theme in file order whose tag, label or title regex matches (the body is
-- left out because words like "fix" or "test" are everywhere in bodies); otherwise the default theme.
-- is_vendor_employee: the author login matches an employee_authors pattern or is in employee_logins.
WITH rules AS (
    SELECT * FROM mart_taxonomy_rules WHERE repo = $repo AND day = CAST($day AS DATE) AND scope IN ('focus', 'theme')
),
items AS (
    SELECT number, kind, coalesce(title, '') AS title, coalesce(body, '') AS body, author_login, labels,
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
focus_hits AS (
    SELECT i.number, r.owner_id AS focus_id, 1 AS priority, 'tag:' || r.value AS evidence
    FROM items AS i JOIN rules AS r ON r.scope = 'focus' AND r.kind = 'tag' AND list_contains(i.tags, r.value)
    UNION ALL
    SELECT i.number, r.owner_id, 2, 'label:' || r.value
    FROM items AS i JOIN rules AS r ON r.scope = 'focus' AND r.kind = 'label' AND list_contains(i.labels_lc, r.value)
    UNION ALL
    SELECT i.number, r.owner_id, 3, 'title:"' || regexp_extract(i.title, r.pattern) || '"'
    FROM items AS i JOIN rules AS r ON r.scope = 'focus' AND r.kind = 'text' AND regexp_matches(i.title, r.pattern)
    UNION ALL
    SELECT p.number, r.owner_id, 4, 'path:' || p.path
    FROM paths AS p JOIN rules AS r ON r.scope = 'focus' AND r.kind = 'path' AND starts_with(p.path, r.value)
    WHERE p.number IN (SELECT number FROM items)
    UNION ALL
    SELECT i.number, r.owner_id, 5, 'body:"' || regexp_extract(i.body, r.pattern) || '"'
    FROM items AS i JOIN rules AS r
      ON r.scope = 'focus' AND r.kind = 'text' AND i.body <> '' AND regexp_matches(i.body, r.pattern)
    UNION ALL
    SELECT i.number, r.owner_id, 6, 'author:' || i.author_login
    FROM items AS i JOIN rules AS r
      ON r.scope = 'focus' AND r.kind = 'author' AND regexp_matches(coalesce(i.author_login, ''), r.pattern)
),
members AS (
    SELECT number, focus_id,
           arg_min(evidence, (priority, evidence)) AS matched_rule,
           list_sort(list_distinct(list(evidence))) AS matched_rules
    FROM focus_hits GROUP BY number, focus_id
),
theme_hits AS (
    SELECT m.number, m.focus_id, r.owner_id AS theme_id, r.ord,
           CASE r.kind WHEN 'tag' THEN 'tag:' || r.value
                       WHEN 'label' THEN 'label:' || r.value
                       WHEN 'text' THEN 'title:"' || regexp_extract(i.title, r.pattern) || '"'
                       ELSE 'default' END AS evidence
    FROM members AS m
    JOIN items AS i ON i.number = m.number
    JOIN rules AS r ON r.scope = 'theme' AND r.parent_id = m.focus_id
    WHERE (r.kind = 'tag' AND list_contains(i.tags, r.value))
       OR (r.kind = 'label' AND list_contains(i.labels_lc, r.value))
       OR (r.kind = 'text' AND regexp_matches(i.title, r.pattern))
       OR r.kind = 'default'
),
themes AS (
    -- a rule hit of any theme beats the default theme, then file order decides
    SELECT number, focus_id, arg_min(theme_id, (evidence = 'default', ord)) AS theme_id,
           arg_min(evidence, (evidence = 'default', ord)) AS theme_rule
    FROM theme_hits GROUP BY number, focus_id
),
theme_names AS (
    SELECT DISTINCT parent_id AS focus_id, owner_id AS theme_id, name_zh, name_en FROM rules WHERE scope = 'theme'
),
focus_names AS (
    SELECT DISTINCT owner_id AS focus_id, grp AS vendor, taxonomy_version FROM rules WHERE scope = 'focus'
),
employees AS (
    SELECT m.number, m.focus_id,
           min(CASE r.kind WHEN 'employee_login' THEN 'login:' || r.value ELSE 'author pattern:' || r.pattern END)
               AS employee_rule
    FROM members AS m
    JOIN items AS i ON i.number = m.number
    JOIN rules AS r ON r.scope = 'focus' AND r.owner_id = m.focus_id
    WHERE (r.kind = 'employee_author' AND regexp_matches(coalesce(i.author_login, ''), r.pattern))
       OR (r.kind = 'employee_login' AND lower(coalesce(i.author_login, '')) = r.value)
    GROUP BY m.number, m.focus_id
),
sets AS (
    SELECT number, list_sort(list(set_name)) AS sets
    FROM mart_five_sets WHERE repo = $repo AND day = CAST($day AS DATE)
    GROUP BY number
)
SELECT $repo AS repo, CAST($day AS DATE) AS day, m.focus_id, f.vendor, m.number, i.kind, i.title,
       i.author_login, i.labels, coalesce(s.sets, CAST([] AS VARCHAR[])) AS sets,
       m.matched_rule, m.matched_rules,
       t.theme_id, tn.name_zh AS theme_zh, tn.name_en AS theme_en, t.theme_rule,
       e.employee_rule IS NOT NULL AS is_vendor_employee, e.employee_rule,
       h.hotness, f.taxonomy_version
FROM members AS m
JOIN items AS i ON i.number = m.number
JOIN focus_names AS f ON f.focus_id = m.focus_id
LEFT JOIN themes AS t ON t.number = m.number AND t.focus_id = m.focus_id
LEFT JOIN theme_names AS tn ON tn.focus_id = m.focus_id AND tn.theme_id = t.theme_id
LEFT JOIN employees AS e ON e.number = m.number AND e.focus_id = m.focus_id
LEFT JOIN sets AS s ON s.number = m.number
LEFT JOIN mart_item_hotness AS h ON h.repo = $repo AND h.day = CAST($day AS DATE) AND h.number = m.number
