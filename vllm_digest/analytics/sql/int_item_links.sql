-- int_item_links: issue <-> PR links of each day's items, from two kinds of evidence:
--   body_keyword:   "fixes #N" / "closes #N" / "resolves #N" (any tense, or the full issue URL of this repo)
--                   in a PR body pointing at an issue, or in an issue body pointing at a PR; the other end
--                   may be outside the day (issue_in_day / pr_in_day say which ends are items of the day).
--   title_evidence: an issue and a PR of the same day by the same author, created at most
--                   $link_window_minutes apart, whose titles share >= $link_min_shared_words words
--                   (lower-cased, split on non-alphanumerics, >= 3 characters, not in $link_stopwords).
-- A pair found both ways is kept once, as body_keyword (the stronger evidence).
WITH items AS (
    SELECT day, number, kind, title, body, author_login, created_at
    FROM core_items WHERE repo = $repo AND day IN (SELECT day FROM run_days)
),
body_refs AS (
    SELECT i.day, i.number AS src, i.kind AS src_kind,
           CAST(regexp_extract(m, '(\d+)\s*$', 1) AS INTEGER) AS target, trim(m) AS phrase
    FROM items AS i,
         unnest(regexp_extract_all(
             coalesce(i.body, ''),
             '(?i)\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\b\s*:?\s+(?:#|https?://github\.com/'
                 || replace($repo, '.', '\.') || '/(?:issues|pull)/)\d+'
         )) AS t(m)
),
body_links AS (
    -- which end is the issue: the referenced item's kind when it is in the day, otherwise the
    -- opposite of the referencing item's kind (PRs fix issues, issues are closed by PRs)
    SELECT r.day,
        CASE WHEN coalesce(tgt.kind, CASE WHEN r.src_kind = 'pr' THEN 'issue' ELSE 'pr' END) = 'issue'
             THEN r.target ELSE r.src END AS issue_number,
        CASE WHEN coalesce(tgt.kind, CASE WHEN r.src_kind = 'pr' THEN 'issue' ELSE 'pr' END) = 'issue'
             THEN r.src ELSE r.target END AS pr_number,
        'body_keyword' AS link_kind,
        '#' || r.src || ' body: "' || r.phrase || '"' AS evidence,
        CAST([] AS VARCHAR[]) AS shared_words,
        CAST(NULL AS DOUBLE) AS minutes_apart
    FROM body_refs AS r
    LEFT JOIN items AS tgt ON tgt.day = r.day AND tgt.number = r.target
    WHERE r.target <> r.src AND (tgt.kind IS NULL OR tgt.kind <> r.src_kind)
),
same_author AS (
    -- the issue/PR pairs of a day by one author created close together: the few whose titles are compared
    SELECT iss.day, iss.number AS issue_number, pr.number AS pr_number, iss.author_login,
           abs(epoch(pr.created_at) - epoch(iss.created_at)) / 60.0 AS minutes_apart
    FROM items AS iss
    JOIN items AS pr ON pr.day = iss.day AND pr.kind = 'pr' AND pr.author_login = iss.author_login
    WHERE iss.kind = 'issue'
      AND abs(epoch(pr.created_at) - epoch(iss.created_at)) <= CAST($link_window_minutes AS INTEGER) * 60
),
words AS (
    -- split only the titles of those pairs (splitting every item's title cost ~1 s CPU a year)
    SELECT day, number, list_distinct(list_filter(
               regexp_split_to_array(lower(coalesce(title, '')), '[^a-z0-9]+'),
               lambda w: length(w) >= 3 AND NOT list_contains(CAST($link_stopwords AS VARCHAR[]), w)
           )) AS ws
    FROM items
    WHERE (day, number) IN (SELECT (day, issue_number) FROM same_author
                            UNION ALL SELECT (day, pr_number) FROM same_author)
),
title_pairs AS (
    SELECT p.day, p.issue_number, p.pr_number, p.author_login, p.minutes_apart,
           list_sort(list_intersect(wi.ws, wp.ws)) AS shared
    FROM same_author AS p
    JOIN words AS wi ON wi.day = p.day AND wi.number = p.issue_number
    JOIN words AS wp ON wp.day = p.day AND wp.number = p.pr_number
),
title_links AS (
    SELECT day, issue_number, pr_number, 'title_evidence' AS link_kind,
           'same author ' || author_login || ', created ' || CAST(round(minutes_apart) AS INTEGER)
               || ' min apart, shared title words: ' || array_to_string(shared, ', ') AS evidence,
           shared AS shared_words, minutes_apart
    FROM title_pairs
    WHERE len(shared) >= CAST($link_min_shared_words AS INTEGER)
),
all_links AS (
    SELECT *, 1 AS strength FROM body_links
    UNION ALL
    SELECT *, 2 FROM title_links
)
SELECT $repo AS repo, l.day, l.issue_number, l.pr_number, l.link_kind,
       l.evidence, l.shared_words, l.minutes_apart,
       EXISTS (SELECT 1 FROM items AS x WHERE x.day = l.day AND x.number = l.issue_number) AS issue_in_day,
       EXISTS (SELECT 1 FROM items AS x WHERE x.day = l.day AND x.number = l.pr_number) AS pr_in_day
FROM all_links AS l
QUALIFY row_number() OVER (PARTITION BY l.day, l.issue_number, l.pr_number ORDER BY l.strength, l.evidence) = 1
