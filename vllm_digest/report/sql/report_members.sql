-- report_members: the five lists of each report day (the appendix), newest first; ties broken by the larger
-- number so the order is total.
SELECT * FROM mart_five_sets
WHERE repo = $repo AND day IN (SELECT day FROM run_days)
ORDER BY day, set_name, occurred_at DESC, number DESC
