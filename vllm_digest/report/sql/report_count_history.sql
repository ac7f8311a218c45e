-- report_count_history: the five counts of every day in the $history_days days up to each report day (the
-- counts chart), for the span of the batch's days (run_days).
SELECT day, new_issues, closed_issues, new_prs, merged_prs, closed_unmerged_prs FROM mart_daily_counts
WHERE repo = $repo AND day <= (SELECT max(day) FROM run_days)
  AND day > (SELECT min(day) FROM run_days) - to_days(CAST($history_days AS INTEGER))
ORDER BY day
