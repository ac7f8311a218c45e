"""Analytics marts: topics, links, hotness, vendor focus areas, activity metrics and rankings."""
