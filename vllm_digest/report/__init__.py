"""The daily report: a context dict built from the marts, rendered by Jinja2."""
