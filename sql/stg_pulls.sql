-- stg_pulls: pull request objects landed for the day (sizes, draft, merge time), one row per number.
SELECT
    $repo AS repo,
    CAST($day AS DATE) AS day,
    number, additions, deletions, changed_files, commits, draft, merged_at
FROM read_json($pulls_path, format = 'newline_delimited', columns = {
    number: 'INTEGER', additions: 'INTEGER', deletions: 'INTEGER', changed_files: 'INTEGER',
    commits: 'INTEGER', draft: 'BOOLEAN', merged_at: 'TIMESTAMPTZ'
})
WHERE number IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY number) = 1
