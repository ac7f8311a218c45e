-- mart_daily_counts: the day's five counts (always the lengths of the five lists) and how the day was fetched.
SELECT
    $repo AS repo,
    CAST($day AS DATE) AS day,
    count(*) FILTER (WHERE set_name = 'new_issues') AS new_issues,
    count(*) FILTER (WHERE set_name = 'closed_issues') AS closed_issues,
    count(*) FILTER (WHERE set_name = 'new_prs') AS new_prs,
    count(*) FILTER (WHERE set_name = 'merged_prs') AS merged_prs,
    count(*) FILTER (WHERE set_name = 'closed_unmerged_prs') AS closed_unmerged_prs,
    (SELECT semantics FROM stg_fetch_manifest WHERE repo = $repo AND day = CAST($day AS DATE)) AS semantics,
    (SELECT complete FROM stg_fetch_manifest WHERE repo = $repo AND day = CAST($day AS DATE)) AS complete
FROM mart_five_sets
WHERE repo = $repo AND day = CAST($day AS DATE)
