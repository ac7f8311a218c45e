"""What the report features and how far back its follow-ups look: the parameters of mart_section_picks and
mart_follow_ups. The report's queries read the same selection limits (report/queries.py), so the picks
recorded for a day are the items its report shows."""

from __future__ import annotations

# how many items each analysis section lists: the hottest discussions, the topics and the threads (an issue
# and its PRs) named under each. Key changes and issues to watch are the fitted models' `selected` rows
# (their section lengths are in taxonomy/selection_weights.json). The topics section lists the first
# `topic_min` topics, then more up to `topic_limit` while they have a listable thread (mart_topic_daily.listed).
SELECTION_LIMITS = {"hot_limit": 3, "topic_min": 3, "topic_limit": 5, "topic_threads": 3}
# 🔥's stories (mart_hot_stories): how many the report lists, how many items each shows, how many items make a
# story. The history (the usual volume, and the vocabulary: an entity the titles carried on at least story_vocab_share
# of the trailing story_history_days) is read only once all those days are built, like the topics' baseline and within
# the days the re-render sensor rebuilds after a day, so a day's stories do not depend on the order days were built. story_score weighs the size and
# the surprise. 🔥 shows hot_groups groups: the stories, then the leading topics (their trends) in the rest.
# Measured with make eval on the sample (tools/editorial/editorial.md): a second story in place of a topic lowers 🔥's story
# recall on the report split from 0.65 to 0.60 (the editor's 🔥 entries there are mostly themes, not names)
STORY_LIMITS = {"story_limit": 1, "story_items": 3, "story_min_items": 3, "story_history_days": 7,
                "story_vocab_share": 0.95,
                "story_size_weight": 1.0, "story_surprise_weight": 1.0, "hot_groups": 6}
# a follow-up looks back this many days for the reports that featured an item
FOLLOW_UP_DAYS = 14
# non-bot comments in one window that count as a burst of discussion
BURST_COMMENTS = 5
# a real discussion, what the 💬 section asks of an item (mart_item_hotness.discussed): at least this many
# comments in the window from at least this many people (no bots, no deleted accounts). One comment, or two
# from the same person, is a note, not a discussion, and listing it would be worse than an empty section
DISCUSSION_MIN_COMMENTS = 2
DISCUSSION_MIN_PEOPLE = 2
# the follow-ups a day's report lists, in mart_follow_ups' follow_rank (strongest move first); one line says
# how many more moved. A busy day moves dozens of earlier items, and a follow-up is a reminder, not a list
FOLLOW_UPS_SHOWN = 10


def picks_params() -> dict:
    return {**SELECTION_LIMITS, **STORY_LIMITS, "follow_up_days": FOLLOW_UP_DAYS, "burst_comments": BURST_COMMENTS,
            "discussion_min_comments": DISCUSSION_MIN_COMMENTS, "discussion_min_people": DISCUSSION_MIN_PEOPLE}
