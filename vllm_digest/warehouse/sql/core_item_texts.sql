-- core_item_texts: what each item's body says, template text left out (warehouse/bodies.py): the one-line "what
-- it does", the Purpose (or Summary, bug description, Motivation), test plan, result figures, the items it
-- closes (FIX #N / Closes #N) and the meaningful text topic matching reads; empty for an item without a
-- description (no body, or vLLM's template left unfilled).
SELECT i.repo, i.day, i.number, i.kind,
       coalesce(p.what <> '' OR p.meaningful_text <> '', false) AS has_description,
       coalesce(p.what, '') AS what,
       coalesce(p.purpose, '') AS purpose,
       coalesce(p.test_plan, '') AS test_plan,
       coalesce(p.test_result, '') AS test_result,
       coalesce(p.result_figures, CAST([] AS VARCHAR[])) AS result_figures,
       coalesce(p.referenced_items, CAST([] AS INTEGER[])) AS referenced_items,
       coalesce(p.meaningful_text, '') AS meaningful_text,
       coalesce(p.sections, CAST([] AS VARCHAR[])) AS sections
FROM core_items AS i
JOIN run_days AS d ON d.repo = i.repo AND d.day = i.day
LEFT JOIN run_parsed_bodies AS p ON p.body = i.body
