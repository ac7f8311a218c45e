"""The report stage's asset module (report.py), until it moves into vllm_digest/report/; every
other stage keeps its assets in its own package (ingest/, warehouse/, analytics/, site/)."""
