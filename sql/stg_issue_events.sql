-- stg_issue_events: GitHub issue events landed for the day, typed, one row per event id.
SELECT
    $repo AS repo,
    CAST($day AS DATE) AS day,
    id AS event_id, event, created_at,
    actor.login AS actor_login,
    actor."type" AS actor_type,
    issue.number AS issue_number,
    commit_id
FROM read_json($events_path, format = 'newline_delimited', columns = {
    id: 'BIGINT', event: 'VARCHAR', created_at: 'TIMESTAMPTZ',
    actor: 'STRUCT(login VARCHAR, "type" VARCHAR)', issue: 'STRUCT(number INTEGER)', commit_id: 'VARCHAR'
})
WHERE id IS NOT NULL AND issue.number IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY id) = 1
