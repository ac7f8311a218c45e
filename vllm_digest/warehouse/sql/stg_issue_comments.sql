-- stg_issue_comments: conversation comments landed for the day, typed, one row per comment id.
SELECT
    d.repo,
    d.day,
    id AS comment_id,
    CAST(regexp_extract(issue_url, '/(\d+)$', 1) AS INTEGER) AS issue_number,
    "user".login AS author_login,
    "user"."type" AS author_type,
    author_association, created_at, updated_at, body,
    coalesce(reactions.total_count, 0) AS reactions_total
FROM read_json($comments_paths, format = 'newline_delimited', filename = true, columns = {
    id: 'BIGINT', issue_url: 'VARCHAR', "user": 'STRUCT(login VARCHAR, "type" VARCHAR)',
    author_association: 'VARCHAR', created_at: 'TIMESTAMPTZ', updated_at: 'TIMESTAMPTZ',
    body: 'VARCHAR', reactions: 'STRUCT(total_count INTEGER)'
}) AS r
JOIN run_days AS d ON d.comments_path = r.filename
WHERE id IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY d.day, id ORDER BY updated_at DESC NULLS LAST) = 1
