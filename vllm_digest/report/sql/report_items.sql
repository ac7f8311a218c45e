-- report_items: the items each report day's sections and charts name (the (day, number) pairs in $wanted_days and
-- $wanted_numbers: the focus, hotness, topic-thread, key-change and notable rows' items) as the sections describe
-- them (title, state, size, author), with the one-line "what it does" of core_item_texts ('' when the author wrote
-- no description) and the code areas its changed files land in (int_item_areas, largest first; empty when its
-- files were not fetched). Only those: a year's run read all 94,000 items with their bodies (150 MB) to use a fifth.
WITH wanted AS (
    SELECT unnest(CAST($wanted_days AS DATE[])) AS day, unnest(CAST($wanted_numbers AS INTEGER[])) AS number
),
areas AS (
    SELECT day, number,
           list(area_zh ORDER BY lines DESC, files DESC, area_id) AS areas_zh,
           list(area_en ORDER BY lines DESC, files DESC, area_id) AS areas_en
    FROM int_item_areas
    WHERE repo = $repo AND (day, number) IN (SELECT (day, number) FROM wanted)
    GROUP BY day, number
)
SELECT i.day, i.number, i.kind, i.title, i.state, i.author_login, i.author_is_bot, i.labels,
       i.comments_total, i.additions, i.deletions, i.changed_files, i.draft, i.created_at, i.merged_at, i.closed_at,
       coalesce(t.what, '') AS what,
       coalesce(a.areas_zh, CAST([] AS VARCHAR[])) AS areas_zh,
       coalesce(a.areas_en, CAST([] AS VARCHAR[])) AS areas_en
FROM core_items AS i
LEFT JOIN core_item_texts AS t ON t.repo = i.repo AND t.day = i.day AND t.number = i.number
LEFT JOIN areas AS a ON a.day = i.day AND a.number = i.number
WHERE i.repo = $repo AND (i.day, i.number) IN (SELECT (day, number) FROM wanted)
ORDER BY i.day, i.number
