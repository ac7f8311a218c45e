"""The state store: what a rebuild of the warehouse must not lose, in its own DuckDB file beside it
(``$VLLM_DIGEST_HOME/state.duckdb``, next to raw/ and reports/).

The warehouse is rebuildable from raw/: delete it and the next runs make it again. Two things in it were not:

- the delivery log (``delivery_log``): what each channel was sent. A rebuilt warehouse without it sent every
  day again, with the same Idempotency-Key, which a chat or a mailbox does not honour;
- the narrative cache (``narrative_cache``, ``narrative_rejections``): the grounding verdicts of LLM answers.
  Raw holds nothing to rebuild them from: asking again costs every section's call once more, a sampling model
  writes other text (so the pages, and e-mail's content hash, change), and refused answers are asked again.

Their schema files say ``-- store: state``. The file has the warehouse's lock discipline (``lock.py``: its own
``state.duckdb.lock``, one writer or many readers) through the same resource code; only the warehouse has
numbered migrations. A read-only connection creates a missing store, since nothing needs building first.

**Carried over once.** A warehouse from before the state store holds those tables itself. When the store is
created, every row of them in the warehouse beside it is copied in (under the warehouse's read lock), so no
day delivered before the upgrade is sent again and no cached verdict is asked again. The warehouse's copies
are then no longer read or written; a warehouse made anew has none.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import duckdb
from pydantic import Field

from vllm_digest.core.sqlmodel.files import STATE
from vllm_digest.core.sqlmodel.resource import DuckDBFileResource, WarehouseResource, say
from vllm_digest.core.sqlmodel.schema import store_tables

_LEGACY = "legacy_warehouse"


class StateResource(DuckDBFileResource):
    # Dagster shows the docstring verbatim as the resource's description: plain text, one line
    """The DuckDB file of what outlives a warehouse rebuild: the delivery log and the narrative cache."""

    STORE: ClassVar[str] = STATE
    CREATE_WHEN_READ: ClassVar[bool] = True

    path: str = Field(description="the state store, state.duckdb under the data home")
    carry_over_from: str | None = Field(
        default=None,
        description="the warehouse whose delivery log and narrative cache (from before the state store) are "
                    "copied in when the state store is created",
    )

    def _fill_new(self, con: duckdb.DuckDBPyConnection) -> None:
        if self.carry_over_from is None or not Path(self.carry_over_from).exists():
            return
        warehouse = WarehouseResource(path=self.carry_over_from, lock_timeout_seconds=self.lock_timeout_seconds,
                                      lock_wait_seconds=self.lock_wait_seconds,
                                      lock_report_seconds=self.lock_report_seconds)
        with warehouse.hold_lock(read_only=True):
            carried = carry_over(con, self.carry_over_from)
        if any(carried.values()):
            rows = ", ".join(f"{n} {table} rows" for table, n in carried.items() if n)
            say(f"state store {self.path!r} created: carried over {rows} from the warehouse "
                f"{self.carry_over_from!r} (once; the warehouse's copies are no longer read)")


def carry_over(con: duckdb.DuckDBPyConnection, warehouse: str) -> dict[str, int]:
    """Copy the state tables' rows that ``warehouse`` holds into ``con`` (a state store being created):
    table -> rows copied. Only the columns both have are copied; the others keep their declared default."""
    con.execute(f"ATTACH $path AS {_LEGACY} (READ_ONLY)", {"path": warehouse})
    try:
        carried = {}
        for table in store_tables(STATE):
            old = {c for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_catalog = $db AND table_schema = 'main' AND table_name = $t",
                {"db": _LEGACY, "t": table}).fetchall()}
            if not old:
                continue
            new = [c for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_catalog = current_database() "
                "AND table_schema = 'main' AND table_name = $t ORDER BY ordinal_position", {"t": table}).fetchall()]
            columns = ", ".join(f'"{c}"' for c in new if c in old)
            con.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {_LEGACY}.main.{table}")
            carried[table] = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        return carried
    finally:
        con.execute(f"DETACH {_LEGACY}")
