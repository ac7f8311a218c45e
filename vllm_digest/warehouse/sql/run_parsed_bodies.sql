-- run_parsed_bodies: each distinct body of the batch with what warehouse/bodies.py read in it (parallel lists
-- bound from Python, one row per body) and that text's content hash, in a connection-local temp table that
-- core_item_texts and core_item_texts_store read. A text without changes, claims or test commands keeps the hash
-- parsed_text_hash gives (the one migration 0003 spells out); one with them hashes that hash with them.
CREATE OR REPLACE TEMP TABLE run_parsed_bodies AS
SELECT *, CASE WHEN len(changes) = 0 AND len(claims) = 0 AND len(test_commands) = 0 THEN base_hash
               ELSE sha256(base_hash || CAST(to_json({'changes': changes, 'claims': claims,
                                                      'test_commands': test_commands}) AS VARCHAR)) END AS text_hash
FROM (
SELECT *, parsed_text_hash(what, purpose, test_plan, test_result, result_figures, referenced_items,
                           meaningful_text, sections) AS base_hash
FROM (
    SELECT unnest(CAST($bodies AS VARCHAR[])) AS body,
           unnest(CAST($whats AS VARCHAR[])) AS what,
           unnest(CAST($purposes AS VARCHAR[])) AS purpose,
           unnest(CAST($test_plans AS VARCHAR[])) AS test_plan,
           unnest(CAST($test_results AS VARCHAR[])) AS test_result,
           unnest(CAST($figures AS VARCHAR[][])) AS result_figures,
           unnest(CAST($references AS INTEGER[][])) AS referenced_items,
           unnest(CAST($texts AS VARCHAR[])) AS meaningful_text,
           unnest(CAST($sections AS VARCHAR[][])) AS sections,
           unnest(CAST($changes AS VARCHAR[][])) AS changes,
           unnest(CAST($claims AS VARCHAR[][])) AS claims,
           unnest(CAST($test_commands AS VARCHAR[][])) AS test_commands
))
