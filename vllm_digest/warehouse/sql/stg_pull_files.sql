-- stg_pull_files: the files changed by the day's key-change and focus candidate PRs (GET /pulls/{n}/files, as the
-- ingest's files cache held them), one row per (PR, file): where in the code a change lands. A file listed twice
-- keeps its row with the most changed lines (then by status and counts: a total order over the kept columns).
SELECT
    d.repo,
    d.day,
    number, filename, status, additions, deletions
-- the payload has its own filename field, so the landed file's path is read as source_file
FROM read_json($files_paths, format = 'newline_delimited', filename = 'source_file', columns = {
    number: 'INTEGER', filename: 'VARCHAR', status: 'VARCHAR', additions: 'INTEGER', deletions: 'INTEGER'
}) AS r
JOIN run_days AS d ON d.files_path = r.source_file
WHERE number IS NOT NULL AND r.filename IS NOT NULL
QUALIFY row_number() OVER (
    PARTITION BY d.day, number, r.filename
    ORDER BY coalesce(additions, 0) + coalesce(deletions, 0) DESC, status, additions, deletions
) = 1
