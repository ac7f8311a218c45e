-- int_text_hits: the items of the days whose title, body or author login one taxonomy regex matches, with the
-- text it matched. This is one rule's query ($pattern bound, with $scope, $owner_id, $parent_id, $rule_ord and
-- $fields naming what to search); analytics/build.py runs a copy per rule in one UNION ALL, over all the
-- batch's days at once: DuckDB compiles a regex once per
-- statement only when the pattern is a constant, and a pattern read from a joined column is recompiled for
-- every row (0.5 s per day for the default taxonomy, against milliseconds this way). The texts come from
-- run_texts (sql/run_texts.sql, built from core_items at the start of the batch): each distinct text is
-- matched once and its hits are written for every item-day that carries it. When $prefiltered, the rule runs only
-- over the texts holding its keywords (run_text_candidates, from analytics/prefilter.py; $rule is its index).
WITH texts AS (
    SELECT * FROM run_texts
    WHERE NOT $prefiltered OR text_id IN (SELECT text_id FROM run_text_candidates WHERE rule = $rule)
), hits AS (
    SELECT text_id, 'title' AS field, regexp_extract(title, $pattern) AS matched
    FROM texts
    WHERE list_contains(CAST($fields AS VARCHAR[]), 'title') AND regexp_matches(coalesce(title, ''), $pattern)
    UNION ALL
    SELECT text_id, 'body', regexp_extract(body, $pattern)
    FROM texts
    WHERE list_contains(CAST($fields AS VARCHAR[]), 'body') AND body IS NOT NULL AND body <> ''
      AND regexp_matches(body, $pattern)
    UNION ALL
    SELECT text_id, 'author', author_login
    FROM texts
    WHERE list_contains(CAST($fields AS VARCHAR[]), 'author') AND regexp_matches(coalesce(author_login, ''), $pattern)
)
SELECT CAST($repo AS VARCHAR) AS repo, d.item.day AS day, d.item.number AS number,
       $scope AS scope, $owner_id AS owner_id, $parent_id AS parent_id,
       h.field, CAST($rule_ord AS INTEGER) AS rule_ord, h.matched
FROM hits AS h
JOIN (SELECT text_id, unnest(item_days) AS item FROM run_texts) AS d USING (text_id)
