-- report_weekly_follow_ups: what became of the items the week's daily reports featured (mart_section_picks): how many
-- there were ('featured'), how many moved later in the same week ('moved', mart_follow_ups of a later day of the
-- week), and how many made each kind of move (an item may make several).
WITH weeks AS (
    SELECT DISTINCT CAST(date_trunc('week', day) AS DATE) AS week FROM run_days
),
featured AS (
    SELECT w.week, p.number, min(p.day) AS first_day
    FROM weeks AS w
    JOIN mart_section_picks AS p
      ON p.repo = $repo AND p.day >= w.week AND p.day < CAST(w.week + INTERVAL 7 DAY AS DATE)
    GROUP BY w.week, p.number
),
moved AS (
    SELECT f.week, f.number, unnest(u.moves) AS move
    FROM featured AS f
    JOIN mart_follow_ups AS u
      ON u.repo = $repo AND u.number = f.number AND u.day > f.first_day
     AND u.day < CAST(f.week + INTERVAL 7 DAY AS DATE)
)
SELECT week, 'featured' AS outcome, CAST(count(*) AS INTEGER) AS items FROM featured GROUP BY week
UNION ALL
SELECT week, 'moved', CAST(count(DISTINCT number) AS INTEGER) FROM moved GROUP BY week
UNION ALL
SELECT week, move, CAST(count(DISTINCT number) AS INTEGER) FROM moved GROUP BY week, move
ORDER BY week, outcome
