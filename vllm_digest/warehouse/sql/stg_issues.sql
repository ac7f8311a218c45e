-- stg_issues: issue and PR objects landed for the day, typed, one row per number (latest update wins).
SELECT
    d.repo,
    d.day,
    number, title, body, state,
    "user".login AS author_login,
    "user"."type" AS author_type,
    author_association,
    coalesce(list_transform(labels, lambda l: l.name), []) AS labels,
    coalesce(comments, 0) AS comments_total,
    coalesce(reactions.total_count, 0) AS reactions_total,
    created_at, updated_at, closed_at,
    pull_request IS NOT NULL AS is_pull_request,
    pull_request.merged_at AS merged_at,
    draft
FROM read_json($issues_paths, format = 'newline_delimited', filename = true, columns = {
    number: 'INTEGER', title: 'VARCHAR', body: 'VARCHAR', state: 'VARCHAR',
    "user": 'STRUCT(login VARCHAR, "type" VARCHAR)', author_association: 'VARCHAR',
    labels: 'STRUCT(name VARCHAR)[]', comments: 'INTEGER', reactions: 'STRUCT(total_count INTEGER)',
    created_at: 'TIMESTAMPTZ', updated_at: 'TIMESTAMPTZ', closed_at: 'TIMESTAMPTZ',
    pull_request: 'STRUCT(merged_at TIMESTAMPTZ)', draft: 'BOOLEAN'
}) AS r
JOIN run_days AS d ON d.issues_path = r.filename
WHERE number IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY d.day, number ORDER BY updated_at DESC NULLS LAST) = 1
