"""The site: an index page and an Atom feed over every report on disk."""
