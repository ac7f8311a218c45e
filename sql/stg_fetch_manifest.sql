-- stg_fetch_manifest: the day's manifest.json, typed: how the day was landed and whether it is complete.
SELECT
    $repo AS repo,
    CAST($day AS DATE) AS day,
    source, semantics, coalesce(complete, false) AS complete,
    coalesce(incomplete_reasons, []) AS incomplete_reasons,
    window_start, window_end,
    coalesce(request_count, 0) AS request_count,
    coalesce(not_modified_count, 0) AS not_modified_count,
    coalesce(totals, '{}') AS totals
FROM read_json($manifest_path, format = 'auto', columns = {
    source: 'VARCHAR', semantics: 'VARCHAR', complete: 'BOOLEAN', incomplete_reasons: 'VARCHAR[]',
    window_start: 'TIMESTAMPTZ', window_end: 'TIMESTAMPTZ',
    request_count: 'INTEGER', not_modified_count: 'INTEGER', totals: 'JSON'
})
