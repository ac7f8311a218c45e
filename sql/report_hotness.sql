-- report_hotness: each day's hottest items with the stored parts of their score, hottest first: the first
-- $hot_limit are the hot discussions, the first $parts_limit the hotness chart. Junk (int_item_junk) is left out.
SELECT day, number, hotness, comments_points, participants_points, reviews_points,
       reactions_points, opened_points, closed_points
FROM mart_item_hotness
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[]))) AND hotness > 0
  AND (day, number) NOT IN (SELECT (day, number) FROM int_item_junk
                            WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[]))))
QUALIFY row_number() OVER (PARTITION BY day ORDER BY hotness_rank, number DESC) <= greatest($hot_limit, $parts_limit)
ORDER BY day, hotness_rank, number DESC
