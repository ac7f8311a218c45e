-- report_weekly_counts: each week's five counts (sums of mart_daily_counts over its seven days) and the week before's,
-- with how many of the seven days each holds (a week is only as whole as the days built in it).
WITH weeks AS (
    SELECT DISTINCT CAST(date_trunc('week', day) AS DATE) AS week FROM run_days
),
spans AS (
    SELECT week, week AS first_day, 'this' AS which FROM weeks
    UNION ALL
    SELECT week, CAST(week - INTERVAL 7 DAY AS DATE), 'previous' FROM weeks
)
SELECT s.week, s.which, CAST(count(c.day) AS INTEGER) AS days_held,
       CAST(coalesce(sum(c.new_issues), 0) AS INTEGER) AS new_issues,
       CAST(coalesce(sum(c.closed_issues), 0) AS INTEGER) AS closed_issues,
       CAST(coalesce(sum(c.new_prs), 0) AS INTEGER) AS new_prs,
       CAST(coalesce(sum(c.merged_prs), 0) AS INTEGER) AS merged_prs,
       CAST(coalesce(sum(c.closed_unmerged_prs), 0) AS INTEGER) AS closed_unmerged_prs,
       coalesce(bool_and(c.complete), true) AS complete
FROM spans AS s
LEFT JOIN mart_daily_counts AS c
  ON c.repo = $repo AND c.day >= s.first_day AND c.day < CAST(s.first_day + INTERVAL 7 DAY AS DATE)
GROUP BY s.week, s.which
ORDER BY s.week, s.which DESC
