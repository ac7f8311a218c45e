-- report_follow_up_days: for each day, how many of the $follow_up_days days before it the warehouse holds built (a mart_activity_daily row, as the trend baseline counts them): the days whose picks its follow-ups could read.
SELECT d.day, count(a.day) AS days_read
FROM run_days AS d
LEFT JOIN mart_activity_daily AS a
  ON a.repo = d.repo AND a.day < d.day AND a.day >= d.day - CAST($follow_up_days AS INTEGER)
GROUP BY d.day
ORDER BY d.day
