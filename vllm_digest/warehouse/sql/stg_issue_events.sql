-- stg_issue_events: GitHub issue events landed for the day, typed, one row per event id.
SELECT
    d.repo,
    d.day,
    id AS event_id, event, created_at,
    actor.login AS actor_login,
    actor."type" AS actor_type,
    issue.number AS issue_number,
    commit_id
FROM read_json($events_paths, format = 'newline_delimited', filename = true, columns = {
    id: 'BIGINT', event: 'VARCHAR', created_at: 'TIMESTAMPTZ',
    actor: 'STRUCT(login VARCHAR, "type" VARCHAR)', issue: 'STRUCT(number INTEGER)', commit_id: 'VARCHAR'
}) AS r
JOIN run_days AS d ON d.events_path = r.filename
WHERE id IS NOT NULL AND issue.number IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY d.day, id) = 1
