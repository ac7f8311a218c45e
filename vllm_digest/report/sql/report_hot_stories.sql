-- report_hot_stories: the stories 🔥 lists each day (mart_hot_stories.listed), top story first, with the items it shows.
SELECT day, story_key, story_name, items, prs, issues, added, fixed, perf, reverted, docs, other,
       numbers[1:shown_items] AS shown, history_days, usual_items, surprise, story_score, story_rank
FROM mart_hot_stories
WHERE repo = $repo AND day IN (SELECT day FROM run_days) AND listed
ORDER BY day, story_rank
