-- run_parsed_bodies: each distinct body of the batch with what warehouse/bodies.py read in it (parallel lists
-- bound from Python, one row per body) and that text's content hash, in a connection-local temp table that
-- core_item_texts and core_item_texts_store read.
CREATE OR REPLACE TEMP TABLE run_parsed_bodies AS
SELECT *, parsed_text_hash(what, purpose, test_plan, test_result, result_figures, referenced_items,
                           meaningful_text, sections) AS text_hash
FROM (
    SELECT unnest(CAST($bodies AS VARCHAR[])) AS body,
           unnest(CAST($whats AS VARCHAR[])) AS what,
           unnest(CAST($purposes AS VARCHAR[])) AS purpose,
           unnest(CAST($test_plans AS VARCHAR[])) AS test_plan,
           unnest(CAST($test_results AS VARCHAR[])) AS test_result,
           unnest(CAST($figures AS VARCHAR[][])) AS result_figures,
           unnest(CAST($references AS INTEGER[][])) AS referenced_items,
           unnest(CAST($texts AS VARCHAR[])) AS meaningful_text,
           unnest(CAST($sections AS VARCHAR[][])) AS sections
)
