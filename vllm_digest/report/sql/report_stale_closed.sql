-- report_stale_closed: per day, how many of the closed issues (the closed_issues list) carry the label 'stale'
-- (mart_activity_daily's stale_closures counts closings of issues and PRs, any case of the label).
SELECT s.day, count(*) AS stale_closed
FROM mart_five_sets AS s
JOIN core_items AS i ON i.repo = s.repo AND i.day = s.day AND i.number = s.number
WHERE s.repo = $repo AND s.day IN (SELECT day FROM run_days) AND s.set_name = 'closed_issues'
  AND list_contains(coalesce(i.labels, CAST([] AS VARCHAR[])), 'stale')
GROUP BY s.day
ORDER BY s.day
