-- stg_fetch_manifest: the day's manifest.json, typed: how the day was landed and whether it is complete.
SELECT
    d.repo,
    d.day,
    source, semantics, coalesce(complete, false) AS complete,
    coalesce(incomplete_reasons, []) AS incomplete_reasons,
    r.window_start, r.window_end,
    coalesce(request_count, 0) AS request_count,
    coalesce(not_modified_count, 0) AS not_modified_count,
    coalesce(totals, '{}') AS totals,
    coalesce(cross_check, '{}') AS cross_check
FROM read_json($manifest_paths, format = 'auto', filename = true, columns = {
    source: 'VARCHAR', semantics: 'VARCHAR', complete: 'BOOLEAN', incomplete_reasons: 'VARCHAR[]',
    window_start: 'TIMESTAMPTZ', window_end: 'TIMESTAMPTZ',
    request_count: 'INTEGER', not_modified_count: 'INTEGER', totals: 'JSON', cross_check: 'JSON'
}) AS r
JOIN run_days AS d ON d.manifest_path = r.filename
