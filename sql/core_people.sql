-- core_people: one row per person active in the window, with counts of what they did.
SELECT
    repo, day, actor_login AS login,
    bool_or(coalesce(actor_is_bot, false)) AS is_bot,
    max(assoc.author_association) AS author_association,
    count(*) FILTER (WHERE event_type = 'opened' AND kind = 'issue') AS issues_opened,
    count(*) FILTER (WHERE event_type = 'opened' AND kind = 'pr') AS prs_opened,
    count(*) FILTER (WHERE event_type = 'commented') AS comments,
    count(*) FILTER (WHERE event_type = 'reviewed') AS reviews,
    count(*) FILTER (WHERE event_type = 'closed') AS closings,
    count(*) FILTER (WHERE event_type = 'merged') AS merges
FROM core_events AS e
LEFT JOIN (
    SELECT author_login, max(author_association) AS author_association
    FROM core_items WHERE repo = $repo AND day = CAST($day AS DATE) GROUP BY author_login
) AS assoc ON assoc.author_login = e.actor_login
WHERE e.repo = $repo AND e.day = CAST($day AS DATE) AND e.actor_login IS NOT NULL
GROUP BY repo, day, actor_login
