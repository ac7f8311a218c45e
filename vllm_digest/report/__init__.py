"""The report stage: each day's frozen DayReport built from the marts and rendered by Jinja2 (Markdown and HTML, every
language), and the weekly digest."""
