"""The live GitHub source: the HTTP client (client.py, the only code that talks to GitHub), one
fetch function per endpoint (endpoints.py) and the day plan (plan.py) whose run() turns a
report day into a raw DayPayload."""
