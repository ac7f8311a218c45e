-- stg_reviews: PR reviews landed for the day, typed, one row per review id.
SELECT
    $repo AS repo,
    CAST($day AS DATE) AS day,
    id AS review_id,
    CAST(regexp_extract(pull_request_url, '/(\d+)$', 1) AS INTEGER) AS pull_number,
    "user".login AS author_login,
    "user"."type" AS author_type,
    author_association, state, submitted_at, body
FROM read_json($reviews_path, format = 'newline_delimited', columns = {
    id: 'BIGINT', pull_request_url: 'VARCHAR', "user": 'STRUCT(login VARCHAR, "type" VARCHAR)',
    author_association: 'VARCHAR', state: 'VARCHAR', submitted_at: 'TIMESTAMPTZ', body: 'VARCHAR'
})
WHERE id IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY id) = 1
