-- stg_reviews: PR reviews landed for the day, typed, one row per review id.
SELECT
    d.repo,
    d.day,
    id AS review_id,
    CAST(regexp_extract(pull_request_url, '/(\d+)$', 1) AS INTEGER) AS pull_number,
    "user".login AS author_login,
    "user"."type" AS author_type,
    author_association, state, submitted_at, body
FROM read_json($reviews_paths, format = 'newline_delimited', filename = true, columns = {
    id: 'BIGINT', pull_request_url: 'VARCHAR', "user": 'STRUCT(login VARCHAR, "type" VARCHAR)',
    author_association: 'VARCHAR', state: 'VARCHAR', submitted_at: 'TIMESTAMPTZ', body: 'VARCHAR'
}) AS r
JOIN run_days AS d ON d.reviews_path = r.filename
WHERE id IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY d.day, id) = 1
