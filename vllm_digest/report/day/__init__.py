"""One day as the report holds it, under everything that writes it: the report SQL run once for a batch of days
(``queries``), a day's rows grouped per item (``data``: ``DayData``) and the frozen page model the sections
fill and the templates render (``model``: ``DayReport``, ``Section``, ``Item`` ...). It imports nothing else of
the report, so the sections (``report/sections/``), the charts, the narrative's facts and the renderer all
stand on it without a circle. Nothing is re-exported here: import from the defining module.
"""
