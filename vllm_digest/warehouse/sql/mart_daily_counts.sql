-- mart_daily_counts: the day's five counts (always the lengths of the five lists) and how the day was fetched.
SELECT
    d.repo,
    d.day,
    count(*) FILTER (WHERE f.set_name = 'new_issues') AS new_issues,
    count(*) FILTER (WHERE f.set_name = 'closed_issues') AS closed_issues,
    count(*) FILTER (WHERE f.set_name = 'new_prs') AS new_prs,
    count(*) FILTER (WHERE f.set_name = 'merged_prs') AS merged_prs,
    count(*) FILTER (WHERE f.set_name = 'closed_unmerged_prs') AS closed_unmerged_prs,
    (SELECT m.semantics FROM stg_fetch_manifest AS m WHERE m.repo = d.repo AND m.day = d.day) AS semantics,
    (SELECT m.complete FROM stg_fetch_manifest AS m WHERE m.repo = d.repo AND m.day = d.day) AS complete
FROM run_days AS d
-- a day with empty lists still gets its row of zeros
LEFT JOIN mart_five_sets AS f ON f.repo = d.repo AND f.day = d.day
GROUP BY d.repo, d.day
