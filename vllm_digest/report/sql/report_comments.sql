-- report_comments: the window's comments and reviews of the items whose threads a report day reads (the (day,
-- number) pairs in $wanted_days and $wanted_numbers: its hot discussions and key changes), oldest first per item
-- (a hot thread's voices, its maintainers by author_association, and a PR's review verdicts).
WITH wanted AS (
    SELECT unnest(CAST($wanted_days AS DATE[])) AS day, unnest(CAST($wanted_numbers AS INTEGER[])) AS number
)
SELECT day, number, comment_kind, author_login, author_is_bot, author_association, review_state, created_at, body
FROM core_comments
WHERE repo = $repo AND (day, number) IN (SELECT (day, number) FROM wanted)
ORDER BY day, number, created_at, comment_key
