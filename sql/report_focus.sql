-- report_focus: the items of each day that concern a focus area, with their theme, whether a vendor employee
-- wrote them and why an item is demoted (mart_focus_items.demoted: null = listed, grouped by theme; the
-- section counts the demoted ones in one line).
SELECT day, number, theme_id, theme_zh, theme_en, is_vendor_employee, demoted FROM mart_focus_items
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
ORDER BY day, theme_id, number DESC
