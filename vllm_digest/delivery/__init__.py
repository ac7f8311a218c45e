"""Delivery: publish the site to a git branch, and send each day to chat and e-mail, at most once (or at least once, when asked)."""
