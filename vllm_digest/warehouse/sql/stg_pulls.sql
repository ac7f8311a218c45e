-- stg_pulls: pull request objects landed for the day (sizes, draft, merge time), one row per number.
SELECT
    d.repo,
    d.day,
    number, additions, deletions, changed_files, commits, draft, merged_at
FROM read_json($pulls_paths, format = 'newline_delimited', filename = true, columns = {
    number: 'INTEGER', additions: 'INTEGER', deletions: 'INTEGER', changed_files: 'INTEGER',
    commits: 'INTEGER', draft: 'BOOLEAN', merged_at: 'TIMESTAMPTZ'
}) AS r
JOIN run_days AS d ON d.pulls_path = r.filename
WHERE number IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY d.day, number) = 1
