"""Read back everything a run left on disk, including Dagster's compressed storage."""

from __future__ import annotations

import sqlite3
import zlib


def stored_bytes(path):
    """A file's bytes and, for Dagster's SQLite storage, every value in it inflated:
    run storage keeps job snapshots (resource config included) zlib-compressed."""
    data = path.read_bytes()
    yield data
    if not data.startswith(b"SQLite format 3\x00"):
        return
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            for row in con.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    if isinstance(value, bytes):
                        try:
                            yield zlib.decompress(value)
                        except zlib.error:
                            yield value
    finally:
        con.close()



def files_holding(secret: str, roots) -> tuple[list, int]:
    """The files under ``roots`` whose bytes (storage inflated) contain ``secret``, and how many were read."""
    found, scanned = [], 0
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file():
                scanned += 1
                if any(secret.encode() in blob for blob in stored_bytes(path)):
                    found.append(path)
    return found, scanned
