-- report_focus: the items of each day that concern a focus area, with their theme, whether a vendor employee
-- wrote them and whether that is known (the author's profile was fetched), and why an item is demoted
-- (mart_focus_items.demoted: null = listed, grouped by theme; the section counts the demoted ones in one line).
SELECT day, number, theme_id, theme_zh, theme_en, is_vendor_employee, author_profile_known, demoted FROM mart_focus_items
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
ORDER BY day, theme_id, number DESC
