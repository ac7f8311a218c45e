"""What vllm_digest/assets/report.py still imports from here; each name now lives with what it is
about (partitions, the warehouse resource). This module goes when the report asset moves to
vllm_digest/report/assets.py and imports them from there."""

from vllm_digest.partitions import PER_DAY_METADATA_MAX_DAYS, SINGLE_RUN, context_windows, day_span
from vllm_digest.warehouse.resource import WAREHOUSE_POOL

__all__ = ["PER_DAY_METADATA_MAX_DAYS", "SINGLE_RUN", "WAREHOUSE_POOL", "context_windows", "day_span"]
