-- core_item_texts: what each item's body says, template text left out (warehouse/bodies.py): the one-line "what
-- it does", the Purpose (or Summary, bug description, Motivation), test plan, result figures, the items it
-- closes (FIX #N / Closes #N) and the meaningful text topic matching reads; empty for an item without a
-- description (no body, or vLLM's template left unfilled). Each item-day stores a reference (the content hash
-- of its parsed text, null without a body) in core_item_text_refs; the text itself is in core_texts once.
SELECT i.repo, i.day, i.number, i.kind, p.text_hash
FROM core_items AS i
JOIN run_days AS d ON d.repo = i.repo AND d.day = i.day
LEFT JOIN run_parsed_bodies AS p ON p.body = i.body
