-- report_comments: the window's comments and reviews per item, oldest first (a hot thread's voices, its maintainers
-- by author_association, and a PR's review verdicts).
SELECT day, number, comment_kind, author_login, author_is_bot, author_association, review_state, created_at, body
FROM core_comments
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
ORDER BY day, number, created_at, comment_key
