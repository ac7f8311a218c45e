-- report_follow_ups: each day's follow-ups (items an earlier report featured that moved today), in follow_rank order.
SELECT day, number, kind, title, first_reported, first_section, moves, linked_prs_merged, linked_prs_opened,
       responder, comments, follow_rank
FROM mart_follow_ups
WHERE repo = $repo AND day IN (SELECT day FROM run_days)
ORDER BY day, follow_rank
