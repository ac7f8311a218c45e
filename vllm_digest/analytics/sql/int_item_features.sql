-- int_item_features: what a taxonomy rule can match on each item of the day, one row per (item, kind, value):
-- 'tag' its bracketed title tags and conventional prefixes (title_tags), 'label' its GitHub labels lower-cased,
-- 'path' the lower-cased file paths its review comments point at (the only changed-file paths fetched).
-- mart_item_topics and mart_focus_items join their rules against it, so both read the same evidence.
WITH days AS (
    SELECT day FROM run_days
),
items AS (
    SELECT day, number, title, labels FROM core_items WHERE repo = $repo AND day IN (SELECT day FROM days)
),
features AS (
    SELECT day, number, 'tag' AS kind, unnest(title_tags(title)) AS value FROM items
    UNION
    SELECT day, number, 'label', unnest(list_transform(coalesce(labels, []), lambda l: lower(l))) FROM items
    UNION
    SELECT c.day, c.pull_number, 'path', lower(c.path)
    FROM stg_review_comments AS c
    JOIN items AS i ON i.day = c.day AND i.number = c.pull_number
    WHERE c.repo = $repo AND c.day IN (SELECT day FROM days) AND c.path IS NOT NULL
)
SELECT $repo AS repo, day, number, kind, value FROM features
