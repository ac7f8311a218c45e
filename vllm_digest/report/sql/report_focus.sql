-- report_focus: the items of each day that concern a focus area, with their theme, whether a vendor employee
-- wrote them and whether that is known (a profile names the employer), the login pattern the author matches (a
-- naming convention, reported as such), and why an item is demoted
-- (mart_focus_items.demoted: null = listed, grouped by theme; the section counts the demoted ones in one line),
-- and the item's body (core_items), which the focus section searches for the area's highlighted product.
SELECT f.day, f.number, f.theme_id, f.theme_zh, f.theme_en, f.is_vendor_employee, f.author_profile_known,
       f.author_employer_known, f.author_login_rule, f.demoted,
       i.body
FROM mart_focus_items AS f
LEFT JOIN core_items AS i ON i.repo = f.repo AND i.day = f.day AND i.number = f.number
WHERE f.repo = $repo AND f.day IN (SELECT day FROM run_days)
ORDER BY f.day, f.theme_id, f.number DESC
