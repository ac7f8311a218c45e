-- report_weekly_key_changes: the key changes the week's daily reports featured (mart_section_picks) that were merged
-- within the week (mart_five_sets), highest key score first, ties by the larger number: the first $weekly_changes.
WITH weeks AS (
    SELECT DISTINCT CAST(date_trunc('week', day) AS DATE) AS week FROM run_days
),
featured AS (
    SELECT w.week, p.number, max(p.score) AS score, min(p.day) AS featured_on
    FROM weeks AS w
    JOIN mart_section_picks AS p
      ON p.repo = $repo AND p.section = 'key_changes'
     AND p.day >= w.week AND p.day < CAST(w.week + INTERVAL 7 DAY AS DATE)
    GROUP BY w.week, p.number
),
merged AS (
    SELECT f.week, f.number, f.score, f.featured_on, max(s.day) AS merged_on, arg_max(s.title, s.day) AS title,
           arg_max(s.author_login, s.day) AS author_login
    FROM featured AS f
    JOIN mart_five_sets AS s
      ON s.repo = $repo AND s.set_name = 'merged_prs' AND s.number = f.number
     AND s.day >= f.week AND s.day < CAST(f.week + INTERVAL 7 DAY AS DATE)
    GROUP BY f.week, f.number, f.score, f.featured_on
)
SELECT * FROM merged
QUALIFY row_number() OVER (PARTITION BY week ORDER BY score DESC, number DESC) <= $weekly_changes
ORDER BY week, score DESC, number DESC
