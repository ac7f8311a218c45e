-- core_comments: conversation comments, review comments and reviews written in the window, one row each.
SELECT repo, day, 'issue_comment:' || comment_id AS comment_key, issue_number AS number,
       'issue_comment' AS comment_kind, author_login, is_bot(author_login, author_type) AS author_is_bot,
       author_association, created_at, body, reactions_total
FROM stg_issue_comments
WHERE repo = $repo AND day = CAST($day AS DATE)
  AND created_at >= $window_start AND created_at < $window_end
UNION ALL
SELECT repo, day, 'review_comment:' || comment_id, pull_number, 'review_comment', author_login,
       is_bot(author_login, author_type), author_association, created_at, body, reactions_total
FROM stg_review_comments
WHERE repo = $repo AND day = CAST($day AS DATE)
  AND created_at >= $window_start AND created_at < $window_end
UNION ALL
SELECT repo, day, 'review:' || review_id, pull_number, 'review', author_login,
       is_bot(author_login, author_type), author_association, submitted_at, body, 0
FROM stg_reviews
WHERE repo = $repo AND day = CAST($day AS DATE)
  AND submitted_at >= $window_start AND submitted_at < $window_end
