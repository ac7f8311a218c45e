"""The raw layer on disk: one folder per repo and day, payloads as received.

Layout: ``<home>/raw/<owner>/<name>/<YYYY-MM-DD>/`` holding one JSON-lines file
per payload kind and ``manifest.json``. A day is written whole or not at all:
it is assembled in a temporary folder and swapped into place by rename.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

from vllm_digest.model import MANIFEST, PAYLOAD_KINDS, DayPayload, Manifest
from vllm_digest.settings import RepoRef


def repo_dir(raw_root: Path, repo: RepoRef) -> Path:
    """The folder holding every landed day of ``repo``."""
    return raw_root / repo.owner / repo.name


def day_dir(raw_root: Path, repo: RepoRef, day: str) -> Path:
    return repo_dir(raw_root, repo) / day


# what json.dumps(row, ensure_ascii=False, separators=(",", ":")) builds on each call, made once
_ROW_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def row_line(row: dict) -> str:
    """A row as its JSON line (without the line break)."""
    return _ROW_ENCODER.encode(row)


class RowLines:
    """One run's JSON lines (UTF-8, with their line break) of the rows a source serves again on later days, made once each.

    The sample source hands out the same dict for an item (and its PR) on every day the item is touched: a
    year's 94,000 item rows are 38,000 dicts, and re-serializing each day's was a third of the landing's
    JSON work. Rows are known by identity; each entry keeps its row alive, so no other row can take its
    id while the memo lives, and the ``is`` test makes a stale entry impossible anyway. Events and
    comments belong to one window and are not kept. Use one per run: it holds the run's item lines."""

    KINDS = ("issues", "pulls")

    def __init__(self) -> None:
        self._lines: dict[int, tuple[dict, bytes]] = {}

    def line(self, row: dict) -> bytes:
        hit = self._lines.get(id(row))
        if hit is not None and hit[0] is row:
            return hit[1]
        data = f"{row_line(row)}\n".encode("utf-8")
        self._lines[id(row)] = (row, data)
        return data


def write_day(raw_root: Path, repo: RepoRef, day: str, payload: DayPayload, lines: RowLines | None = None) -> Path:
    """Land a day atomically; the previous landing stays until the new one is whole. ``lines`` (a run's
    memo, for a source whose item rows repeat across days) serializes those rows once; the bytes are the same."""
    final = day_dir(raw_root, repo, day)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".tmp-{day}-{uuid.uuid4().hex}"
    tmp.mkdir()
    try:
        for kind, rows in payload.payloads().items():
            if lines is not None and kind in RowLines.KINDS:
                data = b"".join([lines.line(row) for row in rows])  # their UTF-8 is made once too
            else:
                data = "".join([f"{row_line(row)}\n" for row in rows]).encode("utf-8")
            (tmp / f"{kind}.jsonl").write_bytes(data)
        (tmp / MANIFEST).write_text(
            json.dumps(payload.manifest.to_json(), ensure_ascii=False, indent=2, sort_keys=True) + "\n",
            encoding="utf-8",
        )
        for f in tmp.iterdir():
            with open(f, "rb") as fh:
                os.fsync(fh.fileno())
        old = None
        if final.exists():
            old = final.parent / f".old-{day}-{uuid.uuid4().hex}"
            os.rename(final, old)
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return final


def read_day(raw_root: Path, repo: RepoRef, day: str) -> DayPayload | None:
    """The landed day, or None when it was never landed."""
    folder = day_dir(raw_root, repo, day)
    if not (folder / MANIFEST).is_file():
        return None
    path = folder / MANIFEST
    payload = DayPayload(manifest=Manifest.from_json(json.loads(path.read_text(encoding="utf-8")), str(path)))
    for kind in PAYLOAD_KINDS:
        path = folder / f"{kind}.jsonl"
        if path.is_file():
            with open(path, encoding="utf-8") as fh:
                setattr(payload, kind, [json.loads(line) for line in fh if line.strip()])
    return payload
