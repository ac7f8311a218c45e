-- report_top_authors: each day's $top_authors most active non-bot authors of new PRs, by PRs opened, then by
-- login (case-insensitive).
SELECT s.day, i.author_login, count(*) AS prs
FROM mart_five_sets AS s
JOIN core_items AS i ON i.repo = s.repo AND i.day = s.day AND i.number = s.number
WHERE s.repo = $repo AND s.day IN (SELECT day FROM run_days) AND s.set_name = 'new_prs'
  AND coalesce(i.author_login, '') <> '' AND NOT coalesce(i.author_is_bot, false)
GROUP BY s.day, i.author_login
QUALIFY row_number() OVER (PARTITION BY s.day ORDER BY count(*) DESC, lower(i.author_login), i.author_login)
        <= $top_authors
ORDER BY s.day, prs DESC, lower(i.author_login), i.author_login
