-- core_people: one row per person of the day: everyone who acted in the window (active, with counts of what they
-- did) and every author of the day's items, even one who did nothing in the window (an item featured because
-- others updated it), so that the author's profile reaches the focus section; and, when the source fetched it
-- (GET /users/{login}), their profile's name, company and bio.
WITH actors AS (
    SELECT
        e.repo, e.day, e.actor_login AS login,
        bool_or(coalesce(e.actor_is_bot, false)) AS is_bot,
        count(*) FILTER (WHERE e.event_type = 'opened' AND e.kind = 'issue') AS issues_opened,
        count(*) FILTER (WHERE e.event_type = 'opened' AND e.kind = 'pr') AS prs_opened,
        count(*) FILTER (WHERE e.event_type = 'commented') AS comments,
        count(*) FILTER (WHERE e.event_type = 'reviewed') AS reviews,
        count(*) FILTER (WHERE e.event_type = 'closed') AS closings,
        count(*) FILTER (WHERE e.event_type = 'merged') AS merges
    FROM core_events AS e
    JOIN run_days AS d ON d.repo = e.repo AND d.day = e.day
    WHERE e.actor_login IS NOT NULL
    GROUP BY e.repo, e.day, e.actor_login
),
authors AS (
    SELECT i.repo, i.day, i.author_login AS login,
           bool_or(coalesce(i.author_is_bot, false)) AS is_bot,
           max(i.author_association) AS author_association
    FROM core_items AS i
    JOIN run_days AS d ON d.repo = i.repo AND d.day = i.day
    WHERE i.author_login IS NOT NULL
    GROUP BY i.repo, i.day, i.author_login
),
people AS (
    SELECT
        coalesce(a.repo, au.repo) AS repo, coalesce(a.day, au.day) AS day, coalesce(a.login, au.login) AS login,
        coalesce(a.is_bot, false) OR coalesce(au.is_bot, false) AS is_bot,
        au.author_association,
        a.login IS NOT NULL AS active,
        coalesce(a.issues_opened, 0) AS issues_opened, coalesce(a.prs_opened, 0) AS prs_opened,
        coalesce(a.comments, 0) AS comments, coalesce(a.reviews, 0) AS reviews,
        coalesce(a.closings, 0) AS closings, coalesce(a.merges, 0) AS merges
    FROM actors AS a
    FULL OUTER JOIN authors AS au ON au.repo = a.repo AND au.day = a.day AND au.login = a.login
)
-- stg_users holds one profile per (day, lower(login)), so the join adds no rows and needs no aggregate
SELECT p.*, u.name, u.company, u.bio, u.login IS NOT NULL AS has_profile
FROM people AS p
LEFT JOIN stg_users AS u ON u.repo = p.repo AND u.day = p.day AND lower(u.login) = lower(p.login)
