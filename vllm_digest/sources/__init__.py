"""Where a day's raw activity comes from: the embedded sample or the GitHub API."""
