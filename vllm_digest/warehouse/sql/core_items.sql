-- core_items: every issue and PR the day touched, as last seen, with PR sizes joined in.
SELECT
    i.repo, i.day, i.number,
    CASE WHEN i.is_pull_request THEN 'pr' ELSE 'issue' END AS kind,
    i.title, i.body, i.state,
    i.author_login,
    is_bot(i.author_login, i.author_type) AS author_is_bot,
    i.author_association, i.labels,
    i.created_at, i.updated_at, i.closed_at,
    coalesce(i.merged_at, p.merged_at) AS merged_at,
    coalesce(i.draft, p.draft) AS draft,
    i.comments_total, i.reactions_total,
    p.additions, p.deletions, p.changed_files
FROM stg_issues AS i
JOIN run_days AS d ON d.repo = i.repo AND d.day = i.day
LEFT JOIN stg_pulls AS p ON p.repo = i.repo AND p.day = i.day AND p.number = i.number
