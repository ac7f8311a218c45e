-- report_items: the items of each report day as the sections describe them (title, body, state, size, author).
SELECT day, number, kind, title, body, state, author_login, author_is_bot, labels,
       comments_total, additions, deletions, changed_files, draft, created_at, merged_at, closed_at
FROM core_items
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
ORDER BY day, number
