-- report_hotness: each day's hot discussions, every one mart_section_picks chose (the one home of the cut) and in
-- its order, with the stored parts of their score (the section's chart) and the size of their discussion.
SELECT p.day, p.number, h.hotness, h.comments_points, h.participants_points, h.reviews_points,
       h.reactions_points, h.opened_points, h.closed_points, h.discussion_comments, h.discussion_people
FROM mart_section_picks AS p
JOIN mart_item_hotness AS h ON h.repo = p.repo AND h.day = p.day AND h.number = p.number
WHERE p.repo = $repo AND p.day IN (SELECT day FROM run_days) AND p.section = 'discussions'
ORDER BY p.day, p.pick_rank
