-- report_count_history: the five counts of every day in the $history_days days up to each report day (the
-- counts chart), for the span $first .. $last of a batch.
SELECT day, new_issues, closed_issues, new_prs, merged_prs, closed_unmerged_prs FROM mart_daily_counts
WHERE repo = $repo AND day <= CAST($last AS DATE)
  AND day > CAST($first AS DATE) - to_days(CAST($history_days AS INTEGER))
ORDER BY day
