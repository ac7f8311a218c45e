-- report_manifest: how each report day was fetched (source, semantics, completeness) for the header and footer.
SELECT day, source, semantics, complete, incomplete_reasons FROM stg_fetch_manifest
WHERE repo = $repo AND day IN (SELECT day FROM run_days)
ORDER BY day
