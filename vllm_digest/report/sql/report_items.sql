-- report_items: the items each report day's sections and charts name (the (day, number) pairs in $wanted_days and
-- $wanted_numbers: the focus, hotness, topic-thread, key-change and notable rows' items) as the sections describe
-- them (title, state, size, author), with the one-line "what it does" of core_item_texts ('' when the author wrote
-- no description) and the code areas its changed files land in (int_item_areas, largest first; empty when its
-- files were not fetched); and for the narrative's facts what else its description says (purpose, Changes list,
-- claims, test plan and commands) and the items it closes, each with its title and state as the warehouse last
-- held it on that day or before. Only those: a year's run read all 94,000 items with their bodies (150 MB) to use a fifth.
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
),
referenced AS (
    SELECT t.day, t.number, r.n, r.pos
    FROM core_item_texts AS t,
         LATERAL (SELECT unnest(t.referenced_items) AS n, generate_subscripts(t.referenced_items, 1) AS pos) AS r
    WHERE t.repo = $repo AND (t.day, t.number) IN (SELECT (day, number) FROM wanted) AND r.n <> t.number
),
-- each referenced item as the warehouse last saw it on the report's day or before (seen_on says which day)
seen AS (
    SELECT r.day, r.number, r.n, arg_max(c.day, c.day) AS seen_on
    FROM referenced AS r JOIN core_items AS c ON c.repo = $repo AND c.number = r.n AND c.day <= r.day
    GROUP BY r.day, r.number, r.n
),
closes AS (
    SELECT r.day, r.number,
           list(struct_pack(number := r.n, kind := c.kind, title := c.title, state := c.state,
                            merged_at := c.merged_at, closed_at := c.closed_at, seen_on := s.seen_on)
                ORDER BY r.pos) AS fixes
    FROM referenced AS r
    LEFT JOIN seen AS s ON s.day = r.day AND s.number = r.number AND s.n = r.n
    LEFT JOIN core_items AS c ON c.repo = $repo AND c.day = s.seen_on AND c.number = r.n
    GROUP BY r.day, r.number
)
SELECT i.day, i.number, i.kind, i.title, i.state, i.author_login, i.author_is_bot, i.labels,
       i.comments_total, i.additions, i.deletions, i.changed_files, i.draft, i.created_at, i.merged_at, i.closed_at,
       coalesce(t.what, '') AS what,
       coalesce(t.purpose, '') AS purpose, coalesce(t.test_plan, '') AS test_plan,
       coalesce(t.changes, CAST([] AS VARCHAR[])) AS changes, coalesce(t.claims, CAST([] AS VARCHAR[])) AS claims,
       coalesce(t.test_commands, CAST([] AS VARCHAR[])) AS test_commands, coalesce(f.fixes, []) AS fixes_all,
       coalesce(a.areas_zh, CAST([] AS VARCHAR[])) AS areas_zh,
       coalesce(a.areas_en, CAST([] AS VARCHAR[])) AS areas_en
FROM core_items AS i
LEFT JOIN core_item_texts AS t ON t.repo = i.repo AND t.day = i.day AND t.number = i.number
LEFT JOIN areas AS a ON a.day = i.day AND a.number = i.number
LEFT JOIN closes AS f ON f.day = i.day AND f.number = i.number
WHERE i.repo = $repo AND (i.day, i.number) IN (SELECT (day, number) FROM wanted)
ORDER BY i.day, i.number
