"""One DuckDB transaction that reports its own error: every multi-statement write of ours runs in it.

When COMMIT itself fails (a full disk: "Could not write file …warehouse.duckdb.wal: No space left on
device"), DuckDB has already ended the transaction, so the ROLLBACK that follows fails too ("cannot
rollback - no transaction is active"). Raised from an ``except`` block, that second error became the
step's headline and the real cause sank into the chained traceback. Here the original error is always the
one raised; a failed rollback is only a note on it.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

import duckdb


@contextlib.contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """BEGIN, run the block, COMMIT; on any error (the COMMIT's included) roll back and raise that error."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
        con.execute("COMMIT")
    except BaseException as exc:
        try:
            con.execute("ROLLBACK")
        except duckdb.Error as rollback_error:
            # the failed statement (a COMMIT) already ended the transaction: nothing is left to undo
            exc.add_note(f"(the rollback after it failed too: {rollback_error})")
        raise
