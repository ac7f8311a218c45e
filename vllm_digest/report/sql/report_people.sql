-- report_people: per day, how many people took part (acted in the window: not the authors of the day's items who
-- did nothing in it; not bots; not a deleted account, GitHub's stand-in `ghost`, which stands for any number of
-- accounts; a null login never reaches core_people) and the window's comments and reviews in all.
SELECT day, count(*) FILTER (WHERE active AND NOT coalesce(is_bot, false) AND lower(login) <> 'ghost') AS humans,
       coalesce(sum(reviews), 0) AS reviews, coalesce(sum(comments), 0) AS comments
FROM core_people
WHERE repo = $repo AND day IN (SELECT day FROM run_days)
GROUP BY day
ORDER BY day
