-- core_people: one row per person active in the window, with counts of what they did and, when the source fetched
-- it (GET /users/{login}), their profile's name, company and bio.
SELECT
    e.repo, e.day, e.actor_login AS login,
    bool_or(coalesce(e.actor_is_bot, false)) AS is_bot,
    max(assoc.author_association) AS author_association,
    count(*) FILTER (WHERE e.event_type = 'opened' AND e.kind = 'issue') AS issues_opened,
    count(*) FILTER (WHERE e.event_type = 'opened' AND e.kind = 'pr') AS prs_opened,
    count(*) FILTER (WHERE e.event_type = 'commented') AS comments,
    count(*) FILTER (WHERE e.event_type = 'reviewed') AS reviews,
    count(*) FILTER (WHERE e.event_type = 'closed') AS closings,
    count(*) FILTER (WHERE e.event_type = 'merged') AS merges,
    any_value(u.name) AS name, any_value(u.company) AS company, any_value(u.bio) AS bio,
    bool_or(u.login IS NOT NULL) AS has_profile
FROM core_events AS e
JOIN run_days AS d ON d.repo = e.repo AND d.day = e.day
LEFT JOIN (
    SELECT i.repo, i.day, i.author_login, max(i.author_association) AS author_association
    FROM core_items AS i JOIN run_days AS d ON d.repo = i.repo AND d.day = i.day
    GROUP BY i.repo, i.day, i.author_login
) AS assoc ON assoc.repo = e.repo AND assoc.day = e.day AND assoc.author_login = e.actor_login
LEFT JOIN stg_users AS u ON u.repo = e.repo AND u.day = e.day AND lower(u.login) = lower(e.actor_login)
WHERE e.actor_login IS NOT NULL
GROUP BY e.repo, e.day, e.actor_login
