-- int_item_junk: the day's items that carry no news, with why, so no analysis section (focus, key changes,
-- notable issues, hot discussions) features them; the topics and the five lists still count them.
-- reason (the first that applies, in this order):
--   fork_sync    a title that only names a branch or version sync: "Custom/v0.14.1", "Merge branch 'main'",
--                "Sync with upstream", "release/v0.9" (a fork's sync opened against the project by mistake)
--   empty_title  a title with no content: after [tags] are stripped, no word with a letter ("[Bug]:"), or a
--                single short word (at most 5 characters: "yes", "Algo") or a bare version ("0.17.1+librosa")
--   bot_chore    housekeeping no reader follows: an item a bot wrote (dependency bumps, lockfile and pin updates,
--                automated syncs), or a title that only pins CI actions to commits ("fix: pin 1 unpinned
--                action(s)", "Pin GitHub Actions"), whoever opened it
--   quick_close  a PR closed unmerged within 10 minutes of being opened, by its author when the
--                closer is known (a mistaken or test PR; the sample's closers are unknown, so any closer);
--                only a close before the window's end counts, so a day rebuilt later (when a close after
--                the window is known) flags the same items as the day built on time
WITH days AS (
    SELECT day, window_end FROM run_days
),
items AS (
    SELECT i.day, d.window_end, i.number, i.kind, i.title, i.author_login, coalesce(i.author_is_bot, false) AS bot,
           i.created_at, i.closed_at, i.merged_at,
           trim(regexp_replace(coalesce(i.title, ''), '\[[^\]]*\]', ' ', 'g')) AS bare_title
    FROM core_items AS i JOIN days AS d USING (day)
    WHERE i.repo = $repo
),
-- the last named closer inside the window; two closes at the same instant: the greater login (a total order)
closers AS (
    SELECT e.day, e.number, arg_max(e.actor_login, (e.occurred_at, e.actor_login)) AS closer
    FROM core_events AS e JOIN days AS d USING (day)
    WHERE e.repo = $repo AND e.event_type = 'closed' AND e.occurred_at < d.window_end
    GROUP BY e.day, e.number
),
flagged AS (
    SELECT i.day, i.number, i.title, i.author_login, i.bot, c.closer,
           regexp_matches(i.bare_title, '(?i)^\s*(merge\s+(remote-tracking\s+)?branch\b.*|sync(ing)?\s+(with\s+|from\s+)?(upstream|main|master)\b.*|(custom|release|sync|upstream|rebase|fork)\s*[/_: -]\s*v?\d+(\.\d+)+\S*)\s*$')
               AS fork_sync,
           i.bot OR regexp_matches(i.bare_title, '(?i)^\W*(\w+(\([^)]*\))?!?\s*:\s*)?pin(ning|s)?\s+(all\s+|\d+\s+)?(unpinned\s+)?(github\s+)?actions?(\(s\))?(\s+(to|by)\s+(commit\s+)?(sha|hash|digest)s?)?\W*$')
               AS bot_chore,
           list_filter(string_split_regex(i.bare_title, '\s+'), lambda w: regexp_matches(w, '\pL')) AS words,
           i.kind = 'pr' AND i.merged_at IS NULL AND i.closed_at IS NOT NULL AND i.closed_at < i.window_end
               AND i.closed_at - i.created_at <= INTERVAL 10 MINUTE
               AND (c.closer IS NULL OR c.closer = i.author_login) AS quick_close,
           round(date_diff('second', i.created_at, i.closed_at) / 60.0, 1) AS minutes_open
    FROM items AS i LEFT JOIN closers AS c ON c.day = i.day AND c.number = i.number
),
judged AS (
    SELECT *, len(words) = 0 OR (len(words) = 1 AND (length(words[1]) <= 5 OR regexp_matches(words[1], '(?i)^v?\d')))
                  AS empty_title
    FROM flagged
)
SELECT $repo AS repo, day, number,
       CASE WHEN fork_sync THEN 'fork_sync' WHEN empty_title THEN 'empty_title' WHEN bot_chore THEN 'bot_chore'
            ELSE 'quick_close' END AS reason,
       CASE WHEN fork_sync OR empty_title OR (bot_chore AND NOT bot) THEN 'title:"' || left(title, 60) || '"'
            WHEN bot_chore THEN 'author:"' || coalesce(author_login, '') || '" (a bot)'
            ELSE 'closed unmerged after ' || minutes_open || ' min by ' || coalesce(closer, 'an unknown closer')
       END AS evidence
FROM judged
WHERE fork_sync OR empty_title OR bot_chore OR quick_close
