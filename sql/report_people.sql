-- report_people: per day, how many non-bot people took part (acted in the window: not the authors of the day's
-- items who did nothing in it) and the window's comments and reviews in all.
SELECT day, count(*) FILTER (WHERE active AND NOT coalesce(is_bot, false)) AS humans,
       coalesce(sum(reviews), 0) AS reviews, coalesce(sum(comments), 0) AS comments
FROM core_people
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
GROUP BY day
ORDER BY day
