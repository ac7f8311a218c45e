-- stg_users: the account profiles of the day's item authors (GET /users/{login}, as the ingest's people cache held
-- them), one row per login: what tells an author's affiliation (company, bio), never guessed from the login.
SELECT
    d.repo,
    d.day,
    login, name, company, bio,
    "type" AS account_type,
    fetched_at
FROM read_json($users_paths, format = 'newline_delimited', filename = true, columns = {
    login: 'VARCHAR', name: 'VARCHAR', company: 'VARCHAR', bio: 'VARCHAR', "type": 'VARCHAR',
    fetched_at: 'TIMESTAMPTZ'
}) AS r
JOIN run_days AS d ON d.users_path = r.filename
WHERE login IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY d.day, lower(login) ORDER BY fetched_at DESC NULLS LAST) = 1
