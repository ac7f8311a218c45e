-- core_comments: conversation comments, review comments and reviews written in the window, one row each.
SELECT c.repo, c.day, 'issue_comment:' || c.comment_id AS comment_key, c.issue_number AS number,
       'issue_comment' AS comment_kind, c.author_login, is_bot(c.author_login, c.author_type) AS author_is_bot,
       c.author_association, c.created_at, c.body, c.reactions_total, CAST(NULL AS VARCHAR) AS review_state
FROM stg_issue_comments AS c
JOIN run_days AS d ON d.repo = c.repo AND d.day = c.day
WHERE c.created_at >= d.window_start AND c.created_at < d.window_end
UNION ALL
SELECT c.repo, c.day, 'review_comment:' || c.comment_id, c.pull_number, 'review_comment', c.author_login,
       is_bot(c.author_login, c.author_type), c.author_association, c.created_at, c.body, c.reactions_total, NULL
FROM stg_review_comments AS c
JOIN run_days AS d ON d.repo = c.repo AND d.day = c.day
WHERE c.created_at >= d.window_start AND c.created_at < d.window_end
UNION ALL
SELECT r.repo, r.day, 'review:' || r.review_id, r.pull_number, 'review', r.author_login,
       is_bot(r.author_login, r.author_type), r.author_association, r.submitted_at, r.body, 0, r.state
FROM stg_reviews AS r
JOIN run_days AS d ON d.repo = r.repo AND d.day = r.day
WHERE r.submitted_at >= d.window_start AND r.submitted_at < d.window_end
