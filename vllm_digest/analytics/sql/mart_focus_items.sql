-- mart_focus_items: items of the day that concern a vendor focus area (e.g. AMD/ROCm), with the rule that
-- matched, the theme the report groups them under, and whether the author is tagged a vendor employee.
-- Membership: any focus rule of ref_taxonomy_rules (tag, label, text regex over title then body, review-comment
-- path, or an author-login pattern such as '-amd'); matched_rule is the strongest (tag > label > title > path >
-- body > author). Theme: the first theme in file order whose tag, label or title regex matches (the body is
-- left out because words like "fix" or "test" are everywhere in bodies); otherwise the default theme.
-- is_vendor_employee: the author's profile (core_people: company and bio, from GET /users/{login}) matches an
-- employee_profiles pattern, or the login is in employee_logins. A login convention (an `authors` pattern such
-- as '-amd', or a taxonomy's old employee_authors) is never an employer: it is kept apart as author_login_rule.
-- author_profile_known says whether the author's profile was fetched; author_employer_known whether anything
-- names the author's employer (a vendor match, or a profile whose company field is filled in), so a report can
-- tell "not an employee" from "not known": a fetched profile with no company says nothing of an employer.
-- author_login_rule: the focus area's login pattern the author's login matches (its `authors`, without the
-- case flag), for a count of "authors with such logins", which is what it is and nothing more.
-- Junk (int_item_junk: fork syncs, empty titles, PRs closed by their author within minutes) is left out.
-- demoted: why an item is kept off the focus section's list (null = listed; the section counts the rest in
-- one line), because the vendor area is not its subject or it carries no news:
--   label_spam       its only evidence is a label, among 3 or more labels (mass-labelled PRs)
--   body_mention     its only evidence is the body (an environment dump or a passing mention)
--   off_title        not opened in this window (merged or closed today, or only updated), its evidence only a
--                    label, the body or the author's login, and its title names the area nowhere, not even
--                    inside an identifier: a late event of an item the area was never the subject of
--   stale            labelled stale (closed or kept alive by the stale bot, not by news)
--   closed_unmerged  a PR closed without merging, not opened in this window
WITH days AS (
    SELECT day FROM run_days
),
rules AS (
    SELECT * FROM ref_taxonomy_rules
    WHERE repo = $repo AND day IN (SELECT day FROM days) AND scope IN ('focus', 'theme')
),
text_hits AS (
    SELECT * FROM int_text_hits
    WHERE repo = $repo AND day IN (SELECT day FROM days) AND scope IN ('focus', 'theme')
),
items AS (
    SELECT day, number, kind, title, author_login, labels
    FROM core_items WHERE repo = $repo AND day IN (SELECT day FROM days)
      AND (day, number) NOT IN (SELECT (day, number) FROM int_item_junk
                                WHERE repo = $repo AND day IN (SELECT day FROM days))
),
features AS (
    SELECT * FROM int_item_features WHERE repo = $repo AND day IN (SELECT day FROM days)
),
focus_hits AS (
    SELECT f.day, f.number, r.owner_id AS focus_id, feature_priority(f.kind) AS priority,
           feature_evidence(f.kind, f.value) AS evidence
    FROM features AS f
    JOIN rules AS r ON r.day = f.day AND r.scope = 'focus' AND feature_matches(r.kind, r.value, f.kind, f.value)
    UNION ALL
    SELECT day, number, owner_id, CASE field WHEN 'title' THEN 3 WHEN 'body' THEN 5 ELSE 6 END,
           field || ':"' || matched || '"'
    FROM text_hits
    WHERE scope = 'focus' AND field IN ('title', 'body', 'author')
      AND rule_ord NOT IN (SELECT ord FROM rules WHERE kind = 'employee_author')
),
members AS (
    SELECT day, number, focus_id,
           arg_min(evidence, (priority, evidence)) AS matched_rule,
           list_sort(list_distinct(list(evidence))) AS matched_rules
    FROM focus_hits GROUP BY day, number, focus_id
),
theme_hits AS (
    SELECT m.day, m.number, m.focus_id, r.owner_id AS theme_id, r.ord, feature_evidence(f.kind, f.value) AS evidence
    FROM members AS m
    JOIN features AS f ON f.day = m.day AND f.number = m.number AND f.kind IN ('tag', 'label')
    JOIN rules AS r ON r.day = m.day AND r.scope = 'theme' AND r.parent_id = m.focus_id
                   AND r.kind = f.kind AND r.value = f.value
    UNION ALL
    SELECT m.day, m.number, m.focus_id, h.owner_id, h.rule_ord, 'title:"' || h.matched || '"'
    FROM members AS m
    JOIN text_hits AS h ON h.day = m.day AND h.number = m.number AND h.scope = 'theme'
                       AND h.parent_id = m.focus_id AND h.field = 'title'
),
themes AS (
    -- file order decides between themes that match; the default theme takes the rest
    SELECT day, number, focus_id, arg_min(theme_id, ord) AS theme_id, arg_min(evidence, ord) AS theme_rule
    FROM theme_hits GROUP BY day, number, focus_id
),
default_themes AS (
    SELECT day, parent_id AS focus_id, owner_id AS theme_id FROM rules WHERE scope = 'theme' AND kind = 'default'
),
theme_names AS (
    SELECT DISTINCT day, parent_id AS focus_id, owner_id AS theme_id, name_zh, name_en
    FROM rules WHERE scope = 'theme'
),
focus_names AS (
    SELECT DISTINCT day, owner_id AS focus_id, grp AS vendor, taxonomy_version FROM rules WHERE scope = 'focus'
),
profiles AS (
    -- the profiles fetched for the days' people: company and bio, what an employer is read from
    SELECT day, lower(login) AS login, concat_ws(' ', company, bio) AS profile_text,
           nullif(trim(coalesce(company, '')), '') IS NOT NULL AS has_company
    FROM core_people WHERE repo = $repo AND day IN (SELECT day FROM days) AND has_profile
),
employees AS (
    SELECT m.day, m.number, m.focus_id, min(e.rule) AS employee_rule
    FROM members AS m
    JOIN (
        SELECT i.day, i.number, r.owner_id AS focus_id, 'profile:' || r.pattern AS rule
        FROM items AS i
        JOIN profiles AS p ON p.day = i.day AND p.login = lower(i.author_login)
        JOIN rules AS r ON r.day = i.day AND r.scope = 'focus' AND r.kind = 'employee_profile'
                       AND regexp_matches(p.profile_text, r.pattern)
        UNION ALL
        SELECT i.day, i.number, r.owner_id, 'login:' || r.value
        FROM items AS i
        JOIN rules AS r ON r.day = i.day AND r.scope = 'focus' AND r.kind = 'employee_login'
                       AND r.value = lower(i.author_login)
    ) AS e ON e.day = m.day AND e.number = m.number AND e.focus_id = m.focus_id
    GROUP BY m.day, m.number, m.focus_id
),
login_rules AS (
    -- the login patterns (authors, or an old taxonomy's employee_authors) the author's login matches
    SELECT h.day, h.number, h.owner_id AS focus_id, min(regexp_replace(r.pattern, '^\(\?i\)', '')) AS login_rule
    FROM text_hits AS h
    JOIN rules AS r ON r.day = h.day AND r.ord = h.rule_ord AND r.kind IN ('author', 'employee_author')
    WHERE h.scope = 'focus' AND h.field = 'author'
    GROUP BY h.day, h.number, h.owner_id
),
title_names_area AS (
    -- the area's own keyword regex over the title cut at identifier joints (a lower-case letter or a digit
    -- before a capital, an underscore): the title names the area also inside an identifier
    -- (`ROCmAiterTritonRope`, `mi325_1`, `hipBLASLt`), which the membership rule's word boundaries do not see.
    -- The pattern itself is left as the taxonomy wrote it: taking its \b out matched "amd" in "command" and
    -- "hip" in "chip", and could turn a valid pattern into an invalid one.
    -- Run only for the members whose evidence is all label, body or login, the only ones 'off_title' reads
    -- it for: the pattern is a column, so the regex is compiled again for every row it meets
    SELECT DISTINCT m.day, m.number, m.focus_id
    FROM members AS m
    JOIN items AS i ON i.day = m.day AND i.number = m.number
    JOIN rules AS r ON r.day = m.day AND r.scope = 'focus' AND r.kind = 'text' AND r.owner_id = m.focus_id
    WHERE list_bool_and(list_transform(m.matched_rules, lambda e: starts_with(e, 'label:')
                                       OR starts_with(e, 'body:') OR starts_with(e, 'author:')))
      AND regexp_matches(
        replace(regexp_replace(i.title, '([a-z0-9])([A-Z])', '\1 \2', 'g'), '_', ' '), r.pattern)
),
sets AS (
    SELECT day, number, list_sort(list(set_name)) AS sets
    FROM mart_five_sets WHERE repo = $repo AND day IN (SELECT day FROM days)
    GROUP BY day, number
)
SELECT $repo AS repo, m.day, m.focus_id, f.vendor, m.number, i.kind, i.title,
       i.author_login, i.labels, coalesce(s.sets, CAST([] AS VARCHAR[])) AS sets,
       m.matched_rule, m.matched_rules,
       coalesce(t.theme_id, d.theme_id) AS theme_id, tn.name_zh AS theme_zh, tn.name_en AS theme_en,
       coalesce(t.theme_rule, CASE WHEN d.theme_id IS NOT NULL THEN 'default' END) AS theme_rule,
       e.employee_rule IS NOT NULL AS is_vendor_employee, e.employee_rule,
       e.employee_rule IS NOT NULL OR pk.login IS NOT NULL AS author_profile_known,
       e.employee_rule IS NOT NULL OR coalesce(pk.has_company, false) AS author_employer_known,
       lr.login_rule AS author_login_rule,
       h.hotness, f.taxonomy_version,
       CASE WHEN list_bool_and(list_transform(m.matched_rules, lambda r: starts_with(r, 'label:')))
                 AND len(coalesce(i.labels, [])) >= 3 THEN 'label_spam'
            WHEN list_bool_and(list_transform(m.matched_rules, lambda r: starts_with(r, 'body:')))
                 THEN 'body_mention'
            WHEN list_bool_and(list_transform(m.matched_rules, lambda r: starts_with(r, 'label:')
                                              OR starts_with(r, 'body:') OR starts_with(r, 'author:')))
                 AND NOT list_has_any(coalesce(s.sets, []), ['new_prs', 'new_issues'])
                 AND tn_area.number IS NULL THEN 'off_title'
            WHEN list_contains(list_transform(coalesce(i.labels, []), lambda l: lower(l)), 'stale') THEN 'stale'
            WHEN list_contains(coalesce(s.sets, []), 'closed_unmerged_prs')
                 AND NOT list_contains(coalesce(s.sets, []), 'new_prs') THEN 'closed_unmerged'
       END AS demoted
FROM members AS m
JOIN items AS i ON i.day = m.day AND i.number = m.number
JOIN focus_names AS f ON f.day = m.day AND f.focus_id = m.focus_id
LEFT JOIN themes AS t ON t.day = m.day AND t.number = m.number AND t.focus_id = m.focus_id
LEFT JOIN default_themes AS d ON d.day = m.day AND d.focus_id = m.focus_id
LEFT JOIN theme_names AS tn ON tn.day = m.day AND tn.focus_id = m.focus_id
                           AND tn.theme_id = coalesce(t.theme_id, d.theme_id)
LEFT JOIN employees AS e ON e.day = m.day AND e.number = m.number AND e.focus_id = m.focus_id
LEFT JOIN sets AS s ON s.day = m.day AND s.number = m.number
LEFT JOIN title_names_area AS tn_area ON tn_area.day = m.day AND tn_area.number = m.number
                                     AND tn_area.focus_id = m.focus_id
LEFT JOIN profiles AS pk ON pk.day = m.day AND pk.login = lower(i.author_login)
LEFT JOIN login_rules AS lr ON lr.day = m.day AND lr.number = m.number AND lr.focus_id = m.focus_id
LEFT JOIN mart_item_hotness AS h ON h.repo = $repo AND h.day = m.day AND h.number = m.number
