"""The eight analysis sections of one day in one language, written from the warehouse without an LLM.

One module per section (``summary``, ``focus``, ``discussions``, ``topics``, ``key_changes``, ``follow_ups``,
``activity``, ``notable``), each a builder of the section's lead sentence, groups of items and optional closing
line of plain (one-line, untrusted-safe) text. ``registry`` orders them and makes the frozen ``Section``s;
``markdown`` renders a section's body with ``md_inline`` on every untrusted field, and the HTML template
renders the same ``Section`` with autoescaping, so both formats say the same thing. ``entries`` is how a
section writes an item; ``shared`` holds what the narrative's facts pack reads the same way. Every word of
ours comes from the language's message catalog; the focus area's names, vendor and highlighted product come
from the taxonomy. Nothing is re-exported here: import from the defining module.
"""
