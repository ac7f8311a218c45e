"""How much of a text is kept or shown: the one home of every length the stages cut text to.

Display and storage limits, not editorial choices: what a report selects and how many items a section lists
are the taxonomy's (``core/taxonomy/vllm.toml``) or the fitted weights' (``selection_weights.json``). A limit
shared by two stages lives here so that they cannot drift apart (the warehouse keeps an item's "what it does"
line at the length the report and the narrative's facts print it).
"""

from __future__ import annotations

# --- an item's body, as the warehouse keeps it (warehouse/bodies.py, into core_item_texts)
# a one-line "what it does" is the author's first sentence whole; longer ones (rare) are cut at a word.
# The report's entries and the narrative's facts print it at this length too
WHAT_CHARS = 300
# a kept section of a body (purpose, test plan, test result)
SECTION_CHARS = 4000
# the author's meaningful text that topic rules match
TEXT_CHARS = 8000
# the figures (numbers with units) kept from a PR's test results
MAX_FIGURES = 12
# a PR's Changes list as the facts pack quotes it: its first items, each whole up to this length
MAX_CHANGES = 5
CHANGE_CHARS = 200
# the author's claims: each figure with the sentence or table row that gives it its meaning
MAX_CLAIMS = 6
CLAIM_CHARS = 240
# what a Test Plan ran: the first lines of its code blocks
MAX_COMMANDS = 2

# --- the narrative's facts packs (report/facts.py)
# an item's purpose: whole sentences up to about this many characters
PURPOSE_CHARS = 600
# one section's pack, in estimated tokens (report/narrative/prompts.py: estimate_tokens): past it the
# lowest-ranked items' details are left out first. The prompt's instructions add ~300-500 tokens to it
PACK_TOKENS = 4000

# --- the report
# a section's lead, closing line and "why" paragraph
LEAD_CHARS = 2000
# a reported figure is quoted with at most this much of its sentence around it
FIGURE_CHARS = 90
# how much of an issue's title "fixes #N: title" quotes
FIXED_TITLE_CHARS = 90
# at most this many code areas in "touches: ..."
TOUCHES = 3
# the day's headline: one line, short enough for an e-mail subject (the report writes it, delivery sends it)
HEADLINE_CHARS = 160
